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
