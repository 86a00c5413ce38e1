"""What a screen reader says of a control: its accessible name, as Qt's accessibility interface gives it (the
widget's own name, else its text, else its form label's)."""

from __future__ import annotations

from PySide6.QtGui import QAccessible
from PySide6.QtWidgets import QAbstractButton, QAbstractItemView, QAbstractSpinBox, QComboBox, QLineEdit, QWidget

NAMED = (QAbstractButton, QLineEdit, QComboBox, QAbstractSpinBox)  # buttons, tool buttons, fields, choices


def _own_part(widget: QWidget) -> bool:
    """A spin box's or a choice's editor is read as that control, which has the name; a table's corner button is
    none of the table's children to a screen reader (the table lists its cells and headings)."""
    if isinstance(widget, QLineEdit) and isinstance(widget.parentWidget(), QAbstractSpinBox | QComboBox):
        return True
    return isinstance(widget.parentWidget(), QAbstractItemView)  # a cell's editor lies in the viewport, deeper


def spoken_name(widget: QWidget) -> str:
    interface = QAccessible.queryAccessibleInterface(widget)
    return interface.text(QAccessible.Text.Name).strip() if interface is not None else ""


def unnamed_controls(*roots: QWidget) -> list[str]:
    """Every control under ``roots``, shown or not (a page not shown yet is read when it is), that a screen reader
    would call by its kind alone: "button", "edit"."""
    found = []
    for root in roots:
        for widget in [root, *root.findChildren(QWidget)]:
            if not isinstance(widget, NAMED) or _own_part(widget) or spoken_name(widget):
                continue
            path, parent = [], widget.parentWidget()
            while parent is not None and parent is not root:
                path.append(parent.accessibleName() or parent.objectName() or type(parent).__name__)
                parent = parent.parentWidget()
            found.append(f"{widget.metaObject().className()} in {' < '.join(path[:4])}")
    return found
