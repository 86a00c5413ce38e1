"""A customer named in a script the system has no font for is drawn, not shown as empty boxes.

The sandbox's demo customer 雷 李 showed as two boxes in the customers' list and on the check on a machine without
Chinese, Japanese or Korean fonts (this one, and Debian without fonts-noto-cjk), while the PDFs drew the name with
the font they embed. On a system with its own fonts the test holds with them.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import httpx

from pos_terminal.app import AppHost
from pos_terminal.ui.main_window import MainWindow
from pos_terminal.ui.script_fonts import missing_writing_systems
from tests.ui.conftest import screenshot, signed_in_window, until

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QTextLayout

NAMES = ("雷 李", "さくら", "김민준")  # Chinese, Japanese, Korean


def drawn(text: str, font: QFont) -> bool:
    """Whether Qt lays out every character of ``text`` in ``font``, its fallbacks included, with a glyph of its own:
    glyph 0 is the font's empty box."""
    layout = QTextLayout(text, font)
    layout.beginLayout()
    layout.createLine()
    layout.endLayout()
    glyphs = [glyph for run in layout.glyphRuns() for glyph in run.glyphIndexes()]
    return len(glyphs) == len(text) and 0 not in glyphs


async def test_names_in_every_script_the_pdfs_draw_are_drawn_once_the_till_is_ready(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client, tmp_path: Path
) -> None:
    window = await signed_in_window(host, make_window, client)
    customers = window.cashier.customers
    row = customers.model.row_of("cus-li")
    assert row is not None, "the sandbox's demo customer 雷 李 is checked in"
    name = customers.model.index(row, 0).data(Qt.ItemDataRole.DisplayRole)
    assert name == "李雷", "family name first, as Chinese is written"
    await until(lambda: not missing_writing_systems(), what="a font for every writing system the PDFs draw")
    assert drawn(name, customers.table.font()), f"{name} is drawn in the customers' list"
    for text in NAMES:
        assert drawn(text, window.font()), f"{text} is drawn"

    customers.choose_row(row)
    ticket = window.cashier.ticket.customer_text
    await until(lambda: "雷" in ticket.text(), what="the customer on the check")
    assert drawn(ticket.text(), ticket.font()), "the check's heading draws the name"
    for width, height in ((1024, 768), (1920, 1080)):
        window.resize(width, height)
        screenshot(window, f"customer-in-chinese-{width}x{height}", tmp_path)
