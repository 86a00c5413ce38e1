"""Regions: the service's base addresses, from a shipped file the user may copy and edit.

``sandbox`` is not in the file: it is the embedded sandbox, whose address is
known only once it has started (:meth:`Region.for_embedded_sandbox`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from pos_terminal import assets
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


def _url(entry: dict[str, Any], key: str, where: str) -> str:
    value = entry.get(key)
    if not isinstance(value, str) or urlsplit(value).scheme not in ("http", "https") or not urlsplit(value).netloc:
        raise ConfigError(f"The region file {where} has no valid “{key}”.")
    return value.rstrip("/")


def parse_regions(text: str, where: str) -> dict[str, Region]:
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ConfigError(f"The region file {where} is not valid JSON (line {getattr(exc, 'lineno', '?')}).") from None
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
        regions[key] = Region(
            name=str(entry.get("name") or key),
            auth_url=_url(entry, "authUrl", spot),
            pos_url=_url(entry, "posUrl", spot),
            payments_url=_url(entry, "paymentsUrl", spot),
            production=bool(entry.get("production", True)),
        )
    return regions


def shipped_regions_text() -> str:
    return assets.read_text("regions.json")


def load_regions(path: Path | None = None) -> dict[str, Region]:
    """The shipped regions, with those of ``path`` (the user's edited copy) added or replacing them."""
    regions = parse_regions(shipped_regions_text(), "shipped with the terminal")
    if path is not None:
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise ConfigError(f"The region file {path} cannot be read ({exc.strerror}).") from None
        regions.update(parse_regions(text, str(path)))
    return regions
