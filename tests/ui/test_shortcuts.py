"""Each shortcut is written once, in the table of :mod:`pos_terminal.ui.actions`: the buttons, placeholders and
sentences that name a key take it from there, so a key changed in the table changes everywhere it is shown."""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from pathlib import Path

import pos_terminal.ui
from pos_terminal.app import AppHost
from pos_terminal.ui.actions import ACTIONS, DISMISS_MESSAGE, Act, key
from pos_terminal.ui.cashier_view import CashierView
from pos_terminal.ui.main_window import MainWindow
from pos_terminal.ui.statusbar import StatusBar
from pos_terminal.ui.tasks import Messages

from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QApplication, QPushButton

UI = Path(pos_terminal.ui.__file__).parent


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the docstring nodes: what a docstring says about a key is prose, not a shortcut shown."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def test_no_shortcut_is_written_outside_the_table_of_actions() -> None:
    # the one-character keys (+, -) are too common in text to look for; their buttons are checked below
    keys = sorted({spec.shortcut for spec in ACTIONS if len(spec.shortcut) > 1} | {DISMISS_MESSAGE}, key=len)
    written = re.compile(r"(?<![\w+])(" + "|".join(re.escape(k) for k in reversed(keys)) + r")(?![\w+])")
    found = []
    for path in sorted(UI.glob("*.py")):
        if path.name == "actions.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        prose = _docstrings(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in prose:
                found += [f"{path.name}:{node.lineno}: {match}" for match in written.findall(node.value)]
    assert found == [], "\n".join(found)


def _shows(widget: QPushButton, act: Act) -> bool:
    shortcut = key(act)
    return widget.accessibleDescription() == f"Shortcut: {shortcut}" and widget.toolTip().endswith(f"({shortcut})")


def test_every_button_with_a_key_shows_its_actions_shortcut(qapp: QApplication) -> None:
    messages = Messages()
    cashier = CashierView(messages)
    buttons = {**cashier.ticket.buttons_by_act(), Act.REFRESH_CUSTOMERS: cashier.customers.refresh_button}
    status = StatusBar()
    buttons[Act.SWITCH_PERSON] = status.switch_button
    wrong = [f"{act}: {button.toolTip()!r}" for act, button in buttons.items() if not _shows(button, act)]
    assert wrong == []
    tabs = [cashier.entry_tabs.tabText(i) for i in range(cashier.entry_tabs.count())]
    assert tabs == [f"Products ({key(Act.FIND_PRODUCT)})", f"Keypad ({key(Act.TYPE_ITEM)})"]
    cashier.deleteLater()
    status.deleteLater()


def test_the_windows_keys_are_the_tables(host: AppHost, make_window: Callable[[AppHost], MainWindow]) -> None:
    """Each act is bound once, to the key of its row: a window action, or (the keys that change a line) a
    shortcut of the check's table alone, so that "-" typed in an amount stays a minus sign."""
    window = make_window(host)
    bound = {act: action.shortcut().toString() for act, action in window.actions_by_act.items()}
    table = window.cashier.ticket.table
    lines = sorted(shortcut.key().toString() for shortcut in table.findChildren(QShortcut))
    line_acts = {Act.MORE, Act.LESS, Act.REMOVE_LINE}
    expected = {spec.act: QKeySequence(spec.shortcut).toString() for spec in ACTIONS}
    assert bound == {act: sequence for act, sequence in expected.items() if act not in line_acts}
    assert lines == sorted(expected[act] for act in line_acts)
