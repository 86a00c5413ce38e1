"""The POS API's paths in one table (contract section 1), overridable from the settings."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from urllib.parse import quote

from pos_terminal.errors import ConfigError


@dataclass(frozen=True)
class Routes:
    """Paths relative to the POS base address; ``{transaction_id}`` is filled in per call."""

    customers: str = "/customers"
    transactions: str = "/transactions"
    transaction: str = "/transactions/{transaction_id}"
    summary: str = "/summary"

    def with_overrides(self, overrides: Mapping[str, str]) -> Routes:
        """These routes with some paths replaced, e.g. ``{"summary": "/reports/summary"}``."""
        known = {f.name for f in fields(self)}
        unknown = sorted(set(overrides) - known)
        if unknown:
            raise ConfigError(
                f"The settings name unknown routes: {', '.join(unknown)}.",
                hint=f"Known routes: {', '.join(sorted(known))}.",
            )
        for name, path in overrides.items():
            if not path.startswith("/"):
                raise ConfigError(f"The route “{name}” must start with a slash, not “{path}”.")
        if "transaction" in overrides and "{transaction_id}" not in overrides["transaction"]:
            raise ConfigError("The route “transaction” must contain {transaction_id}.")
        return replace(self, **dict(overrides))

    def transaction_path(self, transaction_id: str) -> str:
        return self.transaction.replace("{transaction_id}", quote(transaction_id, safe=""))
