"""Regions: the service's base addresses, from a shipped file the user may copy and edit.

``sandbox`` is not in the file: it is the embedded sandbox, whose address is
known only once it has started (:meth:`Region.for_embedded_sandbox`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from pos_terminal import assets
from pos_terminal.domain.decode import MAX_BYTES, decode_json
from pos_terminal.errors import ConfigError

EMBEDDED = "sandbox"


@dataclass(frozen=True)
class Region:
    name: str
    auth_url: str
    pos_url: str
    payments_url: str
    production: bool

    @classmethod
    def for_embedded_sandbox(cls, root: str) -> Region:
        root = root.rstrip("/")
        return cls("Embedded sandbox", root, f"{root}/v4", root, production=False)


def address_problem(url: str) -> str | None:
    """Why ``url`` cannot be a service's base address, as the end of a sentence ("… has no host"), or None."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 (reading it is the check: out of range or not a number raises)
    except ValueError:
        return "is not a valid web address"
    if parts.scheme not in ("http", "https"):
        return "does not start with http:// or https://"
    if not parts.hostname:
        return "has no host"
    return None


def _url(entry: dict[str, Any], key: str, where: str) -> str:
    value = entry.get(key)
    if not isinstance(value, str) or address_problem(value) is not None:
        raise ConfigError(f"The region file {where} has no valid “{key}”.")
    return value.rstrip("/")


def parse_regions(raw: bytes | str, where: str) -> dict[str, Region]:
    data = decode_json(raw, f"The region file {where}", ConfigError)
    entries = data.get("regions") if isinstance(data, dict) else None
    if not isinstance(entries, dict):
        raise ConfigError(f"The region file {where} has no “regions” object.")
    regions: dict[str, Region] = {}
    for key, entry in entries.items():
        if key == EMBEDDED:
            raise ConfigError(f"The region file {where} may not redefine “{EMBEDDED}”, the embedded sandbox.")
        if not isinstance(entry, dict):
            raise ConfigError(f"The region “{key}” in {where} is not an object.")
        spot = f"{where} (region “{key}”)"
        name, production = entry.get("name") or key, entry.get("production", True)
        if not isinstance(name, str) or not isinstance(production, bool):
            raise ConfigError(f"The region “{key}” in {where} needs a text “name” and a true or false “production”.")
        regions[key] = Region(
            name=name,
            auth_url=_url(entry, "authUrl", spot),
            pos_url=_url(entry, "posUrl", spot),
            payments_url=_url(entry, "paymentsUrl", spot),
            production=production,
        )
    return regions


def shipped_regions_text() -> str:
    return assets.read_text("regions.json")


def load_regions(path: Path | None = None) -> dict[str, Region]:
    """The shipped regions, with those of ``path`` (the user's edited copy) added or replacing them."""
    regions = parse_regions(shipped_regions_text(), "shipped with the terminal")
    if path is not None:
        try:
            with path.open("rb") as handle:
                raw = handle.read(MAX_BYTES + 1)
        except OSError as exc:
            raise ConfigError(f"The region file {path} cannot be read ({exc.strerror}).") from None
        regions.update(parse_regions(raw, str(path)))
    return regions
