"""Rules every page and dialog keeps, checked on what is shown (issue 51): no two keys of a window clash, Tab goes
through a form's fields in reading order and on to its main button, Return on that button acts or says why not,
and every window says what it is in its title.

Used by ``test_window_rules.py``, which takes the window through each page and dialog and asks these at each.
"""

from __future__ import annotations

import re
from collections import defaultdict

from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtGui import QAction, QKeySequence, QShortcut
from PySide6.QtTest import QTest
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractSpinBox,
    QApplication,
    QCheckBox,
    QComboBox,
    QDialog,
    QGroupBox,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QRadioButton,
    QTabBar,
    QTextEdit,
    QWidget,
)

MNEMONIC = re.compile(r"(?<!&)(?:&&)*&([^&\s])")
FIELDS = (QLineEdit, QComboBox, QAbstractSpinBox, QPlainTextEdit, QTextEdit, QCheckBox, QRadioButton)


def mnemonic(text: str) -> str | None:
    """The key of ``text``'s mnemonic (``"C&hoose…"``: ``"Alt+H"``); None without one (``&&`` is an ampersand)."""
    found = MNEMONIC.search(text)
    return f"Alt+{found.group(1).upper()}" if found else None


def _plain(text: str) -> str:
    return text.replace("&&", "\0").replace("&", "").replace("\0", "&").replace("\n", " ")


def _shown_in(widget: QWidget, window: QWidget) -> bool:
    return widget.window() is window and widget.isVisible()


def window_keys(window: QWidget) -> dict[str, list[str]]:
    """Every key that acts in ``window`` as it is shown now, with what it acts on: the mnemonics of its buttons,
    check boxes, labels with a buddy, group boxes and tabs, and its shortcuts and actions. A hidden page's keys do
    not act (Qt gives a shortcut of a hidden widget nothing), a dialog's are its own window's."""
    keys: dict[str, list[str]] = defaultdict(list)
    for widget in [window, *window.findChildren(QWidget)]:
        if not _shown_in(widget, window):  # enabled or not: a key clashes once both are enabled
            continue
        if isinstance(widget, QAbstractButton) and (key := mnemonic(widget.text())):
            keys[key].append(f"{type(widget).__name__} {_plain(widget.text())!r}")
        elif isinstance(widget, QLabel) and widget.buddy() is not None and (key := mnemonic(widget.text())):
            keys[key].append(f"label {_plain(widget.text())!r}")
        elif isinstance(widget, QGroupBox) and (key := mnemonic(widget.title())):
            keys[key].append(f"group {_plain(widget.title())!r}")
        elif isinstance(widget, QTabBar):
            for index in range(widget.count()):
                if widget.isTabVisible(index) and (key := mnemonic(widget.tabText(index))):
                    keys[key].append(f"tab {_plain(widget.tabText(index))!r}")
    for shortcut in window.findChildren(QShortcut):
        owner = shortcut.parent()
        if isinstance(owner, QWidget) and _shown_in(owner, window):
            sequences = shortcut.keys()  # QKeySequences, not a mapping's keys
            for sequence in sequences:
                keys[sequence.toString(QKeySequence.SequenceFormat.PortableText)].append(
                    f"shortcut of {type(owner).__name__} {owner.accessibleName()!r}"
                )
    for widget in [window, *window.findChildren(QWidget)]:
        if not _shown_in(widget, window):
            continue
        for action in widget.actions():
            if not isinstance(action, QAction):
                continue
            for sequence in action.shortcuts():
                keys[sequence.toString(QKeySequence.SequenceFormat.PortableText)].append(
                    f"action {_plain(action.text())!r}"
                )
    return keys


def clashing_keys(window: QWidget, where: str) -> list[str]:
    """Each key that two things in ``window`` answer to, naming both: one of them never gets it."""
    return [
        f"{where}: {key} is {' and '.join(sorted(set(owners)))}"
        for key, owners in sorted(window_keys(window).items())
        if len(owners) > 1
    ]


def _inner(widget: QWidget) -> bool:
    """A part of another field (a spin box's or an editable choice's line edit): Tab never stops on it alone."""
    parent = widget.parentWidget()
    return isinstance(parent, QAbstractSpinBox | QComboBox)


def fields_of(form: QWidget) -> list[QWidget]:
    """The fields shown in ``form`` that a person types in or sets, in reading order: by rows from the top (a
    field beside another shares its row), then from the left."""
    found = [
        w
        for w in form.findChildren(QWidget)
        if isinstance(w, FIELDS)
        and w.isVisible()
        and w.isEnabled()
        and w.focusPolicy() & Qt.FocusPolicy.TabFocus
        and not _inner(w)
        and not (isinstance(w, QLineEdit | QPlainTextEdit | QTextEdit) and w.isReadOnly())
    ]

    def place(widget: QWidget) -> QRect:
        return QRect(widget.mapTo(form, QPoint(0, 0)), widget.size())

    rows: list[list[QWidget]] = []
    for widget in sorted(found, key=lambda w: place(w).top()):
        here = place(widget)
        if rows and any(place(other).bottom() > here.top() + here.height() // 2 for other in rows[-1]):
            rows[-1].append(widget)
        else:
            rows.append([widget])
    return [w for row in rows for w in sorted(row, key=lambda w: place(w).left())]


def _name(widget: QWidget) -> str:
    text = widget.text() if isinstance(widget, QAbstractButton) else ""
    return f"{type(widget).__name__} {widget.accessibleName() or _plain(text)!r}"


def tab_problems(
    form: QWidget, main: QAbstractButton | None, where: str, *, fields: list[QWidget] | None = None
) -> list[str]:
    """What Tab does wrong in ``form``, pressed from its first field: each field of :func:`fields_of` visited in
    reading order, none skipped, and then its ``main`` button. The keys are real key presses on the widget in
    focus, as a keyboard sends them. ``fields`` gives the order where a form reads in columns (the drawer's notes
    down the left, then its coins down the right)."""
    fields = fields_of(form) if fields is None else fields
    if not fields:
        return [f"{where}: no field shown"]
    fields[0].setFocus(Qt.FocusReason.TabFocusReason)
    QApplication.processEvents()
    visited: list[QWidget] = []
    wanted = [*fields, *([main] if main is not None else [])]
    for _ in range(4 * len(wanted) + 20):
        focused = QApplication.focusWidget()
        if focused is None:
            break
        while _inner(focused) and focused.parentWidget() is not None:
            focused = focused.parentWidget()
        if focused in wanted and focused not in visited:
            visited.append(focused)
        if len(visited) == len(wanted):
            break
        QTest.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
    if visited != wanted:
        return [
            f"{where}: Tab goes {' → '.join(_name(w) for w in visited)}; "
            f"in reading order it is {' → '.join(_name(w) for w in wanted)}"
        ]
    return []


def title_problems(window: QWidget, where: str) -> list[str]:
    """A window says what it is in its title; a dialog is a dialog to the window manager, with no minimise or
    maximise button."""
    found = []
    title = window.windowTitle().strip()
    if not title or title in ("pos-terminal", QApplication.applicationName(), "python", "python3"):
        found.append(f"{where}: titled {title!r}, which says nothing of what it is")
    if isinstance(window, QDialog):
        flags = window.windowFlags()
        if window.windowType() != Qt.WindowType.Dialog:
            found.append(f"{where}: a {window.windowType()!r}, not a dialog to the window manager")
        for hint in (Qt.WindowType.WindowMinimizeButtonHint, Qt.WindowType.WindowMaximizeButtonHint):
            if flags & hint:
                found.append(f"{where}: has {hint.name}")
    return found
