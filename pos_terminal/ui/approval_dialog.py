"""A manager's approval, asked right where the cashier is: the act, a manager's name and their PIN.

The cashier stays signed in. Whether an act needs a manager is the till's rule
(:class:`~pos_terminal.services.till.Till`), never this dialog's: :func:`with_approval`
asks the till, and only when it says no does it open the prompt. The PIN is checked off
the loop's thread; the prompt is opened with ``open()``, never a nested ``exec()``
(docs/event-loop.md), and deleted once answered.

Its two buttons say what each does with the act: "Cancel the charge" and "Keep the charge", never an
"Approve" beside a "Cancel" that keeps the charge it seems to name (:data:`ANSWERS`).

However the prompt closes (approved, Cancel, Escape, a wrong PIN then Cancel), the keyboard goes
back to where the cashier was: their window is made active again and the field they typed in (or,
when that field is gone or off, the one the caller names) has the focus. Without a window manager
nothing else does it, and the window's shortcuts and the digits typed next went nowhere.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from pos_terminal.domain.people import Approval, Guarded
from pos_terminal.errors import UserError
from pos_terminal.ui.tasks import Messages, Tasks
from pos_terminal.ui.widgets import button, empty, keyboard_back, label, least_room, wheel_when_focused

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QRegularExpressionValidator
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

if TYPE_CHECKING:  # the service's side loads after the first screen is painted (pos_terminal.app)
    from pos_terminal.services.till import Till


# what the prompt's two buttons say for each act: the act done, and the act not done; an act not named here is
# approved or not approved, which says what the buttons do where no word of the question is a button's
ANSWERS: dict[Guarded, tuple[str, str]] = {
    Guarded.CANCEL_CHARGED: ("&Cancel the charge", "&Keep the charge"),
    Guarded.REFUND: ("&Refund", "&Do not refund"),
    Guarded.DISCOUNT: ("&Give the discount", "&No discount"),
    Guarded.NO_SALE: ("&Open the drawer", "&Keep the drawer closed"),
    Guarded.CLOSE_SHIFT: ("&Close the shift", "&Keep the shift open"),
}
APPROVE, REFUSE = "&Approve", "&Do not approve"


def pin_field(name: str) -> QLineEdit:
    """A PIN field: digits, shown as dots, never kept in an undo history."""
    from pos_terminal.domain.pins import MAX_PIN  # with the first PIN asked for (hashlib stays off the start)

    field = QLineEdit()
    field.setEchoMode(QLineEdit.EchoMode.Password)
    field.setMaxLength(MAX_PIN)
    field.setValidator(QRegularExpressionValidator(f"[0-9]{{0,{MAX_PIN}}}", field))
    field.setPlaceholderText("PIN")
    field.setAccessibleName(name)
    field.setInputMethodHints(Qt.InputMethodHint.ImhDigitsOnly | Qt.InputMethodHint.ImhSensitiveData)
    return field


class ManagerPrompt(QDialog):
    """Signals: ``approved(object)`` an :class:`~pos_terminal.domain.people.Approval`, once a manager's PIN
    was right."""

    approved = Signal(object)

    def __init__(
        self,
        till: Till,
        act: Guarded,
        question: str,
        parent: QWidget,
        *,
        subject: str | None = None,
        reason: str | None = None,
        back_to: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        keyboard_back(self, back_to)  # once it closes: the field in focus now, else ``back_to``
        self.till = till
        self.act = act
        self.subject = subject
        self.tasks = Tasks(Messages(self), self)
        self.setWindowTitle("A manager's approval")
        self.setAccessibleName("A manager's approval")
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.setMinimumWidth(540)
        asked = f" Asked by {till.actor}." if till.actor else ""
        self.question = label(question, role="heading", wrap=True)
        self.question.setAccessibleName("What is to be approved")
        said = reason or f"{act.sentence} needs a manager's approval."
        self.reason = label(f"{said}{asked}", role="hint", wrap=True)
        self.manager = QComboBox()
        self.manager.setAccessibleName("Manager")
        for person in till.staff.managers():
            self.manager.addItem(person.name, person.name)
        self.pin = pin_field("Manager's PIN")
        self.error = label(role="reason", wrap=True)
        self.error.setAccessibleName("Why it was not approved")
        least_room(self.error, 2)  # a refused PIN moves nothing: the fields had shrunk and jumped to make its room
        self.error.hide()
        yes, no = ANSWERS.get(act, (APPROVE, REFUSE))
        self.approve_button = button(yes, role="primary")
        self.cancel_button = button(no)
        form = QFormLayout()
        form.addRow("&Manager", self.manager)
        form.addRow("&PIN", self.pin)
        buttons = QHBoxLayout()
        buttons.addWidget(self.approve_button, 2)
        buttons.addWidget(self.cancel_button, 1)
        layout = QVBoxLayout(self)
        layout.addWidget(self.question)
        layout.addWidget(self.reason)
        layout.addLayout(form)
        layout.addWidget(self.error)
        layout.addLayout(buttons)
        self.approve_button.setDefault(True)
        wheel_when_focused(self)
        self.approve_button.clicked.connect(self.on_approve_clicked)
        self.pin.returnPressed.connect(self.on_approve_clicked)
        self.cancel_button.clicked.connect(self.reject)
        self.pin.setFocus()

    def on_approve_clicked(self) -> None:
        if self.tasks.busy:
            return
        self.approve_button.setEnabled(False)
        self.tasks.run(self._approve(), key="approve", on_error=self._refused)

    async def _approve(self) -> None:
        pin = self.pin.text()
        empty(self.pin)
        approval = await self.till.approve(self.act, self.manager.currentData() or "", pin, subject=self.subject)
        self.approved.emit(approval)
        self.accept()

    def _refused(self, error: UserError) -> None:
        self.error.setText(error.text())
        self.error.show()
        self.approve_button.setEnabled(True)
        self.pin.setFocus()

    def reject(self) -> None:
        self.tasks.cancel_all()
        super().reject()


def with_approval(
    parent: QWidget,
    till: Till,
    act: Guarded,
    question: str,
    then: Callable[[Approval | None], None],
    *,
    subject: str | None = None,
    reason: str | None = None,
    back_to: QWidget | None = None,
) -> ManagerPrompt | None:
    """``then(None)`` at once when the person at the till may do ``act``; otherwise the manager's prompt,
    and ``then(approval)`` once a manager approved. Returns the prompt when one was opened. ``reason`` is what
    the prompt says needs the approval (the act's own sentence by default); ``back_to`` takes the keyboard
    once the prompt closes when the field in focus before it is gone or off."""
    if till.may(act):
        then(None)
        return None
    prompt = ManagerPrompt(till, act, question, parent, subject=subject, reason=reason, back_to=back_to)
    prompt.approved.connect(then)
    prompt.open()
    return prompt
