"""Authlib and oauthlib, OAuth clients nobody here wrote, against the sandbox's authorization service.

The code flow with PKCE (public and confidential clients), the device flow, refresh, and the
errors each library maps to its own exceptions: every answer must be what a standard client expects.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterator
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from authlib.integrations.base_client.errors import OAuthError as AuthlibError
from authlib.integrations.requests_client import OAuth2Session
from oauthlib.oauth2 import DeviceClient, WebApplicationClient
from oauthlib.oauth2.rfc6749.errors import (
    CustomOAuth2Error,
    InvalidClientError,
    InvalidGrantError,
    InvalidScopeError,
    OAuth2Error,
)

from pos_terminal.sandbox import SandboxServer
from tests.conftest import DEMO_MERCHANT
from tests.helpers.http import http_client
from tests.sandbox.helpers import DEVICE_GRANT, REDIRECT

SERVICE_SCOPES = "service-api:transaction.read service-api:transaction.submit"


@pytest.fixture(autouse=True)
def _loopback_is_plain_http(monkeypatch: pytest.MonkeyPatch) -> None:
    """Both libraries refuse http:// unless told; the sandbox listens on loopback without TLS."""
    monkeypatch.setenv("OAUTHLIB_INSECURE_TRANSPORT", "1")
    monkeypatch.setenv("AUTHLIB_INSECURE_TRANSPORT", "1")


@pytest.fixture
def browser(sandbox: SandboxServer) -> Iterator[httpx.Client]:
    """A person's browser on the sandbox's pages."""
    with http_client(base_url=sandbox.url, timeout=10) as client:
        yield client


def approve_in_browser(browser: httpx.Client, authorization_url: str, owner: str = DEMO_MERCHANT) -> str:
    """Sign in as demo on the authorization page and approve; the address the browser is sent back to."""
    page = browser.get(authorization_url)
    assert page.status_code == 200, page.text
    token = re.search(r"name='csrf_token' value='([^']+)'", page.text)
    assert token, page.text
    action = urlsplit(authorization_url).path
    form = {k: v[0] for k, v in parse_qs(urlsplit(authorization_url).query).items()} | {"csrf_token": token.group(1)}
    browser.post(action, data={**form, "step": "login", "username": "demo", "password": "demo"})
    back = browser.post(action, data={**form, "step": "decide", "owner_id": owner, "decision": "approve"})
    assert back.status_code == 303, back.text
    return back.headers["location"]


def customers_with(sandbox: SandboxServer, access_token: str) -> int:
    return httpx.get(f"{sandbox.url}/v4/customers", headers={"Authorization": f"Bearer {access_token}"}).status_code


# --- Authlib ---------------------------------------------------------------------------------------------------


def test_authlib_public_client_code_flow_with_pkce_and_refresh(sandbox: SandboxServer, browser: httpx.Client) -> None:
    session = OAuth2Session(
        "pos-terminal",
        token_endpoint_auth_method="none",
        code_challenge_method="S256",
        redirect_uri=REDIRECT,
        scope="posapi",
    )
    verifier = secrets.token_urlsafe(48)
    url, state = session.create_authorization_url(f"{sandbox.url}/authorize/merchant", code_verifier=verifier)
    assert "code_challenge=" in url
    back = approve_in_browser(browser, url)

    token = session.fetch_token(f"{sandbox.url}/v1/token", authorization_response=back, code_verifier=verifier)

    assert parse_qs(urlsplit(back).query)["state"] == [state]
    assert token["token_type"] == "bearer" and token["refresh_token"]
    assert customers_with(sandbox, token["access_token"]) == 200
    renewed = session.refresh_token(f"{sandbox.url}/v1/token")
    assert renewed["access_token"] != token["access_token"]
    assert renewed["refresh_token"] == token["refresh_token"], "no refresh_token in the answer: Authlib keeps its own"
    assert customers_with(sandbox, renewed["access_token"]) == 200


