"""The window's keys, made from the one table of :mod:`pos_terminal.ui.actions`: a window-wide ``QAction`` for
each act, and for the keys that change a line of the check a shortcut of the check's table alone."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from pos_terminal.ui.actions import ACTIONS, Act

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence, QShortcut
from PySide6.QtWidgets import QWidget


def bind_keys(
    window: QWidget,
    handlers: Mapping[Act, Callable[[], None]],
    line_keys: Mapping[Act, Callable[[], None]],
    table: QWidget,
) -> dict[Act, QAction]:
    """Every act of the table bound to its handler; returns the window's actions by act."""
    actions: dict[Act, QAction] = {}
    for spec in ACTIONS:
        if spec.act in line_keys:
            # Only in the check's table: "-" typed in an amount field stays a minus sign.
            shortcut = QShortcut(QKeySequence(spec.shortcut), table)
            shortcut.setContext(Qt.ShortcutContext.WidgetShortcut)
            shortcut.activated.connect(line_keys[spec.act])
            continue
        action = QAction(spec.text, window)
        action.setShortcut(QKeySequence(spec.shortcut))
        action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        action.setToolTip(f"{spec.help} ({spec.shortcut})")
        action.triggered.connect(handlers[spec.act])
        window.addAction(action)
        actions[spec.act] = action
    return actions
