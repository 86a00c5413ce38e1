"""A bug in the sandbox answers 500 problem details and leaves the connection usable."""

from __future__ import annotations

import httpx
import pytest

from pos_terminal.sandbox import pos
from tests.conftest import mint_token


def test_bug_is_a_500_problem_and_the_connection_survives(
    client: httpx.Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    headers = {"Authorization": f"Bearer {mint_token(client)}"}

    def broken(*_: object) -> dict[str, object]:
        raise RuntimeError("boom")

    monkeypatch.setattr(pos, "customer_of", broken)
    for _ in range(2):
        response = client.get("/v4/customers", headers=headers)
        assert response.status_code == 500
        assert response.headers["content-type"] == "application/problem+json"
        assert response.json()["code"] == "INTERNAL_ERROR"
        assert "boom" not in response.text
    monkeypatch.undo()
    assert client.get("/v4/customers", headers=headers).status_code == 200
