"""Where the terminal signs in: the settings, the server's metadata (RFC 8414, then OpenID discovery),
or the published paths; and what it says when the authorization server answers with an error.

A standard server whose endpoints are ``/token`` and ``/device/auth`` could not be reached, and a
404 from a wrong path was "The service does not know that transaction".
"""

from __future__ import annotations

import socket

import httpx
import pytest

from pos_terminal.api.auth import AuthClient
from pos_terminal.api.discovery import EndpointChoice, metadata_urls
from pos_terminal.api.errors import (
    AccessDenied,
    ApiError,
    AuthEndpointNotFound,
    AuthMetadataInvalid,
    AuthServerRefused,
    InvalidClient,
    InvalidScope,
    NotFound,
    OAuthError,
    ServerError,
    ServiceUnreachable,
)
from pos_terminal.sandbox import SandboxServer
from tests.api.fake_service import Answer, FakeService

DEVICE_ANSWER = {
    "device_code": "dc",
    "user_code": "BCDF-GHJK",
    "verification_uri": "https://example/device",
    "expires_in": 600,
    "interval": 5,
}


def openid_metadata(issuer: str, **extra: str) -> Answer:
    return Answer.json(
        200,
        {
            "issuer": issuer,
            "token_endpoint": f"{issuer}/token",
            "device_authorization_endpoint": f"{issuer}/device/auth",
            **extra,
        },
    )


async def test_the_sandbox_is_found_through_rfc_8414_metadata(sandbox: SandboxServer, http: httpx.AsyncClient) -> None:
    auth = AuthClient(http, sandbox.url, "pos-terminal")
    endpoints = await auth.endpoints()
    assert endpoints.token == f"{sandbox.url}/v1/token"
    assert endpoints.device_authorization == f"{sandbox.url}/v1/device_authorization"
    assert endpoints.source == f"the metadata at {sandbox.url}/.well-known/oauth-authorization-server"
    started = await auth.start_device_authorization()
    assert started.user_code


async def test_a_server_with_openid_metadata_only_is_reached_at_its_own_paths(
    fake_service: FakeService, http: httpx.AsyncClient
) -> None:
    fake_service.routes["GET /.well-known/openid-configuration"] = openid_metadata(fake_service.url)
    fake_service.routes["POST /device/auth"] = Answer.json(200, DEVICE_ANSWER)
    auth = AuthClient(http, fake_service.url, "pos-terminal")

    started = await auth.start_device_authorization("posapi offline_access")

    assert started.device_code == "dc"
    asked = [f"{s.method} {s.path}" for s in fake_service.seen]
    assert asked == [
        "GET /.well-known/oauth-authorization-server",  # RFC 8414 first: 404 here
        "GET /.well-known/openid-configuration",
        "POST /device/auth",
    ]
    assert b"scope=posapi+offline_access" in fake_service.seen[-1].body
    await auth.start_device_authorization()
    assert len(fake_service.requests("GET", "/.well-known/openid-configuration")) == 1, "found once per client"


async def test_without_metadata_the_published_paths_are_used(
    fake_service: FakeService, http: httpx.AsyncClient
) -> None:
    fake_service.routes["GET /.well-known/openid-configuration"] = Answer.text(
        200, "<html>a portal</html>", "text/html"
    )
    fake_service.routes["POST /v1/device_authorization"] = Answer.json(200, DEVICE_ANSWER)
    auth = AuthClient(http, fake_service.url, "pos-terminal")
    await auth.start_device_authorization()
    assert (await auth.endpoints()).source == "the published paths"


async def test_metadata_nested_too_deep_to_read_is_no_metadata(
    fake_service: FakeService, http: httpx.AsyncClient
) -> None:
    """A document nested past what the parser can follow is unreadable metadata, not a crash: the published paths."""
    for path in ("/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"):
        fake_service.routes[f"GET {path}"] = Answer.text(200, "[" * 200_000 + "]" * 200_000, "application/json")
    fake_service.routes["POST /v1/device_authorization"] = Answer.json(200, DEVICE_ANSWER)
    auth = AuthClient(http, fake_service.url, "pos-terminal")
    await auth.start_device_authorization()
    assert (await auth.endpoints()).device_authorization == f"{fake_service.url}/v1/device_authorization"


