"""A refused PIN says why without moving the till page under the cashier's finger: the names, the PIN field and
its button stay where they were, at each window size a counter uses, through a wrong PIN, a lockout and the
next person."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from pos_terminal.app import AppHost
from pos_terminal.domain.people import Role
from pos_terminal.ui.main_window import MainWindow, Page
from pos_terminal.ui.till_view import TillMode, TillView
from tests.ui.conftest import finish, screenshot, signed_in_window, until

from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QWidget

CASHIER, CASHIER_PIN = "Carla Cashier", "480617293551"
SIZES = ((1024, 768), (1280, 800), (1920, 1080))


def where(widget: QWidget, window: MainWindow) -> QRect:
    return QRect(widget.mapTo(window, QPoint(0, 0)), widget.size())


def places(till: TillView, window: MainWindow) -> dict[str, QRect]:
    QApplication.processEvents()
    shown = {f"name {b.text()}": where(b, window) for b in till.person_buttons if b.isVisible()}
    return {**shown, "PIN": where(till.pin, window), "sign in": where(till.sign_in_button, window)}


async def settled(till: TillView, window: MainWindow) -> dict[str, QRect]:
    """The places once the page's layout is done."""
    last: list[dict[str, QRect]] = [{}]

    def still() -> bool:
        now = places(till, window)
        same, last[0] = now == last[0], now
        return same

    await until(still, what="the page laid out")
    return last[0]


@pytest.mark.parametrize(("width", "height"), SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
async def test_a_refused_pin_moves_nothing_on_the_till_page(
    host: AppHost,
    make_window: Callable[[AppHost], MainWindow],
    client: httpx.Client,
    width: int,
    height: int,
    tmp_path: Path,
) -> None:
    window = await signed_in_window(host, make_window, client)
    terminal = host.terminal
    assert terminal is not None
    await terminal.till.add_person(CASHIER, Role.CASHIER, CASHIER_PIN)
    window.resize(width, height)
    QTest.keyClick(window, Qt.Key.Key_F12)
    await until(lambda: window.page is Page.TILL and window.till.mode is TillMode.SIGN_IN, what="the till locked")
    till = window.till
    choice = next(b for b in till.person_buttons if b.text().startswith(CASHIER))
    QTest.mouseClick(choice, Qt.MouseButton.LeftButton)
    before = await settled(till, window)  # a wrapped line's room is laid out in a second pass
    assert not till.error.isVisible()

    said: list[str] = []
    for attempt in range(6):  # wrong PINs up to the lockout, each said in its own words
        if said and "locked" in said[-1].lower():
            break
        QTest.keyClicks(till.pin, f"00000{attempt}")
        QTest.keyClick(till.pin, Qt.Key.Key_Return)
        await until(lambda: till.error.isVisible() and till.error.text() not in said[-1:], what="the refusal said")
        said.append(till.error.text())
        assert places(till, window) == before, f"the page moved after: {said[-1]}"
        assert till.pin.hasFocus() and till.pin.text() == ""
    assert "locked" in said[-1].lower() and till.unlock_button.isVisible(), said
    assert till.error.height() >= till.error.heightForWidth(till.error.width()), "the reason is whole"
    # a till of a store: the lockout it sent comes back as a change of the people, which wiped what the page said
    till.refresh_people()
    assert till.error.isVisible() and till.error.text() == said[-1] and till.unlock_button.isVisible()
    assert till.chosen is not None and till.chosen.name == CASHIER
    screenshot(window, f"till-locked-{width}x{height}", tmp_path)
    await finish(window, host)
