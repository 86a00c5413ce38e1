"""Typed settings in one TOML file, with a schema version and ordered upgrades.

Upgrades are functions registered by :func:`upgrade` for the version they
upgrade *from*; loading applies them in order, so a file written by any older
release reads as the current schema. A bad file is a :class:`ConfigError` with
one sentence, never a traceback, and never silently replaced.
"""

from __future__ import annotations

import logging
import os
import tempfile
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

import tomli_w
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from pos_terminal.domain.decode import MAX_BYTES, decode_toml
from pos_terminal.domain.lifecycle import TxState
from pos_terminal.domain.money import MoneyFormat
from pos_terminal.errors import ConfigError, UserError

SCHEMA_VERSION = 1
log = logging.getLogger(__name__)

Upgrade = Callable[[dict[str, Any]], dict[str, Any]]
_UPGRADES: dict[int, Upgrade] = {}


def upgrade(from_version: int) -> Callable[[Upgrade], Upgrade]:
    def register(function: Upgrade) -> Upgrade:
        _UPGRADES[from_version] = function
        return function

    return register


class CustomUrls(BaseModel):
    model_config = ConfigDict(extra="forbid")

    auth_url: str = ""
    pos_url: str = ""
    payments_url: str = ""


DEFAULT_SCOPE = "posapi"


class RegionAuth(BaseModel):
    """How the terminal signs in at one region's authorization server (``[auth.REGION]`` in the file).

    An endpoint left empty comes from the server's metadata (RFC 8414, then OpenID discovery) when
    it publishes any, else from the published paths (``/v1/token``, ``/v1/device_authorization``).
    An endpoint given is an absolute address or a path under the region's auth address.
    """

    model_config = ConfigDict(extra="forbid")

    scope: str = Field(default=DEFAULT_SCOPE, min_length=1, max_length=512)
    token_endpoint: str = Field(default="", max_length=2048)
    device_authorization_endpoint: str = Field(default="", max_length=2048)
    discovery: bool = True

    @field_validator("scope")
    @classmethod
    def _scope_tokens(cls, value: str) -> str:
        # RFC 6749 §3.3: space-separated tokens of printable ASCII except " and \
        tokens = value.split()
        if not tokens or any(not ch.isascii() or not ch.isprintable() or ch in '"\\' for t in tokens for ch in t):
            raise ValueError('scopes are words of printable ASCII (no " or \\), separated by spaces')
        return " ".join(tokens)

    @field_validator("token_endpoint", "device_authorization_endpoint")
    @classmethod
    def _endpoint(cls, value: str) -> str:
        value = value.strip()
        if value and not value.startswith("/"):
            parts = urlsplit(value)
            if parts.scheme not in ("http", "https") or not parts.netloc:
                raise ValueError("give an address like https://host/token, or a path like /oauth/token")
        return value


class DeviceSettings(BaseModel):
    """The counter's hardware. By default there is none: no receipt printer, no drawer, no customer display;
    a barcode scanner needs no setting (it types like a keyboard), these only tell its scans from typing."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    # An ESC/POS printer: tcp://HOST[:9100], usb://VENDOR:PRODUCT or serial:///dev/ttyUSB0?baudrate=19200.
    receipt_printer: str = ""
    printer_profile: str = "default"  # a python-escpos profile (TM-T20II, TM-T88V ...): code pages and columns
    print_receipts: bool = True  # print the receipt of every charge completed here
    cash_drawer: bool = False  # a cash drawer hangs on the receipt printer
    scanner_prefix: str = Field(default="", max_length=8)  # what the scanner sends before a code, if set up to
    scanner_suffix: Literal["enter", "tab"] = "enter"  # the key it ends a code with
    scanner_gap_ms: int = Field(default=50, ge=5, le=1000)  # the longest pause between a scan's keys
    scanner_min_length: int = Field(default=6, ge=3, le=64)
    customer_display: bool = False  # a second window, for a screen facing the customer
    customer_display_screen: int = Field(default=-1, ge=-1, le=15)  # -1: the last screen the system has


class Settings(BaseModel):
    """What the user can set. Defaults describe a fresh machine: the embedded sandbox."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    schema_version: int = SCHEMA_VERSION
    region: str = "sandbox"
    custom_urls: CustomUrls = Field(default_factory=CustomUrls)
    # empty until the till is set up: no command or window guesses one (see :func:`set_up_till`)
    terminal_id: str = Field(default="", max_length=64)
    # this profile's install identity, made once: a store tells the same till joining again from another one
    # given the same terminal id by it (docs/store.md)
    install_id: str = Field(default_factory=lambda: str(uuid.uuid4()), min_length=1, max_length=64)
    locale: str = "en_AU"
    currency: str = Field(default="AUD", min_length=3, max_length=3)
    client_id: str = "pos-terminal"
    method_override: bool = False
    routes: dict[str, str] = Field(default_factory=dict)
    # a deployment's own spellings of the transaction states, beside the spec's: {"settled": "complete"}
    states: dict[str, str] = Field(default_factory=dict)
    # per region key ("global", "custom", "sandbox"; "service" for --service URL): scopes and endpoints
    auth: dict[str, RegionAuth] = Field(default_factory=dict)
    allow_insecure_token_file: bool = False
    legacy_api_token: bool = False
    printer: str | None = None
    catalog_file: str | None = None
    auto_cancel_hint_seconds: int = Field(default=300, ge=1, le=86_400)  # a day, as the settings view allows
    request_timeout_seconds: float = Field(default=15.0, gt=0, le=300)
    # a discount above this share of the items needs a manager's approval
    discount_approval_percent: int = Field(default=10, ge=0, le=100)
    # the till locks after this long without a key or a click (0: never)
    idle_lock_seconds: int = Field(default=300, ge=0, le=86_400)
    devices: DeviceSettings = Field(default_factory=DeviceSettings)

    @field_validator("currency")
    @classmethod
    def _upper(cls, value: str) -> str:
        return value.upper()

    @field_validator("states")
    @classmethod
    def _known_states(cls, value: dict[str, str]) -> dict[str, str]:
        known = [str(state) for state in TxState]
        spellings = {}
        for spelling, state in value.items():
            if (meant := state.strip().lower()) not in known:
                raise ValueError(f"“{state}” is none of the states ({', '.join(known)})")
            spellings[spelling] = meant
        return spellings

    def auth_for(self, region: str) -> RegionAuth:
        """The sign-in settings of ``region``: its own table, else the defaults."""
        return self.auth.get(region) or RegionAuth()


