"""Where the authorization server's endpoints are: the settings, its metadata, or the published paths.

For each endpoint, in order:

1. the address set for the region in the settings (absolute, or a path under the auth address);
2. the server's own metadata, when it publishes any: RFC 8414
   (``/.well-known/oauth-authorization-server``, inserted before the issuer's path), then
   OpenID Connect Discovery (``/.well-known/openid-configuration``, appended to it);
3. the published paths, ``/v1/token`` and ``/v1/device_authorization``.

Metadata whose ``issuer`` is not the auth address is not used (RFC 8414 §3.3): that is said in
one sentence rather than guessed around. A server without metadata (404, or anything that is
not a JSON object) falls back to the published paths.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx

from pos_terminal.api.answers import read_json
from pos_terminal.api.errors import ApiError, AuthMetadataInvalid, ServerError, ServiceTooSlow, ServiceUnreachable
from pos_terminal.api.transport import bounded_request, unanswered

log = logging.getLogger(__name__)

TOKEN_PATH = "/v1/token"  # noqa: S105 (a path, not a secret)
DEVICE_AUTHORIZATION_PATH = "/v1/device_authorization"
OAUTH_METADATA = "/.well-known/oauth-authorization-server"
OPENID_METADATA = "/.well-known/openid-configuration"
MAX_METADATA_BYTES = 1024 * 1024


@dataclass(frozen=True)
class EndpointChoice:
    """What the settings say about one region's endpoints: empty means "find out"."""

    token: str = ""
    device_authorization: str = ""
    discovery: bool = True

    @property
    def complete(self) -> bool:
        return bool(self.token and self.device_authorization)


@dataclass(frozen=True)
class Endpoints:
    """The addresses the terminal signs in at, and where they came from (for ``status`` and the log)."""

    token: str
    device_authorization: str | None
    source: str


def resolve(auth_url: str, address: str) -> str:
    """``address`` as an absolute URL: a path is taken under ``auth_url``."""
    return f"{auth_url.rstrip('/')}{address}" if address.startswith("/") else address


def metadata_urls(issuer: str) -> list[str]:
    """Where metadata of ``issuer`` may be, in the order to ask (RFC 8414 §3.1, OpenID Discovery §4)."""
    parts = urlsplit(issuer.rstrip("/"))
    path = parts.path.rstrip("/")
    return [
        urlunsplit(parts._replace(path=f"{OAUTH_METADATA}{path}", query="", fragment="")),
        urlunsplit(parts._replace(path=f"{path}{OPENID_METADATA}", query="", fragment="")),
    ]


def _same_issuer(one: str, other: str) -> bool:
    return one.rstrip("/") == other.rstrip("/")


def _address(metadata: dict[str, Any], name: str) -> str | None:
    value = metadata.get(name)
    if isinstance(value, str) and urlsplit(value).scheme in ("http", "https") and urlsplit(value).netloc:
        return value
    return None


async def fetch_metadata(http: httpx.AsyncClient, auth_url: str) -> tuple[str, dict[str, Any]] | None:
    """The first metadata document the server publishes, with its address; None when it publishes none."""
    for url in metadata_urls(auth_url):
        try:
            response = await bounded_request(
                http, "GET", url, headers={"Accept": "application/json"}, max_bytes=MAX_METADATA_BYTES
            )
        except httpx.TransportError as exc:
            raise unanswered_at(exc, url) from exc
        if response.status_code >= 500:
            raise ServerError(
                f"The authorization server at {url} had a problem describing itself (HTTP {response.status_code}).",
                status=response.status_code,
            )
        if not response.is_success:
            continue
        try:
            document = read_json(response.content)  # nesting too deep is a ValueError too, not a crash
        except ValueError:
            continue
        if isinstance(document, dict):
            return url, document
    return None


async def discover(http: httpx.AsyncClient, auth_url: str, choice: EndpointChoice) -> Endpoints:
    """The endpoints to use for a region whose auth address is ``auth_url``."""
    token = resolve(auth_url, choice.token) if choice.token else None
    device = resolve(auth_url, choice.device_authorization) if choice.device_authorization else None
    if choice.complete or not choice.discovery:
        return Endpoints(
            token or resolve(auth_url, TOKEN_PATH),
            device or resolve(auth_url, DEVICE_AUTHORIZATION_PATH),
            "the settings" if choice.complete else "the settings and the published paths",
        )
    found = await fetch_metadata(http, auth_url)
    if found is None:
        log.info("no authorization server metadata at %s; using the published paths", auth_url)
        return Endpoints(
            token or resolve(auth_url, TOKEN_PATH),
            device or resolve(auth_url, DEVICE_AUTHORIZATION_PATH),
            "the published paths" if token is None and device is None else "the settings and the published paths",
        )
    url, metadata = found
    issuer = metadata.get("issuer")
    if not isinstance(issuer, str) or not _same_issuer(issuer, auth_url):
        raise AuthMetadataInvalid(
            f"The authorization server's metadata at {url} names another issuer ({str(issuer)[:200]}), not {auth_url}.",
        )
    discovered_token = _address(metadata, "token_endpoint")
    if token is None and discovered_token is None:
        raise AuthMetadataInvalid(f"The authorization server's metadata at {url} names no token endpoint.")
    log.info("authorization server endpoints from %s", url)
    return Endpoints(
        token or str(discovered_token),
        device or _address(metadata, "device_authorization_endpoint"),
        f"the metadata at {url}",
    )


def unanswered_at(exc: httpx.TransportError, url: str) -> ApiError:
    """The sentence for an exchange with the authorization server at ``url`` that got no usable answer."""
    error = unanswered(exc)
    if isinstance(error, ServiceTooSlow):
        return ServiceTooSlow(f"The authorization server at {url} did not answer in time.", detail=error.detail)
    if isinstance(error, ServiceUnreachable):
        return ServiceUnreachable(f"The authorization server at {url} cannot be reached.", detail=error.detail)
    return type(error)(f"The authorization server at {url} sent an answer too large to read.", detail=error.detail)
