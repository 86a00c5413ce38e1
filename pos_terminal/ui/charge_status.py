"""Where the charge stands: the middle column of the cashier's screen while a charge is under way or done.

It shows the status line, the amount and the customer, the transaction, what the terminal waits for and for
how long, the countdown to automatic cancellation and what happens next, with "Check now" while a charge is
verified. The texts come from :mod:`pos_terminal.ui.cashier_presenter`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pos_terminal.domain.sale import Phase
from pos_terminal.ui import cashier_presenter as say
from pos_terminal.ui.widgets import ElidedLabel, button, label, set_role

if TYPE_CHECKING:
    from pos_terminal.domain.money import MoneyFormat
    from pos_terminal.services.register import OpenCheck

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QSizePolicy, QVBoxLayout, QWidget


class ChargeStatus(QFrame):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.phase = label(role="phase")
        self.phase.setAccessibleName("Charge status")
        self.summary = label(role="heading", wrap=True)
        self.summary.setAccessibleName("Amount and customer")
        self.transaction_text = ElidedLabel(mode=Qt.TextElideMode.ElideMiddle)
        self.transaction_text.setProperty("role", "hint")
        self.transaction_text.setAccessibleName("Transaction")
        self.wait_text = label(wrap=True)
        self.wait_text.setAccessibleName("What the terminal waits for")
        self.countdown = label(role="reason", wrap=True)
        self.countdown.setAccessibleName("Time before automatic cancellation")
        self.charge_message = label(wrap=True)
        self.charge_message.setAccessibleName("Charge message")
        self.next_text = label(role="hint", wrap=True)
        self.next_text.setAccessibleName("What happens next")
        self.check_now_button = button("Check now", name="Check the charge with the service now")
        self.check_now_button.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        self.setObjectName("charge")
        self.setAccessibleName("Where the charge stands")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 16, 16, 16)
        layout.addStretch(1)  # in the middle of the column, where the eye is
        for widget in (
            self.phase,
            self.summary,
            self.transaction_text,
            self.wait_text,
            self.countdown,
            self.charge_message,
            self.next_text,
        ):
            layout.addWidget(widget)
        layout.addWidget(self.check_now_button)
        layout.addStretch(2)

    def show_state(self, state: OpenCheck, money: MoneyFormat, changing: str) -> None:
        """Everything but the waits (:meth:`show_waits`, every second)."""
        self.phase.setText(say.phase_text(state, changing))
        set_role(self.phase, say.phase_role(state))
        self.summary.setText(say.summary_text(state, money.format))
        self.transaction_text.setText(say.transaction_text(state))
        self.transaction_text.setVisible(bool(self.transaction_text.text()))
        self.charge_message.setText(state.message or "")
        self.charge_message.setVisible(say.charge_message_shown(state))
        self.check_now_button.setVisible(state.phase is Phase.VERIFYING)

    def show_waits(self, seconds_left: int | None, wait: str, next_step: str) -> None:
        countdown = say.countdown_text(seconds_left)
        self.countdown.setText(countdown)
        self.countdown.setVisible(bool(countdown))
        self.wait_text.setText(wait)
        self.wait_text.setVisible(bool(wait))
        self.next_text.setText(next_step)
        self.next_text.setVisible(bool(next_step))
