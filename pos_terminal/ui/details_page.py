"""The back office's details page: the store's name, address, tax number, receipt header and footer, and logo.

They print at the head and the foot of every receipt and report. In a store they are the store's (every till
prints them); on a till that stands alone, its own. Every field is bounded by
:data:`~pos_terminal.domain.details.LIMITS`; Save checks them all first (one sentence naming the field), then asks
for a manager, then writes them in one go: nothing is saved half-way. The logo is chosen in a file dialog
(opened, never run as a loop of its own) and checked whole at once (:mod:`pos_terminal.reports.logo`); like
the text it is saved with Save. A preview beside the form shows the head and the foot of a receipt as they will
print, the logo above the name.
"""

from __future__ import annotations

import html
from dataclasses import replace
from pathlib import Path

from pos_terminal.domain.details import LABELS, LIMITS, StoreDetails, details_of
from pos_terminal.domain.people import Approval, Guarded
from pos_terminal.errors import UserError
from pos_terminal.reports.logo import read_logo
from pos_terminal.services.terminal import Terminal
from pos_terminal.ui import widgets
from pos_terminal.ui.approval_dialog import ManagerPrompt, with_approval
from pos_terminal.ui.tasks import Messages
from pos_terminal.ui.widgets import BIG_BUTTON, button, file_dialog, label, least_room

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFontDatabase, QPixmap, QTextCursor
from PySide6.QtWidgets import (
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QLineEdit,
    QPlainTextEdit,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

FIELDS = tuple(LIMITS)  # name, address, tax number, receipt header, receipt footer: the order of the form
ROLL = 42  # characters on a line of an 80 mm roll, as the preview wraps them
ROLL_DOTS = 504  # a roll's 42 characters are 12 dots each: the logo in the preview is as wide on it as on paper
THUMBNAIL = (160, 64)  # the logo beside its buttons in the form


class BoundedText(QPlainTextEdit):
    """Text of several lines that never holds more than ``limit`` characters: what goes beyond (typed or pasted)
    is cut where it went in. Tab moves on to the next field, as in a line."""

    def __init__(self, limit: int, lines: int) -> None:
        super().__init__()
        self.limit = limit
        self.setTabChangesFocus(True)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.setPlaceholderText(f"Up to {limit} characters, on several lines")
        self.ensurePolished()  # the style sheet's font, not the default one, sets the height
        margins = self.contentsMargins()
        height = lines * self.fontMetrics().lineSpacing() + 2 * self.document().documentMargin()
        self.setFixedHeight(int(height) + margins.top() + margins.bottom() + 4)
        self.textChanged.connect(self._bound)

    def _bound(self) -> None:
        excess = len(self.toPlainText()) - self.limit
        if excess <= 0:
            return
        cursor = self.textCursor()
        end = cursor.position()
        start = max(0, end - excess)
        cursor.setPosition(start)
        cursor.setPosition(start + excess, QTextCursor.MoveMode.KeepAnchor)
        cursor.removeSelectedText()
        self.setTextCursor(cursor)

    def text(self) -> str:
        return self.toPlainText()

    def setText(self, text: str) -> None:  # noqa: N802 (as a line's)
        self.setPlainText(text)


def _wrapped(line: str) -> list[str]:
    """A line as a roll of :data:`ROLL` characters breaks it, at spaces where it can."""
    out: list[str] = []
    while len(line) > ROLL:
        cut = line.rfind(" ", 0, ROLL + 1)
        cut = cut if cut > 0 else ROLL
        out.append(line[:cut].rstrip())
        line = line[cut:].lstrip()
    return [*out, line]


def preview_html(details: StoreDetails | None) -> str:
    """The head and foot of a receipt: the name, then :meth:`StoreDetails.head_lines`, the check, then the footer."""
    if details is None:
        return "<i>A receipt without the store's details has no name at its head.</i>"
    lines = [f"<b style='font-size:large'>{html.escape(line)}</b>" for line in _wrapped(details.name)]
    lines += [html.escape(part) for line in details.head_lines() for part in _wrapped(line)]
    lines += ["", "<i>… the items, totals and payment …</i>", ""]
    lines += [html.escape(part) for line in details.foot_lines() for part in _wrapped(line)]
    return "<br>".join(lines)


def logo_pixmap(logo: bytes | None) -> QPixmap:
    """The kept logo (a PNG) as Qt draws it; an empty pixmap for none."""
    pixmap = QPixmap()
    if logo:
        pixmap.loadFromData(logo, "PNG")
    return pixmap


class DetailsPage(QWidget):
    """Signals: ``changed()`` after a change was saved."""

    changed = Signal()

    def __init__(self, messages: Messages, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAccessibleName("Store details")
        self.messages = messages
        self.terminal: Terminal | None = None
        self.prompt: ManagerPrompt | None = None
        self.loaded: dict[str, str] = dict.fromkeys(FIELDS, "")  # as last read: what "unsaved" is measured against
        self.logo: bytes | None = None  # as chosen here (saved with the rest)
        self.loaded_logo: bytes | None = None
        self.logo_dialog: QFileDialog | None = None

        self.name = QLineEdit()
        self.name.setPlaceholderText("Printed at the top of every receipt")
        self.tax_number = QLineEdit()
        self.tax_number.setPlaceholderText("As the tax office gave it")
        self.address = BoundedText(LIMITS["address"], 3)
        self.receipt_header = BoundedText(LIMITS["receipt_header"], 3)
        self.receipt_footer = BoundedText(LIMITS["receipt_footer"], 3)
        self.name.setMaxLength(LIMITS["name"])
        self.tax_number.setMaxLength(LIMITS["tax_number"])
        self.fields: dict[str, QLineEdit | BoundedText] = {
            "name": self.name,
            "address": self.address,
            "tax_number": self.tax_number,
            "receipt_header": self.receipt_header,
            "receipt_footer": self.receipt_footer,
        }
        for field_name, field in self.fields.items():
            field.setAccessibleName(LABELS[field_name].capitalize())
        self.logo_thumbnail = label()
        self.logo_thumbnail.setAccessibleName("The store's logo")
        self.logo_thumbnail.setFixedSize(*THUMBNAIL)
        self.logo_thumbnail.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.logo_thumbnail.setFrameShape(QFrame.Shape.StyledPanel)
        self.choose_logo_button = button("Ch&oose…", name="Choose the store's logo (PNG or JPEG)")
        self.remove_logo_button = button("Remove", name="Print no logo")
        logo_row = QHBoxLayout()
        logo_row.setContentsMargins(0, 0, 0, 0)
        logo_row.addWidget(self.logo_thumbnail)
        logo_row.addWidget(self.choose_logo_button)
        logo_row.addWidget(self.remove_logo_button)
        logo_row.addStretch(1)
        logo_box = QWidget()
        logo_box.setLayout(logo_row)

        form = widgets.form()
        form.addRow("&Name", self.name)
        form.addRow("Add&ress", self.address)
        form.addRow("&Tax number", self.tax_number)
        form.addRow("Receipt &header", self.receipt_header)
        form.addRow("Receipt &footer", self.receipt_footer)
        form.addRow("&Logo", logo_box)
        widgets.level_labels(form)
        self.heading = label("The store's details", role="heading")
        self.scope = label(role="hint", wrap=True)
        self.scope.setAccessibleName("Whose details these are")
        self.reason = label(role="reason", wrap=True)
        self.reason.setAccessibleName("Why not")
        least_room(self.reason, 2)  # a refusal coming or going never moves Save
        self.reason.hide()
        self.done = label(role="hint", wrap=True)
        self.done.setAccessibleName("What was saved")
        self.done.hide()
        self.save_button = button("&Save", role="primary", name="Save the store's details")
        self.revert_button = button("Re&vert", name="Back to the details as saved")
        self.revert_button.setMinimumHeight(BIG_BUTTON)  # side by side with Save: one height

        self.preview = label(wrap=True)
        self.preview.setAccessibleName("The head and foot of a receipt")
        self.preview.setTextFormat(Qt.TextFormat.RichText)
        self.preview.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)  # as the PDF roll has it
        self.preview.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        paper = QFrame()
        paper.setFrameShape(QFrame.Shape.StyledPanel)
        paper_layout = QVBoxLayout(paper)
        self.preview_logo = label()
        self.preview_logo.setAccessibleName("The logo on a receipt")
        self.preview_logo.setAlignment(Qt.AlignmentFlag.AlignHCenter)
        self.preview_logo.hide()
        paper_layout.addWidget(self.preview_logo)
        paper_layout.addWidget(self.preview)
        paper_layout.addStretch(1)
        roll = QScrollArea()
        roll.setWidget(paper)
        roll.setWidgetResizable(True)
        roll.setFrameShape(QFrame.Shape.NoFrame)
        roll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        width = self.preview.fontMetrics().horizontalAdvance("M" * ROLL)
        self.roll_width = width
        roll.setMinimumWidth(min(width + 40, 420))
        roll.setMaximumWidth(width + 60)
        side = QVBoxLayout()
        side.addWidget(label("On a receipt", role="heading"))
        side.addWidget(roll, 1)

        left = QVBoxLayout()
        left.addWidget(self.heading)
        left.addWidget(self.scope)
        left.addLayout(form)
        left.addWidget(self.reason)
        buttons = QHBoxLayout()
        buttons.addWidget(self.save_button, 2)
        buttons.addWidget(self.revert_button, 1)
        left.addLayout(buttons)
        left.addWidget(self.done)
        left.addStretch(1)
        columns = QHBoxLayout(self)
        columns.setContentsMargins(8, 8, 8, 8)
        columns.addLayout(left, 3)
        columns.addLayout(side, 2)

        self.save_button.clicked.connect(self.on_save_clicked)
        self.revert_button.clicked.connect(self.on_revert_clicked)
        self.choose_logo_button.clicked.connect(self.on_choose_logo_clicked)
        self.remove_logo_button.clicked.connect(self.on_remove_logo_clicked)
        for field in (self.name, self.tax_number):
            field.returnPressed.connect(self.on_save_clicked)
            field.textChanged.connect(self._edited)
        for text in (self.address, self.receipt_header, self.receipt_footer):
            text.textChanged.connect(self._edited)
        self.refresh()

    # --- the terminal ----------------------------------------------------------------------------

    def attach(self, terminal: Terminal) -> None:
        self.terminal = terminal
        self.refresh()

    def detach(self) -> None:
        self.terminal = None
        self.refresh(keep_edits=False)

    def values(self) -> dict[str, str]:
        return {name: field.text() for name, field in self.fields.items()}

    def unsaved(self) -> bool:
        return self.values() != self.loaded or self.logo != self.loaded_logo

    def refresh(self, *, keep_edits: bool = True) -> None:
        """Show the details as saved now (another till may have changed them); what is being typed and not saved
        yet stays, and the page says so."""
        terminal = self.terminal
        current = terminal.store.details.get() if terminal is not None else None
        saved = {name: (getattr(current, name, None) or "") for name in FIELDS}
        saved_logo = current.logo if current is not None else None
        if keep_edits and self.unsaved():
            if saved != self.loaded or saved_logo != self.loaded_logo:
                self._say("The details were changed elsewhere meanwhile: Save to replace them, or Revert to see them.")
            self.loaded, self.loaded_logo = saved, saved_logo
        else:
            self.loaded, self.loaded_logo = saved, saved_logo
            self.logo = saved_logo
            for name, field in self.fields.items():
                field.setText(saved[name])
        for control in (*self.fields.values(), self.choose_logo_button):
            control.setEnabled(terminal is not None)
        self.save_button.setEnabled(terminal is not None)
        self.revert_button.setEnabled(terminal is not None)
        if terminal is None:
            self.scope.setText("Not connected.")
        elif terminal.store.linked:
            self.scope.setText("The store's details: every till prints them. A manager approves a change.")
        else:
            self.scope.setText("This till's details (it stands alone). A manager approves a change.")
        self._edited()
        self._show_logo()

    # --- slots -----------------------------------------------------------------------------------

    def _edited(self) -> None:
        try:
            details: StoreDetails | None = details_of(dict(self.values()))
        except UserError:
            details = None if not self.name.text().strip() else self._loosely()
        self.preview.setText(preview_html(details))

    def _loosely(self) -> StoreDetails:
        """What the fields say, unchecked (the preview follows the typing; Save checks)."""
        values = self.values()
        return StoreDetails(
            values["name"].strip(),
            values["address"] or None,
            values["tax_number"].strip() or None,
            values["receipt_header"] or None,
            values["receipt_footer"] or None,
        )

    def _say(self, error: UserError | str | None) -> None:
        self.reason.setText(error.text() if isinstance(error, UserError) else (error or ""))
        self.reason.setVisible(error is not None)

    def _show_logo(self) -> None:
        """The chosen logo beside its buttons and on the receipt's preview, as wide there as on the roll."""
        pixmap = logo_pixmap(self.logo)
        self.remove_logo_button.setEnabled(self.logo is not None and self.terminal is not None)
        if pixmap.isNull():
            self.logo_thumbnail.clear()
            self.logo_thumbnail.setText("No logo")
            self.preview_logo.clear()
            self.preview_logo.hide()
            return
        mode = Qt.TransformationMode.SmoothTransformation
        self.logo_thumbnail.setPixmap(
            pixmap.scaled(THUMBNAIL[0] - 8, THUMBNAIL[1] - 8, Qt.AspectRatioMode.KeepAspectRatio, mode)
        )
        self.preview_logo.setPixmap(pixmap.scaledToWidth(max(1, pixmap.width() * self.roll_width // ROLL_DOTS), mode))
        self.preview_logo.show()

    def on_choose_logo_clicked(self) -> None:
        """A file dialog, opened (the window goes on): the file chosen is checked at once."""
        self.logo_dialog = file_dialog(
            self,
            "Choose the store's logo",
            "Pictures (*.png *.jpg *.jpeg);;All files (*)",
            self.choose_logo,
            lambda: setattr(self, "logo_dialog", None),
        )

    def choose_logo(self, path: Path) -> None:
        """Make the picture at ``path`` the logo to save, or say in one sentence why it cannot be (the logo chosen
        before stays)."""
        self.done.hide()
        try:
            self.logo = read_logo(path)
        except UserError as exc:
            self._say(exc)
            return
        self._say(None)
        self._show_logo()

    def on_remove_logo_clicked(self) -> None:
        self.done.hide()
        self.logo = None
        self._show_logo()

    def on_revert_clicked(self) -> None:
        self._say(None)
        self.done.hide()
        self.refresh(keep_edits=False)

    def on_save_clicked(self) -> None:
        """Check every field, then a manager, then one write."""
        terminal = self.terminal
        if terminal is None:
            return
        self.done.hide()
        try:
            details = replace(details_of(dict(self.values())), logo=self.logo)
        except UserError as exc:
            self._say(exc)
            return
        self._say(None)
        whose = "the store's details for every till" if terminal.store.linked else "this till's details"

        def then(approval: Approval | None) -> None:
            if self.terminal is terminal:
                self._save(terminal, details, approval)

        self.prompt = with_approval(self, terminal.till, Guarded.MANAGE_CATALOG, f"Save {whose}?", then)

    def _save(self, terminal: Terminal, details: StoreDetails, approval: Approval | None) -> None:
        try:
            by = terminal.till.catalog_manager(approval)
            saved = terminal.set_store_details(details, by=by)
        except UserError as exc:
            self._say(exc)
            return
        self.refresh(keep_edits=False)
        if saved:
            where = "every till prints them" if terminal.store.linked else "this till prints them"
            self.done.setText(f"Saved: {where} from the next receipt.")
            self.changed.emit()
        else:
            self.done.setText("Nothing changed: the details were already these.")
        self.done.show()
