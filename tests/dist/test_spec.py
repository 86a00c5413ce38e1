"""What the PyInstaller spec puts in the bundle, read without building it (make dist-test builds and drives it).

The spec runs with PyInstaller's build functions standing in as recorders and its module collector walking the
tree, so the test needs neither PyInstaller nor a build: it checks what the spec asks for.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "packaging" / "pos-terminal.spec"
SANDBOX_LIBRARIES = {"fastapi", "starlette", "uvicorn", "jinja2", "multipart", "python_multipart"}


def collect_submodules(package: str, filter: Callable[[str], bool] = lambda _: True) -> list[str]:
    """PyInstaller's: the package and its submodules that ``filter`` keeps (a package it drops, with its own)."""
    found = [package] if filter(package) else []
    if not found:
        return found
    root = importlib.import_module(package)
    for module in pkgutil.iter_modules(getattr(root, "__path__", []), f"{package}."):
        if module.ispkg:
            found += collect_submodules(module.name, filter)
        elif filter(module.name):
            found.append(module.name)
    return found


@pytest.fixture(scope="module")
def analysis(monkeypatch_module: pytest.MonkeyPatch) -> dict[str, Any]:
    hooks = types.ModuleType("PyInstaller.utils.hooks")
    hooks.collect_submodules = collect_submodules  # type: ignore[attr-defined]
    hooks.collect_data_files = lambda package: [(f"<{package} data>", package)]  # type: ignore[attr-defined]
    hooks.copy_metadata = lambda distribution: [(f"<{distribution} metadata>", distribution)]  # type: ignore[attr-defined]
    for name in ("PyInstaller", "PyInstaller.utils"):
        monkeypatch_module.setitem(sys.modules, name, types.ModuleType(name))
    monkeypatch_module.setitem(sys.modules, "PyInstaller.utils.hooks", hooks)
    recorded: dict[str, Any] = {}

    def build_step(name: str) -> Callable[..., Any]:
        def step(*args: Any, **kwargs: Any) -> types.SimpleNamespace:
            recorded[name] = kwargs
            return types.SimpleNamespace(scripts=[], pure=[], binaries=[], datas=[])

        return step

    names = {name: build_step(name) for name in ("Analysis", "PYZ", "EXE", "COLLECT")}
    exec(compile(SPEC.read_text(), str(SPEC), "exec"), {"SPECPATH": str(SPEC.parent), **names})  # noqa: S102
    return dict(recorded["Analysis"])


@pytest.fixture(scope="module")
def monkeypatch_module() -> Any:
    with pytest.MonkeyPatch.context() as patch:
        yield patch


def test_the_bundle_leaves_the_sandbox_out(analysis: dict[str, Any]) -> None:
    sandbox = {name for name in analysis["hiddenimports"] if name.startswith("pos_terminal.sandbox")}
    # the package and the arguments of `pos-terminal sandbox`, which then says the sandbox is not installed
    assert sandbox == {"pos_terminal.sandbox", "pos_terminal.sandbox.cli"}
    assert set(analysis["excludes"]) >= SANDBOX_LIBRARIES
    assert not any(name.partition(".")[0] in SANDBOX_LIBRARIES for name in analysis["hiddenimports"])
    assert not [target for _, target in analysis["datas"] if target.startswith("pos_terminal/sandbox")]
    assert not {"fastapi", "uvicorn", "jinja2"} & {target for _, target in analysis["datas"]}


def test_the_bundle_has_the_terminal_loaded_on_demand(analysis: dict[str, Any]) -> None:
    hidden = set(analysis["hiddenimports"])
    assert {
        "pos_terminal.cli",
        "pos_terminal.embedded",
        "pos_terminal.ui.main_window",
        "pos_terminal.reports.worker",
    } <= hidden
    targets = {target for _, target in analysis["datas"]}
    assert {"pos_terminal/resources", "pos_terminal/store/migrations", "pos-terminal", "keyring"} <= targets
