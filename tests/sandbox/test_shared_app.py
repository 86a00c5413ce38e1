"""Every sandbox of a process answers from one FastAPI application (``pos_terminal.sandbox.app.service``), each
with its own state: its database, clock, faults and settings, the approvals pending in its browser pages, and
its sweeper, which runs while its server does."""

from __future__ import annotations

from pathlib import Path

from pos_terminal.sandbox import SandboxServer, SandboxSettings
from pos_terminal.sandbox.app import service
from tests.helpers.http import http_client


def test_two_sandboxes_of_one_process_share_the_application_and_nothing_else(tmp_path: Path) -> None:
    first = SandboxServer(SandboxSettings(db_path=str(tmp_path / "first.sqlite3")))
    second = SandboxServer(SandboxSettings(db_path=str(tmp_path / "second.sqlite3"), auto_cancel_seconds=60))
    first.start()
    second.start()
    try:
        with http_client(base_url=first.url) as one, http_client(base_url=second.url) as other:
            assert one.post("/sandbox/clock", json={"advanceSeconds": 3600}).status_code == 200
            assert one.get("/sandbox/clock").json()["offsetSeconds"] == 3600
            assert other.get("/sandbox/clock").json()["offsetSeconds"] == 0
            assert one.get("/sandbox/settings").json() != other.get("/sandbox/settings").json()
            token = one.post("/sandbox/tokens", json={"merchantId": "mer-cafe"}).json()["access_token"]
            assert other.get("/v4/customers", headers={"Authorization": f"Bearer {token}"}).status_code == 401
    finally:
        first.stop()
        second.stop()
    assert service() is service()
