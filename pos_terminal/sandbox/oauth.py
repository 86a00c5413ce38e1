"""The OAuth wire every endpoint of the authorization service shares (RFC 6749, 8628, 7636).

How a request body is read (JSON or a form, text only), how a client proves who it is (HTTP Basic or the
body, never both), the ``{"error", "error_description"}`` answer, scopes, and the device flow's user codes.
"""

from __future__ import annotations

import base64
import json
import re
import secrets
import sqlite3
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import parse_qsl, unquote_plus

from fastapi import Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel

from pos_terminal.sandbox.security import KNOWN_SCOPES
from pos_terminal.sandbox.text import text_problem

DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"
# RFC 8628 §6.1: consonants only, no vowels (no words), no look-alikes
USER_CODE_ALPHABET = "BCDFGHJKLMNPQRSTVWXZ"
USER_CODE_LENGTH = 8
FORM = "application/x-www-form-urlencoded"
PKCE_VALUE = re.compile(r"[A-Za-z0-9\-._~]{43,128}")  # a code_verifier, and an S256 code_challenge (43)


class OAuthErrorBody(BaseModel):
    """RFC 6749 §5.2 error response."""

    error: str
    error_description: str | None = None


class OAuthError(Exception):
    def __init__(self, error: str, description: str, status: int = 400) -> None:
        super().__init__(description)
        self.error = error
        self.description = description
        self.status = status

    def response(self) -> JSONResponse:
        headers = {"Cache-Control": "no-store", "Pragma": "no-cache"}
        if self.status == 401:
            headers["WWW-Authenticate"] = 'Basic realm="sandbox"'
        return JSONResponse(
            {"error": self.error, "error_description": self.description}, status_code=self.status, headers=headers
        )


def body_doc(
    fields: Mapping[str, str], required: Sequence[str], enums: Mapping[str, Sequence[str]] | None = None
) -> dict[str, Any]:
    """A form or JSON body of string parameters; a parameter given is never empty (an empty one is missing)."""
    properties: dict[str, dict[str, Any]] = {
        name: {"type": "string", "minLength": 1, "description": text} for name, text in fields.items()
    }
    for name, values in (enums or {}).items():
        properties[name]["enum"] = list(values)
    schema = {"type": "object", "properties": properties, "required": list(required)}
    return {
        "requestBody": {"required": True, "content": {FORM: {"schema": schema}, "application/json": {"schema": schema}}}
    }


def page_form(*names: str) -> dict[str, Any]:
    """The OpenAPI ``requestBody`` of an HTML page's form: ``names``, each a text field (the pages check them)."""
    properties = {name: {"type": "string"} for name in names}
    return {"requestBody": {"content": {FORM: {"schema": {"type": "object", "properties": properties}}}}}


def oauth_errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    return {status: {"description": "RFC 6749 §5.2 error", "model": OAuthErrorBody} for status in statuses}


async def read_params(request: Request) -> dict[str, str]:
    """The body's parameters, JSON or form; anything else is ``invalid_request``."""
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    raw = await request.body()
    if content_type == "application/json":
        try:
            data = json.loads(raw or b"null")
        except ValueError:
            raise OAuthError("invalid_request", "The body is not valid JSON") from None
        if not isinstance(data, dict):
            raise OAuthError("invalid_request", "The body must be a JSON object")
        params: dict[str, str] = {}
        for key, value in data.items():
            if value is None:
                continue
            if not isinstance(value, str | int) or isinstance(value, bool):
                raise OAuthError("invalid_request", f"Parameter {key} must be a string")
            params[str(key)] = str(value)
        return _text_only(params)
    if content_type in (FORM, ""):
        try:
            pairs = parse_qsl(raw.decode("utf-8"), keep_blank_values=True, strict_parsing=False)
        except UnicodeDecodeError:
            raise OAuthError("invalid_request", "The form body is not UTF-8") from None
        params = {}
        for key, value in pairs:
            if key in params:
                raise OAuthError("invalid_request", f"Parameter {key} is repeated")
            params[key] = value
        return _text_only(params)
    raise OAuthError("invalid_request", f"Unsupported content type {content_type}; send JSON or a form")