async def test_endpoints_set_in_the_settings_win_and_skip_discovery(
    fake_service: FakeService, http: httpx.AsyncClient
) -> None:
    fake_service.routes["POST /oauth/device"] = Answer.json(200, DEVICE_ANSWER)
    choice = EndpointChoice(token=f"{fake_service.url}/oauth/token", device_authorization="/oauth/device")
    auth = AuthClient(http, fake_service.url, "pos-terminal", endpoints=choice)
    await auth.start_device_authorization()
    assert [s.path for s in fake_service.seen] == ["/oauth/device"], "no metadata asked for"
    assert (await auth.endpoints()).token == f"{fake_service.url}/oauth/token"


def test_metadata_of_an_issuer_with_a_path_is_asked_where_each_standard_puts_it() -> None:
    assert metadata_urls("https://auth.example/tenant/1/") == [
        "https://auth.example/.well-known/oauth-authorization-server/tenant/1",
        "https://auth.example/tenant/1/.well-known/openid-configuration",
    ]


async def test_metadata_of_another_issuer_is_not_used(fake_service: FakeService, http: httpx.AsyncClient) -> None:
    """RFC 8414 §3.3: metadata naming another issuer must not be used; the terminal says so."""
    fake_service.routes["GET /.well-known/oauth-authorization-server"] = openid_metadata("https://elsewhere.example")
    auth = AuthClient(http, fake_service.url, "pos-terminal")
    with pytest.raises(AuthMetadataInvalid) as refused:
        await auth.start_device_authorization()
    assert "https://elsewhere.example" in refused.value.sentence
    assert fake_service.url in refused.value.sentence


async def test_a_server_without_the_device_grant_says_so(fake_service: FakeService, http: httpx.AsyncClient) -> None:
    fake_service.routes["GET /.well-known/oauth-authorization-server"] = Answer.json(
        200, {"issuer": fake_service.url, "token_endpoint": f"{fake_service.url}/token"}
    )
    with pytest.raises(AuthEndpointNotFound) as refused:
        await AuthClient(http, fake_service.url, "pos-terminal").start_device_authorization()
    assert "does not offer sign-in with a code" in refused.value.sentence


# --- errors of the authorization server -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "kind", "words"),
    [
        (Answer(404), AuthEndpointNotFound, "has no sign-in address at {url}/v1/device_authorization (HTTP 404)"),
        (Answer.text(502, "<html><title>Bad gateway</title></html>", "text/html"), ServerError, "had a problem"),
        (Answer.text(429, "slow down"), ServerError, "is busy"),
        (Answer.text(403, "forbidden by the proxy"), AuthServerRefused, "refused the request (HTTP 403)"),
        (Answer.json(401, {"error": "invalid_client"}), InvalidClient, "({url}/v1/device_authorization)"),
        (Answer.json(400, {"error": "invalid_scope"}), InvalidScope, "scopes"),
        (Answer.json(400, {"error": "access_denied"}), AccessDenied, "denied"),
        (Answer.json(400, {"error": "temporarily_confused"}), OAuthError, "refused the sign-in (temporarily_confused)"),
    ],
)
async def test_errors_of_the_authorization_server_are_its_own_sentences(
    fake_service: FakeService, http: httpx.AsyncClient, answer: Answer, kind: type[ApiError], words: str
) -> None:
    fake_service.routes["POST /v1/device_authorization"] = answer
    auth = AuthClient(http, fake_service.url, "pos-terminal")
    with pytest.raises(kind) as failed:
        await auth.start_device_authorization()
    error = failed.value
    assert not isinstance(error, NotFound)
    assert words.format(url=fake_service.url) in str(error)
    assert "transaction" not in str(error)


async def test_an_authorization_server_that_cannot_be_reached_is_named(http: httpx.AsyncClient) -> None:
    with socket.socket() as spare:  # a port nobody listens on: bound, then let go
        spare.bind(("127.0.0.1", 0))
        port = spare.getsockname()[1]
    auth = AuthClient(http, f"http://127.0.0.1:{port}", "pos-terminal")
    with pytest.raises(ServiceUnreachable) as failed:
        await auth.start_device_authorization()
    assert f"The authorization server at http://127.0.0.1:{port}/.well-known" in failed.value.sentence
