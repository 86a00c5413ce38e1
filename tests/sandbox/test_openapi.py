"""Schemathesis against the sandbox's own ``/openapi.json``, over loopback.

Bounded examples per operation keep CI fast. Every answer must be a documented
status with a documented content type and body: no server errors, nothing that
contradicts the schema. Control routes that change the whole sandbox (faults,
clock, settings) are left out: random calls there would only sabotage the run.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from pos_terminal.sandbox import SandboxServer, SandboxSettings
from tests.helpers.http import http_client

pytestmark = pytest.mark.slow

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]
SERVICE_SCOPES = "service-api:transaction.read service-api:transaction.submit"


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[SandboxServer, dict[str, str]]]:
    """One sandbox for the module, with a POS token and an organization token that never expire."""
    db = tmp_path_factory.mktemp("openapi") / "sandbox.sqlite3"
    server = SandboxServer(SandboxSettings(db_path=str(db)))
    server.start()
    with http_client(base_url=server.url) as http:
        pos = http.post("/sandbox/tokens", json={"merchantId": "mer-cafe", "expiresIn": 0}).json()
        org = http.post(
            "/sandbox/tokens", json={"organizationId": "org-harbour", "scope": SERVICE_SCOPES, "expiresIn": 0}
        ).json()
    yield server, {"pos": pos["access_token"], "payments": org["access_token"]}
    server.stop()


@pytest.fixture
def api_schema(live: tuple[SandboxServer, dict[str, str]]) -> Any:
    server, _ = live
    return schemathesis.openapi.from_url(f"{server.url}/openapi.json")


@pytest.fixture
def tokens(live: tuple[SandboxServer, dict[str, str]]) -> dict[str, str]:
    return live[1]


schema = schemathesis.pytest.from_fixture("api_schema").exclude(path_regex=r"^/sandbox/(faults|clock|settings)")


@schema.parametrize()
@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=True,
)
def test_sandbox_answers_match_its_openapi_document(case: Any, tokens: dict[str, str]) -> None:
    token = tokens["payments"] if case.path.startswith("/v5") else tokens["pos"]
    case.call_and_validate(headers={"Authorization": f"Bearer {token}"}, checks=CHECKS, timeout=10)


def test_openapi_document_describes_pos_and_auth_routes(live: tuple[SandboxServer, dict[str, str]]) -> None:
    server, _ = live
    document = httpx.get(f"{server.url}/openapi.json").json()
    paths = document["paths"]
    for path in ("/v4/customers", "/v4/transactions", "/v4/transactions/{transaction_id}", "/v4/summary", "/v1/token"):
        assert path in paths, path
    created = paths["/v4/transactions"]["post"]["responses"]
    assert "Location" in created["201"]["headers"]
    assert {"401", "402", "409", "422"} <= set(created)
    assert "application/problem+json" in created["422"]["content"]
    assert "HTTPValidationError" not in str(document)
    docs = httpx.get(f"{server.url}/docs")
    assert docs.status_code == 200
    assert "swagger" in docs.text.lower()
