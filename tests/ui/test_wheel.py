"""A wheel turns a choice only once it has the focus: a manager scrolling the settings with a mouse had changed the
printer profile under the pointer (and would the discount a cashier may give, or the idle lock), unseen."""

from __future__ import annotations

from collections.abc import Callable

import httpx

from pos_terminal.app import AppHost
from pos_terminal.ui.main_window import MainWindow, Tab
from tests.ui.conftest import finish, signed_in_window

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QAbstractSpinBox, QApplication, QComboBox, QScrollArea, QWidget


def wheel_down(widget: QWidget) -> None:
    """One notch of a mouse wheel, turned towards the person, over the middle of ``widget``."""
    inside = QPointF(widget.rect().center())
    outside = QPointF(widget.mapToGlobal(widget.rect().center()))
    event = QWheelEvent(
        inside,
        outside,
        QPoint(0, 0),
        QPoint(0, -120),
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(widget, event)
    QApplication.processEvents()


async def test_scrolling_the_settings_changes_none_of_them(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    window = await signed_in_window(host, make_window, client)
    window.resize(1024, 768)
    window.show_tab(Tab.SETTINGS)
    view = window.workspace.settings_view
    QApplication.processEvents()
    scroll = view.findChild(QScrollArea)
    assert scroll is not None
    bar = scroll.verticalScrollBar()
    assert bar.maximum() > 0, "the settings scroll at 1024x768"
    boxes = (view.printer_profile, view.discount_limit, view.idle_lock, view.region, view.scanner_gap)
    before = [(box.currentText() if hasattr(box, "currentText") else box.value()) for box in boxes]  # type: ignore[attr-defined]

    for box in boxes:
        scroll.ensureWidgetVisible(box)
        QApplication.processEvents()
        at = bar.value()
        wheel_down(box)
        assert bar.value() > at or bar.value() == bar.maximum(), f"a wheel over {box.accessibleName()} scrolls the page"
    after = [(box.currentText() if hasattr(box, "currentText") else box.value()) for box in boxes]  # type: ignore[attr-defined]
    assert after == before, "a wheel over a choice without the focus changed it"

    view.discount_limit.setFocus()
    QApplication.processEvents()
    wheel_down(view.discount_limit)
    assert view.discount_limit.value() == before[1] - 1, "with the focus, the wheel turns it"
    await finish(window, host)


def under_pointer(box: QWidget) -> QWidget:
    """The widget a real wheel over the middle of ``box`` is delivered to: its text field, on a spin box or an
    editable choice."""
    window = box.window()
    found = window.childAt(box.mapTo(window, box.rect().center()))
    assert found is not None and (found is box or box.isAncestorOf(found)), f"{box.accessibleName()} is covered"
    return found


def shown_value(box: QWidget) -> object:
    return box.currentText() if isinstance(box, QComboBox) else box.text()  # type: ignore[attr-defined]


async def test_the_wheel_scrolls_the_settings_over_every_choice_and_number(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    """Issue 51, item 6: the wheel stalled where the pointer passed over a choice or a number field without the
    focus. The wheel goes to the widget under the pointer, as a mouse's does: over a spin box or an editable choice
    that is its text field."""
    window = await signed_in_window(host, make_window, client)
    window.resize(1024, 768)
    window.show_tab(Tab.SETTINGS)
    view = window.workspace.settings_view
    view.save_button.setFocus()
    QApplication.processEvents()
    scroll = view.findChild(QScrollArea)
    assert scroll is not None
    bar = scroll.verticalScrollBar()
    boxes = [
        box for box in (*view.findChildren(QComboBox), *view.findChildren(QAbstractSpinBox)) if box.isVisibleTo(view)
    ]
    assert len(boxes) >= 10, [box.accessibleName() for box in boxes]
    stalled = []
    for box in boxes:
        content = scroll.widget()
        assert content is not None
        bar.setValue(box.mapTo(content, box.rect().topLeft()).y() - 100)  # the box well inside the page shown
        QApplication.processEvents()
        before, at = shown_value(box), bar.value()
        wheel_down(under_pointer(box))
        if bar.value() <= at < bar.maximum():
            stalled.append(f"{box.accessibleName()}: the page stayed at {at}")
        if shown_value(box) != before:
            stalled.append(f"{box.accessibleName()}: changed from {before!r} to {shown_value(box)!r}")
    assert stalled == [], "\n".join(stalled)

    box = view.discount_limit
    scroll.ensureWidgetVisible(box)
    box.setFocus()
    QApplication.processEvents()
    before = box.value()
    wheel_down(under_pointer(box))
    assert box.value() == before - 1, "with the focus, a wheel over its text turns it"
    await finish(window, host)


async def test_a_wheel_over_history_or_reports_changes_neither_range_nor_scope(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    """A manager's wheel on its way to the list or the preview turned "Today" into "Yesterday" under the pointer."""
    window = await signed_in_window(host, make_window, client)
    for tab in (Tab.HISTORY, Tab.REPORTS):
        window.show_tab(tab)
        view = window.workspace.history if tab is Tab.HISTORY else window.workspace.reports
        view.setFocus()  # the keyboard elsewhere, as after a click on the list
        QApplication.processEvents()
        boxes = (view.range.preset, view.scope)
        before = [box.currentIndex() for box in boxes]
        for box in boxes:
            wheel_down(box)
        assert [box.currentIndex() for box in boxes] == before, f"a wheel over {tab} changed a choice"
    await finish(window, host)
