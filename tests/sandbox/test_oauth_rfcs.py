"""The authorization service holds to the RFCs where independent clients found it did not.

Client authentication at every endpoint (RFC 6749 §3.2.1, RFC 8628 §3.4) with Basic credentials
URL-decoded (§2.3.1), PKCE (RFC 7636, RFC 9700 §2.1.1), no wider scope on refresh (§6), refresh
token rotation with reuse detection, secrets kept as digests, and the metadata of RFC 8414.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

import httpx
import pytest

from pos_terminal.sandbox import SandboxServer
from tests.conftest import DEMO_MERCHANT
from tests.helpers.http import http_client
from tests.sandbox.helpers import DEVICE_GRANT, REDIRECT, WEB, csrf

SERVICE_SCOPES = "service-api:transaction.read service-api:transaction.submit"


def basic(client_id: str, secret: str) -> str:
    return "Basic " + base64.b64encode(f"{client_id}:{secret}".encode()).decode()


def pkce_pair() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return verifier, challenge


def authorize(client: httpx.Client, client_id: str, **extra: str) -> dict[str, list[str]]:
    """Sign in as demo on the merchant page and approve; the query the browser is sent back with."""
    params = {"client_id": client_id, "response_type": "code", "redirect_uri": REDIRECT, "state": "s", **extra}
    page = client.get("/authorize/merchant", params=params)
    if page.status_code == 303:
        return parse_qs(urlsplit(page.headers["location"]).query)
    form = {**params, "csrf_token": csrf(page)}
    client.post("/authorize/merchant", data={**form, "step": "login", "username": "demo", "password": "demo"})
    back = client.post(
        "/authorize/merchant", data={**form, "step": "decide", "owner_id": DEMO_MERCHANT, "decision": "approve"}
    )
    assert back.status_code == 303, back.text
    return parse_qs(urlsplit(back.headers["location"]).query)


def code_tokens(client: httpx.Client) -> dict[str, Any]:
    """Tokens of the confidential client from the code flow (no PKCE)."""
    code = authorize(client, "demo-web")["code"][0]
    granted = client.post(
        "/v1/token", data={"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT, **WEB}
    )
    assert granted.status_code == 200, granted.text
    body: dict[str, Any] = granted.json()
    return body


def refresh(client: httpx.Client, refresh_token: str, **extra: str) -> httpx.Response:
    return client.post("/v1/token", data={"grant_type": "refresh_token", "refresh_token": refresh_token, **extra})


def works(sandbox: SandboxServer, access_token: str) -> bool:
    answer = httpx.get(f"{sandbox.url}/v4/customers", headers={"Authorization": f"Bearer {access_token}"})
    return answer.status_code == 200


def assert_oauth_error(response: httpx.Response, status: int, error: str) -> None:
    assert response.status_code == status, response.text
    assert response.json()["error"] == error, response.text


# --- client authentication -----------------------------------------------------------------------------------


def test_a_confidential_client_authenticates_at_the_device_endpoints_too(client: httpx.Client) -> None:
    """demo-web ran the whole device flow with no secret and got a refresh token (RFC 8628 §3.4)."""
    anonymous = client.post("/v1/device_authorization", data={"client_id": "demo-web"})
    assert_oauth_error(anonymous, 401, "invalid_client")
    assert anonymous.headers["www-authenticate"].startswith("Basic")
    started = client.post("/v1/device_authorization", data=WEB)
    assert started.status_code == 200, started.text
    device_code = started.json()["device_code"]
    poll = {"grant_type": DEVICE_GRANT, "device_code": device_code}
    assert_oauth_error(client.post("/v1/token", data={**poll, "client_id": "demo-web"}), 401, "invalid_client")
    assert_oauth_error(client.post("/v1/token", data={**poll, **WEB}), 400, "authorization_pending")


def test_a_public_client_has_no_secret_to_send(client: httpx.Client) -> None:
    guessed = client.post("/v1/device_authorization", data={"client_id": "pos-terminal", "client_secret": "x"})
    assert_oauth_error(guessed, 401, "invalid_client")
    assert client.post("/v1/device_authorization", data={"client_id": "pos-terminal"}).status_code == 200


def test_basic_credentials_are_form_url_decoded_before_comparison(client: httpx.Client) -> None:
    """RFC 6749 §2.3.1: id and secret are form-urlencoded, then joined with ":" and base64-encoded."""
    tokens = code_tokens(client)
    renewed = client.post(
        "/v1/token",
        data={"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"]},
        headers={"Authorization": basic("demo%2Dweb", "demo%2Dweb%2Dsecret")},
    )
    assert renewed.status_code == 200, renewed.text
    spaced = client.post(
        "/v1/device_authorization", headers={"Authorization": basic(quote("demo-web"), "demo-web-secret+")}
    )
    assert_oauth_error(spaced, 401, "invalid_client")  # "+" is a space in form encoding, not part of the secret


def test_one_way_of_client_authentication_per_request(client: httpx.Client) -> None:
    both = client.post(
        "/v1/device_authorization", data=WEB, headers={"Authorization": basic("demo-web", "demo-web-secret")}
    )
    assert_oauth_error(both, 400, "invalid_request")
    mixed = client.post(
        "/v1/device_authorization",
        data={"client_id": "pos-terminal"},
        headers={"Authorization": basic("demo-web", "demo-web-secret")},
    )
    assert_oauth_error(mixed, 400, "invalid_request")


@pytest.mark.parametrize("secret", ["démo", "\u00e9\u00e8", "a\u0000b"], ids=["accented", "latin", "control character"])
def test_secrets_beyond_ascii_are_refused_not_a_server_error(client: httpx.Client, secret: str) -> None:
    """compare_digest refuses non-ASCII strings with TypeError, which was a 500."""
    body = client.post("/v1/device_authorization", json={"client_id": "demo-web", "client_secret": secret})
    assert body.status_code in (400, 401), body.text
    header = client.post(
        "/v1/device_authorization",
        headers={"Authorization": "Basic " + base64.b64encode(f"demo-web:{secret}".encode()).decode()},
    )
    assert header.status_code == 401, header.text


def test_parameters_that_are_not_text_are_invalid_requests(client: httpx.Client) -> None:
    raw = b'{"grant_type": "refresh_token", "refresh_token": "\\ud800", "client_id": "pos-terminal"}'
    answer = client.post("/v1/token", content=raw, headers={"Content-Type": "application/json"})
    assert_oauth_error(answer, 400, "invalid_request")
    assert "surrogate" in answer.json()["error_description"]


# --- PKCE ----------------------------------------------------------------------------------------------------


def test_a_public_client_must_use_pkce(client: httpx.Client) -> None:
    """The public client got tokens from the code flow with neither a secret nor PKCE."""
    refused = authorize(client, "pos-terminal")
    assert refused["error"] == ["invalid_request"]
    assert "PKCE" in refused["error_description"][0]
    plain = authorize(client, "pos-terminal", code_challenge="x" * 43, code_challenge_method="plain")
    assert plain["error"] == ["invalid_request"]

    verifier, challenge = pkce_pair()
    code = authorize(client, "pos-terminal", code_challenge=challenge, code_challenge_method="S256")["code"][0]
    exchange = {"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT, "client_id": "pos-terminal"}
    assert_oauth_error(client.post("/v1/token", data=exchange), 400, "invalid_grant")  # no verifier
    granted = client.post("/v1/token", data={**exchange, "code_verifier": verifier})
    assert granted.status_code == 200, granted.text
    assert granted.json()["refresh_token"]


def test_pkce_is_checked_whenever_it_was_used(client: httpx.Client) -> None:
    """A wrong code_verifier was accepted."""
    verifier, challenge = pkce_pair()
    code = authorize(client, "demo-web", code_challenge=challenge, code_challenge_method="S256")["code"][0]
    exchange = {"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT, **WEB}
    wrong = client.post("/v1/token", data={**exchange, "code_verifier": pkce_pair()[0]})
    assert_oauth_error(wrong, 400, "invalid_grant")
    assert "does not match" in wrong.json()["error_description"]
    assert client.post("/v1/token", data={**exchange, "code_verifier": verifier}).status_code == 200


def test_a_verifier_for_a_code_issued_without_a_challenge_is_refused(client: httpx.Client) -> None:
    """RFC 9700 §2.1.1: otherwise PKCE could be stripped from the request and supplied later (a downgrade)."""
    code = authorize(client, "demo-web")["code"][0]
    exchange = {"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT, **WEB}
    assert_oauth_error(
        client.post("/v1/token", data={**exchange, "code_verifier": pkce_pair()[0]}), 400, "invalid_grant"
    )


# --- scope on refresh, rotation ----------------------------------------------------------------------------------


def test_a_refresh_may_narrow_the_scope_but_never_widen_it(client: httpx.Client) -> None:
    """Asking for more on refresh answered 200 with the old scope; RFC 6749 §6 wants invalid_scope."""
    tokens = code_tokens(client)
    wider = refresh(client, tokens["refresh_token"], scope=f"posapi {SERVICE_SCOPES}", **WEB)
    assert_oauth_error(wider, 400, "invalid_scope")
    unknown = refresh(client, tokens["refresh_token"], scope="everything", **WEB)
    assert_oauth_error(unknown, 400, "invalid_scope")
    same = refresh(client, tokens["refresh_token"], scope="posapi", **WEB)
    assert same.status_code == 200
    assert same.json()["scope"] == "posapi"


def test_narrowing_on_refresh_leaves_the_grant_whole(client: httpx.Client) -> None:
    params = {
        "client_id": "demo-web",
        "response_type": "code",
        "redirect_uri": REDIRECT,
        "scope": f"posapi {SERVICE_SCOPES}",
    }
    page = client.get("/authorize/organization", params=params)
    form = {**params, "csrf_token": csrf(page)}
    client.post("/authorize/organization", data={**form, "step": "login", "username": "demo", "password": "demo"})
    back = client.post(
        "/authorize/organization", data={**form, "step": "decide", "owner_id": "org-harbour", "decision": "approve"}
    )
    code = parse_qs(urlsplit(back.headers["location"]).query)["code"][0]
    tokens = client.post(
        "/v1/token", data={"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT, **WEB}
    ).json()
    narrow = refresh(client, tokens["refresh_token"], scope="service-api:transaction.read", **WEB)
    assert narrow.json()["scope"] == "service-api:transaction.read"
    whole = refresh(client, tokens["refresh_token"], **WEB)
    assert whole.json()["scope"] == f"posapi {SERVICE_SCOPES}"


def test_rotation_gives_a_new_refresh_token_and_reuse_revokes_the_grant(
    make_sandbox: Any,
) -> None:
    sandbox = make_sandbox(rotate_refresh_tokens=True)
    with http_client(base_url=sandbox.url) as client:
        first = code_tokens(client)
        second = refresh(client, first["refresh_token"], **WEB).json()
        assert second["refresh_token"] not in (None, first["refresh_token"])
        third = refresh(client, second["refresh_token"], **WEB).json()
        assert works(sandbox, third["access_token"])

        replayed = refresh(client, first["refresh_token"], **WEB)
        assert_oauth_error(replayed, 400, "invalid_grant")
        assert "revoked" in replayed.json()["error_description"]
        assert not works(sandbox, third["access_token"]), "reuse revokes every token of the grant"
        assert_oauth_error(refresh(client, third["refresh_token"], **WEB), 400, "invalid_grant")


def test_rotation_is_a_setting_that_can_change_at_run_time(client: httpx.Client) -> None:
    tokens = code_tokens(client)
    assert "refresh_token" not in refresh(client, tokens["refresh_token"], **WEB).json()
    client.patch("/sandbox/settings", json={"rotateRefreshTokens": True}).raise_for_status()
    rotated = refresh(client, tokens["refresh_token"], **WEB).json()
    assert rotated["refresh_token"] != tokens["refresh_token"]
    assert_oauth_error(refresh(client, tokens["refresh_token"], **WEB), 400, "invalid_grant")


# --- storage and metadata -------------------------------------------------------------------------------------


def test_the_database_keeps_digests_of_tokens_and_codes_never_the_secrets(
    client: httpx.Client, sandbox: SandboxServer
) -> None:
    tokens = code_tokens(client)
    started = client.post("/v1/device_authorization", data={"client_id": "pos-terminal"}).json()
    minted = client.post("/sandbox/tokens", json={"merchantId": DEMO_MERCHANT, "refresh": True}).json()
    secrets_given = {tokens["access_token"], tokens["refresh_token"], started["device_code"], minted["access_token"]}
    with sandbox.sandbox.db.tx() as conn:
        stored = " ".join(
            str(value)
            for table in ("access_tokens", "refresh_tokens", "device_codes", "auth_codes")
            for row in conn.execute(f"SELECT * FROM {table}").fetchall()  # noqa: S608
            for value in tuple(row)
        )
    for secret in secrets_given:
        assert secret not in stored
        assert hashlib.sha256(secret.encode()).hexdigest() in stored
    assert works(sandbox, tokens["access_token"]) and works(sandbox, minted["access_token"])


def test_metadata_names_every_endpoint_rfc_8414(client: httpx.Client, sandbox: SandboxServer) -> None:
    metadata = client.get("/.well-known/oauth-authorization-server").json()
    assert metadata["issuer"] == sandbox.url
    assert metadata["token_endpoint"] == f"{sandbox.url}/v1/token"
    assert metadata["device_authorization_endpoint"] == f"{sandbox.url}/v1/device_authorization"
    assert metadata["code_challenge_methods_supported"] == ["S256"]
    assert DEVICE_GRANT in metadata["grant_types_supported"]
    assert set(metadata["token_endpoint_auth_methods_supported"]) == {
        "client_secret_basic",
        "client_secret_post",
        "none",
    }