def with_changes(settings: Settings, **changes: Any) -> Settings:
    """``settings`` with ``changes`` applied and validated (``model_copy`` would skip the checks)."""
    try:
        return Settings.model_validate({**settings.model_dump(), **changes})
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "a setting"
        raise ConfigError(
            f"The setting “{where}” is invalid: {first['msg'].removeprefix('Value error, ')}.",
            hint="Correct it and try again.",
        ) from exc


def basic_choices(terminal_id: str, locale: str, currency: str) -> dict[str, str]:
    """What a person typed for terminal id, locale and currency, checked; one sentence when wrong."""
    terminal_id, locale, currency = terminal_id.strip(), locale.strip(), currency.strip().upper()
    if not terminal_id:
        raise ConfigError("The terminal id is empty.", hint="Give this terminal a short name, like LANE-1.")
    MoneyFormat(locale, currency)  # says which of the two is unknown
    return {"terminal_id": terminal_id, "locale": locale, "currency": currency}


class NotSetUp(UserError):
    """A command that works as this till, run on a profile that was never set up."""

    sentence = (
        "This till is not set up yet: “pos-terminal setup --terminal ID --region REGION” sets it up "
        "(or --service URL for a service of your own), as the window's first start does."
    )


def set_up_till(settings: Settings, existed: bool) -> Settings:
    """``settings`` when they are a till's that was set up (a file with a terminal id); else :class:`NotSetUp`."""
    if not existed or not settings.terminal_id.strip():
        raise NotSetUp()
    return settings


def load_settings(path: Path) -> tuple[Settings, bool]:
    """The settings in ``path`` and whether they existed (False: first launch, defaults)."""
    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_BYTES + 1)
    except FileNotFoundError:
        return Settings(), False
    except OSError as exc:
        raise ConfigError(f"The settings file {path} cannot be read ({exc.strerror}).") from exc
    data = decode_toml(raw, f"The settings file {path}", ConfigError)
    version = data.get("schema_version", 1)
    if not isinstance(version, int) or version < 1:
        raise ConfigError(f"The settings file {path} has no valid schema_version.")
    if version > SCHEMA_VERSION:
        raise ConfigError(f"The settings file {path} was written by a newer version of pos-terminal.")
    while version < SCHEMA_VERSION:
        data = _UPGRADES[version](data)
        version += 1
    data["schema_version"] = SCHEMA_VERSION
    try:
        settings = Settings.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "the file"
        raise ConfigError(f"The setting “{where}” in {path} is invalid: {first['msg']}.") from exc
    if "install_id" not in data:  # a profile set up before install identities: its own, kept from its first start
        try:
            save_settings(path, settings)
        except OSError as exc:
            log.warning("the install identity of %s cannot be kept (%s)", path, exc.strerror)
    return settings, True


def save_settings(path: Path, settings: Settings) -> None:
    """Write atomically: a crash leaves either the old file or the new one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    data = settings.model_dump(mode="json", exclude_none=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".config-", suffix=".toml")
    try:
        with os.fdopen(fd, "wb") as handle:
            tomli_w.dump(data, handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