def _text_only(params: dict[str, str]) -> dict[str, str]:
    """Parameters whose names and values are text (JSON can carry lone surrogates, a form control characters)."""
    for key, value in params.items():
        if text_problem(key) is not None:
            raise OAuthError("invalid_request", "A parameter name is not text")
        if (problem := text_problem(value)) is not None:
            raise OAuthError("invalid_request", f"Parameter {key} {problem}")
    return params


def same_secret(given: str, stored: str) -> bool:
    """Constant-time comparison of any two strings (``compare_digest`` takes ASCII strings only)."""
    return secrets.compare_digest(given.encode("utf-8", "surrogatepass"), stored.encode("utf-8", "surrogatepass"))


def need(params: Mapping[str, str], *names: str) -> None:
    missing = [name for name in names if not params.get(name)]
    if missing:
        raise OAuthError("invalid_request", f"Missing parameter: {', '.join(missing)}")


def client_credentials(request: Request, params: Mapping[str, str]) -> tuple[str | None, str | None]:
    """Client id and secret from the body, or from HTTP Basic, never both (RFC 6749 §2.3.1).

    In the Basic header both are form-urlencoded before base64, so ``demo%2Dweb`` is ``demo-web``.
    An empty secret is no secret.
    """
    header = request.headers.get("authorization", "")
    if header[:6].lower() == "basic ":
        if params.get("client_secret"):
            raise OAuthError("invalid_request", "Send the client's credentials one way: HTTP Basic or the body")
        try:
            decoded = base64.b64decode(header[6:].strip(), validate=True).decode("utf-8")
        except (ValueError, UnicodeDecodeError):
            raise OAuthError("invalid_client", "Malformed Basic credentials", 401) from None
        if ":" not in decoded:
            raise OAuthError("invalid_client", "Malformed Basic credentials", 401)
        raw_id, _, raw_secret = decoded.partition(":")
        client_id, secret = unquote_plus(raw_id), unquote_plus(raw_secret)
        if text_problem(client_id) is not None or text_problem(secret) is not None:
            raise OAuthError("invalid_client", "Malformed Basic credentials", 401)
        body_id = params.get("client_id")
        if body_id and body_id != client_id:
            raise OAuthError("invalid_request", "client_id in the body differs from the Basic credentials")
        return client_id, secret or None
    return params.get("client_id"), params.get("client_secret") or None


def authenticate_client(conn: sqlite3.Connection, client_id: str | None, secret: str | None) -> sqlite3.Row:
    """The client, authenticated: a confidential client proves its secret at every endpoint (RFC 6749 §3.2.1,
    RFC 8628 §3.4); a public client has no secret to send."""
    if not client_id:  # RFC 6749 §5.2: "no client authentication included" is invalid_client
        raise OAuthError("invalid_client", "No client_id and no client credentials", 401)
    row = conn.execute("SELECT * FROM clients WHERE client_id = ?", (client_id,)).fetchone()
    if row is None:
        raise OAuthError("invalid_client", "Unknown client", 401)
    stored = row["client_secret"]
    if stored is None:
        if secret is not None:
            raise OAuthError("invalid_client", "Client authentication failed: this public client has no secret", 401)
    elif secret is None:
        raise OAuthError("invalid_client", "Client authentication required: send the client secret", 401)
    elif not same_secret(secret, stored):
        raise OAuthError("invalid_client", "Client authentication failed", 401)
    client: sqlite3.Row = row
    return client


def scope_of(raw: str | None, default: str) -> str:
    scopes = (raw or default).split()
    unknown = [s for s in scopes if s not in KNOWN_SCOPES]
    if unknown or not scopes:
        raise OAuthError("invalid_scope", f"Unknown scope: {' '.join(unknown) or '(empty)'}")
    return " ".join(dict.fromkeys(scopes))


def public_base(request: Request) -> str:
    return str(request.base_url).rstrip("/")


def format_user_code(code: str) -> str:
    return f"{code[:4]}-{code[4:]}"


def normalize_user_code(text: str) -> str:
    return "".join(ch for ch in text.upper() if ch.isalnum())


def new_user_code(conn: sqlite3.Connection) -> str:
    while True:
        code = "".join(secrets.choice(USER_CODE_ALPHABET) for _ in range(USER_CODE_LENGTH))
        if conn.execute("SELECT 1 FROM device_codes WHERE user_code = ?", (code,)).fetchone() is None:
            return code
