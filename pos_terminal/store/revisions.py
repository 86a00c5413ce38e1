"""The store database's schema revisions (Alembic, from the package's ``migrations`` folder; no ``alembic.ini``):
which one a database has, and how this version moves it to the newest."""

from __future__ import annotations

from enum import StrEnum
from functools import cache
from pathlib import Path

from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import Connection

_MIGRATIONS = Path(__file__).resolve().parent / "migrations"


class SchemaState(StrEnum):
    MISSING = "missing"  # never set up
    BEHIND = "behind"  # set up by an older pos-terminal: init_schema upgrades it
    CURRENT = "current"
    TOO_NEW = "too new"  # set up by a newer pos-terminal: this one must not touch it


def alembic_config(connection: Connection | None = None) -> Config:
    """Alembic's configuration for the store migrations, built in code; ``connection`` is the one env.py uses."""
    config = Config()
    config.set_main_option("script_location", str(_MIGRATIONS).replace("%", "%%"))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


@cache
def script_directory() -> ScriptDirectory:
    return ScriptDirectory.from_config(alembic_config())


def revision_state(conn: Connection) -> SchemaState:
    heads = MigrationContext.configure(conn).get_current_heads()
    if not heads:
        return SchemaState.MISSING
    scripts = script_directory()
    known = {script.revision for script in scripts.walk_revisions()}
    if any(head not in known for head in heads):
        return SchemaState.TOO_NEW
    return SchemaState.CURRENT if set(heads) == set(scripts.get_heads()) else SchemaState.BEHIND
