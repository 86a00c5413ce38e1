"""Authorization service over loopback: device flow, browser pages, authorization code, refresh, token expiry."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from pos_terminal.sandbox import SandboxServer
from tests.conftest import DEMO_MERCHANT, OTHER_MERCHANT, mint_token
from tests.helpers.http import http_client
from tests.sandbox.helpers import DEVICE_GRANT, REDIRECT, WEB, advance, csrf


def start_device(client: httpx.Client, **form: str) -> dict[str, Any]:
    response = client.post("/v1/device_authorization", data={"client_id": "pos-terminal", "scope": "posapi", **form})
    assert response.status_code == 200, response.text
    return dict(response.json())


def poll(client: httpx.Client, device_code: str) -> httpx.Response:
    return client.post(
        "/v1/token", data={"grant_type": DEVICE_GRANT, "device_code": device_code, "client_id": "pos-terminal"}
    )


def customers_of(sandbox: SandboxServer, token: str) -> set[str]:
    response = httpx.get(f"{sandbox.url}/v4/customers", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 200, response.text
    return {c["customerId"] for c in response.json()}


# --- device authorization ----------------------------------------------------------------------------------


def test_device_authorization_answers_per_rfc_8628(client: httpx.Client, sandbox: SandboxServer) -> None:
    started = start_device(client)
    assert re.fullmatch(r"[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}", started["user_code"])
    assert started["verification_uri"] == f"{sandbox.url}/device"
    assert started["verification_uri_complete"].endswith(f"user_code={started['user_code']}")
    assert started["expires_in"] == 600
    assert started["interval"] == 1


def test_device_authorization_takes_json_and_refuses_unknown_clients_and_scopes(client: httpx.Client) -> None:
    assert client.post("/v1/device_authorization", json={"client_id": "pos-terminal"}).status_code == 200
    unknown = client.post("/v1/device_authorization", data={"client_id": "nobody"})
    assert unknown.status_code == 401
    assert unknown.json()["error"] == "invalid_client"
    scope = client.post("/v1/device_authorization", data={"client_id": "pos-terminal", "scope": "everything"})
    assert (scope.status_code, scope.json()["error"]) == (400, "invalid_scope")
    missing = client.post("/v1/device_authorization", data={})
    assert (missing.status_code, missing.json()["error"]) == (401, "invalid_client")


def test_device_flow_pending_then_approved_gives_a_merchant_token_once(
    client: httpx.Client, sandbox: SandboxServer
) -> None:
    started = start_device(client)
    pending = poll(client, started["device_code"])
    assert (pending.status_code, pending.json()["error"]) == (400, "authorization_pending")
    assert pending.headers["cache-control"] == "no-store"

    approved = client.post(
        "/sandbox/device/approve", json={"userCode": started["user_code"], "merchantId": DEMO_MERCHANT}
    )
    assert approved.status_code == 204
    advance(client, 1)
    granted = poll(client, started["device_code"])
    assert granted.status_code == 200, granted.text
    body = granted.json()
    assert body["token_type"] == "bearer"
    assert body["scope"] == "posapi"
    assert body["resource_owner_type"] == "merchant"
    assert body["expires_in"] == 3600
    assert body["refresh_token"]
    assert "cus-ava" in customers_of(sandbox, body["access_token"])

    again = poll(client, started["device_code"])
    assert (again.status_code, again.json()["error"]) == (400, "invalid_grant")


def test_polling_faster_than_the_interval_is_slow_down_and_the_interval_grows_for_good(client: httpx.Client) -> None:
    started = start_device(client)
    assert poll(client, started["device_code"]).json()["error"] == "authorization_pending"
    fast = poll(client, started["device_code"])
    assert fast.json()["error"] == "slow_down"
    advance(client, 1.1)
    # the interval is now 6 s: a poll after the original 1 s is still too fast
    assert poll(client, started["device_code"]).json()["error"] == "slow_down"


def test_device_flow_denied(client: httpx.Client) -> None:
    started = start_device(client)
    assert client.post("/sandbox/device/deny", json={"userCode": started["user_code"]}).status_code == 204
    denied = poll(client, started["device_code"])
    assert (denied.status_code, denied.json()["error"]) == (400, "access_denied")


def test_device_code_expires_on_the_sandbox_clock(client: httpx.Client) -> None:
    started = start_device(client)
    client.post("/sandbox/clock", json={"advanceSeconds": 601}).raise_for_status()
    expired = poll(client, started["device_code"])
    assert (expired.status_code, expired.json()["error"]) == (400, "expired_token")
    late = client.post("/sandbox/device/approve", json={"userCode": started["user_code"]})
    assert late.status_code == 404


def test_device_token_refuses_unknown_codes_and_other_clients(client: httpx.Client) -> None:
    unknown = poll(client, "nope")
    assert unknown.json()["error"] == "invalid_grant"
    started = start_device(client)
    stolen = client.post("/v1/token", data={"grant_type": DEVICE_GRANT, "device_code": started["device_code"], **WEB})
    assert stolen.json()["error"] == "invalid_grant"


# --- device verification page in a browser -------------------------------------------------------------------


def test_verification_page_sign_in_pick_merchant_approve(client: httpx.Client, sandbox: SandboxServer) -> None:
    started = start_device(client)
    page = client.get("/device", params={"user_code": started["user_code"]})
    assert page.status_code == 200
    assert "text/html" in page.headers["content-type"]
    assert f"value='{started['user_code']}'" in page.text
    token = csrf(page)

    login = client.post(
        "/device", data={"csrf_token": token, "step": "code", "user_code": started["user_code"].lower()}
    )
    assert login.status_code == 200
    assert "name='password'" in login.text

    wrong = client.post(
        "/device",
        data={
            "csrf_token": token,
            "step": "login",
            "user_code": started["user_code"],
            "username": "demo",
            "password": "x",
        },
    )
    assert wrong.status_code == 400
    assert "user name or password is wrong" in wrong.text

    choose = client.post(
        "/device",
        data={
            "csrf_token": token,
            "step": "login",
            "user_code": started["user_code"],
            "username": "demo",
            "password": "demo",
        },
    )
    assert choose.status_code == 200
    assert "Harbour Café" in choose.text
    assert "Quayside Bistro" in choose.text

    done = client.post(
        "/device",
        data={
            "csrf_token": token,
            "step": "decide",
            "user_code": started["user_code"],
            "merchant_id": OTHER_MERCHANT,
            "decision": "approve",
        },
    )
    assert done.status_code == 200
    assert "Quayside Bistro" in done.text

    granted = poll(client, started["device_code"])
    assert granted.status_code == 200, granted.text
    assert "cus-sofia" in customers_of(sandbox, granted.json()["access_token"])


def test_verification_page_deny(client: httpx.Client) -> None:
    started = start_device(client)
    token = csrf(client.get("/device"))
    code = started["user_code"]
    client.post(
        "/device",
        data={"csrf_token": token, "step": "login", "user_code": code, "username": "cafe", "password": "demo"},
    )
    denied = client.post("/device", data={"csrf_token": token, "step": "decide", "user_code": code, "decision": "deny"})
    assert "Denied" in denied.text
    assert poll(client, started["device_code"]).json()["error"] == "access_denied"


def test_verification_page_refuses_merchants_the_user_does_not_have(client: httpx.Client) -> None:
    started = start_device(client)
    token = csrf(client.get("/device"))
    code = started["user_code"]
    client.post(
        "/device",
        data={"csrf_token": token, "step": "login", "user_code": code, "username": "cafe", "password": "demo"},
    )
    sneaky = client.post(
        "/device",
        data={
            "csrf_token": token,
            "step": "decide",
            "user_code": code,
            "merchant_id": OTHER_MERCHANT,
            "decision": "approve",
        },
    )
    assert sneaky.status_code == 400
    assert poll(client, started["device_code"]).json()["error"] == "authorization_pending"


def test_forms_without_the_session_csrf_token_are_refused(client: httpx.Client, sandbox: SandboxServer) -> None:
    started = start_device(client)
    client.get("/device")
    forged = client.post("/device", data={"csrf_token": "forged", "step": "code", "user_code": started["user_code"]})
    assert forged.status_code == 403
    with http_client(base_url=sandbox.url) as stranger:
        no_session = stranger.post("/device", data={"csrf_token": "x", "user_code": started["user_code"]})
    assert no_session.status_code == 403


def test_wrong_user_codes_are_rate_limited(client: httpx.Client, sandbox: SandboxServer) -> None:
    token = csrf(client.get("/device"))
    statuses = [
        client.post("/device", data={"csrf_token": token, "step": "code", "user_code": "BBBB-BBBB"}).status_code
        for _ in range(6)
    ]
    assert statuses == [400] * 5 + [429]
    started = start_device(client)
    blocked = client.post("/device", data={"csrf_token": token, "step": "code", "user_code": "CCCC-CCCC"})
    assert blocked.status_code == 429
    assert int(blocked.headers["retry-after"]) > 0
    # the limit is checked before the code is looked up: a guesser learns nothing, not even from a right guess
    right = client.post("/device", data={"csrf_token": token, "step": "code", "user_code": started["user_code"]})
    assert right.status_code == 429
    # and it counts per address as well as per session: a new session from the same address is limited too
    with http_client(base_url=sandbox.url) as other:
        fresh = csrf(other.get("/device"))
        again = other.post("/device", data={"csrf_token": fresh, "step": "code", "user_code": started["user_code"]})
        assert again.status_code == 429
    client.post("/sandbox/clock", json={"advanceSeconds": 301}).raise_for_status()
    started = start_device(client)  # the first code has expired meanwhile
    later = client.post("/device", data={"csrf_token": token, "step": "code", "user_code": started["user_code"]})
    assert later.status_code == 200, "the limit ends with its window"


# --- authorization-code flow ---------------------------------------------------------------------------------


def authorize(
    client: httpx.Client,
    kind: str = "merchant",
    *,
    owner: str = DEMO_MERCHANT,
    scope: str = "posapi",
    state: str = "s-1",
) -> dict[str, list[str]]:
    params = {
        "client_id": "demo-web",
        "response_type": "code",
        "redirect_uri": REDIRECT,
        "scope": scope,
        "state": state,
    }
    page = client.get(f"/authorize/{kind}", params=params)
    assert page.status_code == 200, page.text
    token = csrf(page)
    form = {**params, "csrf_token": token}
    choose = client.post(f"/authorize/{kind}", data={**form, "step": "login", "username": "demo", "password": "demo"})
    assert choose.status_code == 200, choose.text
    back = client.post(f"/authorize/{kind}", data={**form, "step": "decide", "owner_id": owner, "decision": "approve"})
    assert back.status_code == 303, back.text
    location = urlsplit(back.headers["location"])
    assert f"{location.scheme}://{location.netloc}{location.path}" == REDIRECT
    return parse_qs(location.query)


def exchange(client: httpx.Client, code: str, **extra: str) -> httpx.Response:
    return client.post(
        "/v1/token",
        json={"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT, **WEB, **extra},
    )


def test_authorization_code_flow_echoes_state_and_exchanges_once(client: httpx.Client, sandbox: SandboxServer) -> None:
    query = authorize(client, state="xyz 42")
    assert query["grant_type"] == ["authorization_code"]
    assert query["state"] == ["xyz 42"]
    granted = exchange(client, query["code"][0])
    assert granted.status_code == 200, granted.text
    tokens = granted.json()
    assert tokens["refresh_token"]
    assert tokens["resource_owner_type"] == "merchant"
    assert "cus-ava" in customers_of(sandbox, tokens["access_token"])

    replay = exchange(client, query["code"][0])
    assert (replay.status_code, replay.json()["error"]) == (400, "invalid_grant")
    # a replayed code revokes what it issued
    revoked = httpx.get(f"{sandbox.url}/v4/customers", headers={"Authorization": f"Bearer {tokens['access_token']}"})
    assert revoked.status_code == 401


def test_authorization_code_is_short_lived_and_bound_to_client_and_redirect(client: httpx.Client) -> None:
    code = authorize(client)["code"][0]
    wrong_redirect = exchange(client, code, redirect_uri="http://127.0.0.1/elsewhere")
    assert wrong_redirect.json()["error"] == "invalid_grant"
    wrong_secret = exchange(client, code, client_secret="guess")
    assert (wrong_secret.status_code, wrong_secret.json()["error"]) == (401, "invalid_client")
    assert wrong_secret.headers["www-authenticate"].startswith("Basic")

    late = authorize(client)["code"][0]
    client.post("/sandbox/clock", json={"advanceSeconds": 61}).raise_for_status()
    assert exchange(client, late).json()["error"] == "invalid_grant"


def test_organization_flow_grants_the_service_scopes(client: httpx.Client) -> None:
    scope = "service-api:transaction.read service-api:transaction.submit"
    query = authorize(client, "organization", owner="org-harbour", scope=scope)
    tokens = exchange(client, query["code"][0]).json()
    assert tokens["resource_owner_type"] == "organization"
    assert tokens["scope"] == scope


def test_denied_authorization_redirects_with_access_denied_and_state(client: httpx.Client) -> None:
    params = {"client_id": "demo-web", "response_type": "code", "redirect_uri": REDIRECT, "state": "abc"}
    token = csrf(client.get("/authorize/merchant", params=params))
    form = {**params, "csrf_token": token}
    client.post("/authorize/merchant", data={**form, "step": "login", "username": "demo", "password": "demo"})
    back = client.post("/authorize/merchant", data={**form, "step": "decide", "decision": "deny"})
    assert back.status_code == 303
    query = parse_qs(urlsplit(back.headers["location"]).query)
    assert query["error"] == ["access_denied"]
    assert query["state"] == ["abc"]


def test_bad_authorization_requests(client: httpx.Client) -> None:
    unknown = client.get("/authorize/merchant", params={"client_id": "nobody", "response_type": "code"})
    assert unknown.status_code == 400
    assert "location" not in unknown.headers
    foreign = client.get(
        "/authorize/merchant",
        params={"client_id": "demo-web", "response_type": "code", "redirect_uri": "https://evil.example/cb"},
    )
    assert foreign.status_code == 400
    assert "location" not in foreign.headers
    wrong_type = client.get(
        "/authorize/merchant",
        params={"client_id": "demo-web", "response_type": "token", "redirect_uri": REDIRECT, "state": "st"},
    )
    assert wrong_type.status_code == 303
    query = parse_qs(urlsplit(wrong_type.headers["location"]).query)
    assert query == {"error": ["unsupported_response_type"], "state": ["st"]}
    # a loopback redirect on another port is the same registered address (RFC 8252)
    port = client.get(
        "/authorize/merchant",
        params={"client_id": "demo-web", "response_type": "code", "redirect_uri": "http://127.0.0.1:8123/callback"},
    )
    assert port.status_code == 200


# --- refresh, expiry, token endpoint errors ---------------------------------------------------------------------


def test_refresh_answers_without_refresh_token_and_the_old_one_keeps_working(
    client: httpx.Client, sandbox: SandboxServer
) -> None:
    tokens = exchange(client, authorize(client)["code"][0]).json()
    client.post("/sandbox/clock", json={"advanceSeconds": 3601}).raise_for_status()
    expired = httpx.get(f"{sandbox.url}/v4/customers", headers={"Authorization": f"Bearer {tokens['access_token']}"})
    assert expired.status_code == 401
    assert 'error="invalid_token"' in expired.headers["www-authenticate"]

    refreshed = client.post(
        "/v1/token", data={"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"], **WEB}
    )
    assert refreshed.status_code == 200, refreshed.text
    body = refreshed.json()
    assert "refresh_token" not in body
    assert set(body) == {"access_token", "token_type", "expires_in", "scope", "resource_owner_type"}
    assert "cus-ava" in customers_of(sandbox, body["access_token"])

    again = client.post(
        "/v1/token", json={"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"], **WEB}
    )
    assert again.status_code == 200


def test_device_tokens_refresh_with_the_public_client(client: httpx.Client) -> None:
    started = start_device(client)
    client.post("/sandbox/device/approve", json={"userCode": started["user_code"]}).raise_for_status()
    tokens = poll(client, started["device_code"]).json()
    refreshed = client.post(
        "/v1/token",
        data={"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"], "client_id": "pos-terminal"},
    )
    assert refreshed.status_code == 200, refreshed.text
    assert "refresh_token" not in refreshed.json()


@pytest.mark.parametrize(
    ("body", "status", "error"),
    [
        ({"grant_type": "password", **WEB}, 400, "unsupported_grant_type"),
        ({"client_id": "demo-web"}, 400, "invalid_request"),
        ({"grant_type": "refresh_token", **WEB}, 400, "invalid_request"),
        ({"grant_type": "refresh_token", "refresh_token": "nope", **WEB}, 400, "invalid_grant"),
        ({"grant_type": "authorization_code", "code": "nope", "redirect_uri": REDIRECT, **WEB}, 400, "invalid_grant"),
        ({"grant_type": "refresh_token", "refresh_token": "x", "client_id": "demo-web"}, 401, "invalid_client"),
    ],
)
def test_token_endpoint_errors_are_rfc_6749_json(
    client: httpx.Client, body: dict[str, str], status: int, error: str
) -> None:
    response = client.post("/v1/token", data=body)
    assert response.status_code == status
    assert response.headers["content-type"].startswith("application/json")
    assert response.json()["error"] == error
    assert response.json()["error_description"]


def test_token_endpoint_refuses_bodies_it_cannot_read(client: httpx.Client) -> None:
    garbage = client.post("/v1/token", content=b"{not json", headers={"Content-Type": "application/json"})
    assert garbage.json()["error"] == "invalid_request"
    xml = client.post("/v1/token", content=b"<x/>", headers={"Content-Type": "application/xml"})
    assert xml.json()["error"] == "invalid_request"


def test_client_credentials_may_come_by_http_basic(client: httpx.Client) -> None:
    tokens = exchange(client, authorize(client)["code"][0]).json()
    refreshed = client.post(
        "/v1/token",
        data={"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"]},
        auth=("demo-web", "demo-web-secret"),
    )
    assert refreshed.status_code == 200, refreshed.text


def test_minted_tokens_expire_on_the_sandbox_clock(client: httpx.Client, sandbox: SandboxServer) -> None:
    token = mint_token(client, expiresIn=60)
    assert customers_of(sandbox, token)
    client.post("/sandbox/clock", json={"advanceSeconds": 61}).raise_for_status()
    response = httpx.get(f"{sandbox.url}/v4/customers", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 401