@pytest.mark.parametrize("method", ["client_secret_basic", "client_secret_post"])
def test_authlib_confidential_client_authenticates_either_way(
    sandbox: SandboxServer, browser: httpx.Client, method: str
) -> None:
    session = OAuth2Session(
        "demo-web", "demo-web-secret", token_endpoint_auth_method=method, redirect_uri=REDIRECT, scope="posapi"
    )
    url, _ = session.create_authorization_url(f"{sandbox.url}/authorize/merchant")
    token = session.fetch_token(f"{sandbox.url}/v1/token", authorization_response=approve_in_browser(browser, url))
    assert customers_with(sandbox, token["access_token"]) == 200
    assert session.refresh_token(f"{sandbox.url}/v1/token")["access_token"]

    wrong = OAuth2Session("demo-web", "guessed", token_endpoint_auth_method=method, token=token)
    with pytest.raises(AuthlibError) as refused:
        wrong.refresh_token(f"{sandbox.url}/v1/token")
    assert refused.value.error == "invalid_client"


def test_authlib_errors_a_wrong_verifier_and_a_wider_scope(sandbox: SandboxServer, browser: httpx.Client) -> None:
    session = OAuth2Session(
        "pos-terminal", token_endpoint_auth_method="none", code_challenge_method="S256", redirect_uri=REDIRECT
    )
    url, _ = session.create_authorization_url(
        f"{sandbox.url}/authorize/merchant", code_verifier=secrets.token_urlsafe(48)
    )
    back = approve_in_browser(browser, url)
    with pytest.raises(AuthlibError) as wrong:
        session.fetch_token(
            f"{sandbox.url}/v1/token", authorization_response=back, code_verifier=secrets.token_urlsafe(48)
        )
    assert wrong.value.error == "invalid_grant"

    verifier = secrets.token_urlsafe(48)
    url, _ = session.create_authorization_url(f"{sandbox.url}/authorize/merchant", code_verifier=verifier)
    session.fetch_token(
        f"{sandbox.url}/v1/token", authorization_response=approve_in_browser(browser, url), code_verifier=verifier
    )
    with pytest.raises(AuthlibError) as wider:
        session.refresh_token(f"{sandbox.url}/v1/token", scope=f"posapi {SERVICE_SCOPES}")
    assert wider.value.error == "invalid_scope"


def test_authlib_device_flow(sandbox: SandboxServer, browser: httpx.Client) -> None:
    session = OAuth2Session("pos-terminal", token_endpoint_auth_method="none", scope="posapi")
    started = session.post(
        f"{sandbox.url}/v1/device_authorization",
        data={"client_id": "pos-terminal", "scope": "posapi"},
        withhold_token=True,
    )
    assert started.status_code == 200, started.text
    device = started.json()
    with pytest.raises(AuthlibError) as pending:
        session.fetch_token(f"{sandbox.url}/v1/token", grant_type=DEVICE_GRANT, device_code=device["device_code"])
    assert pending.value.error == "authorization_pending"
    browser.post("/sandbox/device/approve", json={"userCode": device["user_code"]}).raise_for_status()
    browser.post("/sandbox/clock", json={"advanceSeconds": 5}).raise_for_status()  # past the polling interval
    token = session.fetch_token(f"{sandbox.url}/v1/token", grant_type=DEVICE_GRANT, device_code=device["device_code"])
    assert token["refresh_token"] and customers_with(sandbox, token["access_token"]) == 200


# --- oauthlib --------------------------------------------------------------------------------------------------


def token_request(sandbox: SandboxServer, body: str, **headers: str) -> httpx.Response:
    return httpx.post(
        f"{sandbox.url}/v1/token",
        content=body.encode(),
        headers={"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json", **headers},
    )


