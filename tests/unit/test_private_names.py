"""No module of pos_terminal imports a private name (``_name``, or a module ``_name``) from another module.

Ruff's PLC2701 checks this between packages but lets a package import its own private names, so it would pass
``from pos_terminal.store.database import _SCHEMA_LOCK`` in ``store/roles.py``; this test holds every module of
pos_terminal to the rule: what two modules share is public in one of them.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pos_terminal

PACKAGE = Path(pos_terminal.__file__).parent


def private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def private_imports(source: str) -> list[str]:
    """Each private name ``source`` imports, as ``line: what``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            module = "." * node.level + (node.module or "")
            if any(private(part) for part in (node.module or "").split(".")):
                found.append(f"{node.lineno}: from {module} import …")
            found += [f"{node.lineno}: {alias.name} from {module}" for alias in node.names if private(alias.name)]
        elif isinstance(node, ast.Import):
            found += [
                f"{node.lineno}: import {alias.name}"
                for alias in node.names
                if any(map(private, alias.name.split(".")))
            ]
    return found


def test_the_check_finds_a_private_name_however_it_is_imported() -> None:
    source = (
        "from pos_terminal.store.database import Backend, _SCHEMA_LOCK\n"
        "from pos_terminal.reports import _layout as L\n"
        "from ._rows import Cells\n"
        "import pos_terminal._hidden\n"
        "from pos_terminal.journal.journal import Journal, __all__\n"
    )
    assert private_imports(source) == [
        "1: _SCHEMA_LOCK from pos_terminal.store.database",
        "2: _layout from pos_terminal.reports",
        "3: from ._rows import …",
        "4: import pos_terminal._hidden",
    ]


def test_no_module_imports_a_private_name_from_another() -> None:
    found = [
        f"{path.relative_to(PACKAGE.parent)}:{hit}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for hit in private_imports(path.read_text(encoding="utf-8"))
    ]
    assert found == [], "a private name crosses a module boundary; make it public where it is defined"
