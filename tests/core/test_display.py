"""Before Qt can abort the process, the window says in one sentence why it cannot open."""

from __future__ import annotations

import sys

import pytest

from pos_terminal.app import display_problem

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the check is for Linux displays")


def test_no_screen_is_one_sentence() -> None:
    assert display_problem({}) == (
        "There is no screen to open the window on. Run it on a desktop, or set QT_QPA_PLATFORM=offscreen."
    )


def test_offscreen_and_wayland_need_no_check() -> None:
    assert display_problem({"QT_QPA_PLATFORM": "offscreen"}) is None
    assert display_problem({"WAYLAND_DISPLAY": "wayland-0"}) is None


def test_an_x11_screen_is_checked_for_the_libraries_qts_plugin_needs() -> None:
    """The plugin is loaded as Qt would load it; only when that fails are the missing libraries looked up and
    named (running ldd on every start cost a counter PC's window 10 ms before its first paint)."""
    import ctypes
    from pathlib import Path

    import PySide6

    plugin = Path(PySide6.__file__).parent / "Qt" / "plugins" / "platforms" / "libqxcb.so"
    try:
        ctypes.CDLL(str(plugin))
        loads = True
    except OSError:
        loads = False

    said = display_problem({"DISPLAY": ":99"})

    assert (said is None) == loads, said
    if said is not None:
        assert "this system lacks" in said and "sudo apt install" in said