def test_oauthlib_web_client_with_pkce_refresh_and_its_errors(sandbox: SandboxServer, browser: httpx.Client) -> None:
    client = WebApplicationClient("pos-terminal")
    verifier = client.create_code_verifier(64)
    challenge = client.create_code_challenge(verifier, "S256")
    url = client.prepare_request_uri(
        f"{sandbox.url}/authorize/merchant",
        redirect_uri=REDIRECT,
        scope=["posapi"],
        state="s-42",
        code_challenge=challenge,
        code_challenge_method="S256",
    )
    code = client.parse_request_uri_response(approve_in_browser(browser, url), state="s-42")["code"]
    body = client.prepare_request_body(code=code, redirect_uri=REDIRECT, code_verifier=verifier, include_client_id=True)

    answer = token_request(sandbox, body)
    token = client.parse_request_body_response(answer.text)

    assert token["refresh_token"] and customers_with(sandbox, token["access_token"]) == 200
    refresh = client.prepare_refresh_body(refresh_token=token["refresh_token"], client_id="pos-terminal")
    renewed = client.parse_request_body_response(token_request(sandbox, refresh).text)
    assert customers_with(sandbox, renewed["access_token"]) == 200
    wider = client.prepare_refresh_body(
        refresh_token=token["refresh_token"], scope=f"posapi {SERVICE_SCOPES}", client_id="pos-terminal"
    )
    with pytest.raises(InvalidScopeError):
        client.parse_request_body_response(token_request(sandbox, wider).text)
    replay = token_request(sandbox, body)
    with pytest.raises(InvalidGrantError):  # a code used twice...
        client.parse_request_body_response(replay.text)
    assert customers_with(sandbox, renewed["access_token"]) == 401, "...revokes what it gave (RFC 6749 §4.1.2)"


def test_oauthlib_confidential_client_with_url_encoded_basic_credentials(
    sandbox: SandboxServer, browser: httpx.Client
) -> None:
    """oauthlib leaves client authentication to the caller; Basic with form-encoded id and secret (RFC 6749 §2.3.1)."""
    client = WebApplicationClient("demo-web")
    url = client.prepare_request_uri(f"{sandbox.url}/authorize/merchant", redirect_uri=REDIRECT, scope=["posapi"])
    code = client.parse_request_uri_response(approve_in_browser(browser, url))["code"]
    body = client.prepare_request_body(code=code, redirect_uri=REDIRECT)
    basic = httpx.BasicAuth("demo%2Dweb", "demo%2Dweb%2Dsecret")
    answer = httpx.post(
        f"{sandbox.url}/v1/token",
        content=body.encode(),
        auth=basic,
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert customers_with(sandbox, client.parse_request_body_response(answer.text)["access_token"]) == 200
    anonymous = token_request(sandbox, client.prepare_refresh_body(refresh_token=client.refresh_token))
    with pytest.raises(InvalidClientError):  # no credentials at all (oauthlib sends no client_id on refresh)
        client.parse_request_body_response(anonymous.text)


def test_oauthlib_device_client(sandbox: SandboxServer, browser: httpx.Client) -> None:
    client = DeviceClient("pos-terminal")
    started = httpx.post(
        f"{sandbox.url}/v1/device_authorization", data={"client_id": "pos-terminal", "scope": "posapi"}
    )
    device = started.json()
    poll = client.prepare_request_body(device["device_code"], include_client_id=True)
    with pytest.raises(CustomOAuth2Error) as pending:
        client.parse_request_body_response(token_request(sandbox, poll).text)
    assert pending.value.error == "authorization_pending"
    too_soon = token_request(sandbox, poll)
    with pytest.raises(OAuth2Error) as slow:
        client.parse_request_body_response(too_soon.text)
    assert slow.value.error == "slow_down"

    browser.post("/sandbox/device/deny", json={"userCode": device["user_code"]}).raise_for_status()
    browser.post("/sandbox/clock", json={"advanceSeconds": 15}).raise_for_status()
    with pytest.raises(OAuth2Error) as denied:
        client.parse_request_body_response(token_request(sandbox, poll).text)
    assert denied.value.error == "access_denied"

    again = httpx.post(f"{sandbox.url}/v1/device_authorization", data={"client_id": "pos-terminal"}).json()
    browser.post("/sandbox/device/approve", json={"userCode": again["user_code"]}).raise_for_status()
    token = client.parse_request_body_response(
        token_request(sandbox, client.prepare_request_body(again["device_code"], include_client_id=True)).text
    )
    assert customers_with(sandbox, token["access_token"]) == 200
