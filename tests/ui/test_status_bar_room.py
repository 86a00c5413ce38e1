"""The status bar's parts never run into each other (issue 51: at 1024 px "Store offline since 22:09 · 10 changes
waiting" left about 20 px before "Thomas Becker · shift 1"; a longer name or a three-digit count collided). When room
is short a part says less, and shortened it keeps its whole text in its tool tip and accessible description."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest

from pos_terminal.app import AppHost
from pos_terminal.services.store_sync import StoreStatus
from pos_terminal.ui.main_window import MainWindow
from pos_terminal.ui.widgets import ElidedLabel
from tests.ui.conftest import finish, screenshot, signed_in_window
from tests.ui.layout import clipped

from PySide6.QtCore import QPoint, QRect
from PySide6.QtWidgets import QApplication, QWidget

LONG_NAME = "Maximiliane Wolfeschlegelstein-Hausenberger · shift 12"


def collisions(bar: QWidget) -> list[str]:
    """Parts of the bar that overlap or leave it, and parts shortened without their whole text at hand."""
    parts = [w for w in bar.findChildren(QWidget) if w.parentWidget() is not None and w.isVisible() and w.width()]
    parts = [w for w in parts if w.parentWidget() is bar or w.parentWidget().parentWidget() is bar]
    places = {w: QRect(w.mapTo(bar, QPoint(0, 0)), w.size()) for w in parts}
    found = []
    for a, b in itertools.combinations(parts, 2):
        if places[a].intersects(places[b]) and not (a.isAncestorOf(b) or b.isAncestorOf(a)):
            found.append(f"{a.accessibleName()!r} and {b.accessibleName()!r} overlap")
    for part, place in places.items():
        if not bar.rect().contains(place):
            found.append(f"{part.accessibleName()!r} lies outside the bar: {place}")
        shortened = isinstance(part, ElidedLabel) and part.shown_text() != part.text()
        if shortened and (part.text() not in part.toolTip() or part.accessibleDescription() != part.text()):
            found.append(f"{part.accessibleName()!r} is shortened without its whole text in tip and description")
    return found


@pytest.mark.parametrize("size", [(1024, 768), (1280, 800), (1920, 1080)])
async def test_the_status_bar_parts_never_collide(
    host: AppHost,
    make_window: Callable[[AppHost], MainWindow],
    client: httpx.Client,
    tmp_path: Path,
    size: tuple[int, int],
) -> None:
    window = await signed_in_window(host, make_window, client)
    window.resize(*size)
    window.show()
    bar = window.status
    since = datetime(2026, 12, 7, 21, 9, tzinfo=UTC)
    # the bar (the service has nothing waiting), then a long name with three and four digits everywhere
    for till, waiting, pending in (("Thomas Becker · shift 1", 10, 0), (LONG_NAME, 123, 123), (LONG_NAME, 4567, 4567)):
        bar.show_till(till)
        bar.show_store(
            StoreStatus(linked=True, address="postgresql://store.local/shop", offline_since=since, waiting=waiting)
        )
        bar.show_pending(pending)
        QApplication.processEvents()
        assert collisions(bar) == [], f"{till!r}, {waiting} waiting, at {size}"
        assert clipped(window, bar) == [], f"{till!r}, {waiting} waiting, at {size}"
        assert bar.till.shown_text().startswith(till[:8]), bar.till.shown_text()
        if till != LONG_NAME:  # an everyday name and count fit whole, the store's part said shorter if need be
            assert bar.till.shown_text() == till and bar.store.shown_text().startswith("Store offline"), (
                size,
                bar.till.shown_text(),
                bar.store.shown_text(),
                bar.pending.shown_text(),
            )
    screenshot(window, f"status-bar-crowded-{size[0]}x{size[1]}", tmp_path)
    await finish(window, host)
