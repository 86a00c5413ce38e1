"""The till's own sign-in, in front of the cashier screen: the first manager, then a name and a PIN, then the shift.

Shown when nobody is at the till: at start, after switching person (one key) and
after the idle lock. The open check stays behind it as it was, its charge included;
the page says so. Who may sign in, unlock or open a shift is the till's business
(:class:`~pos_terminal.services.till.Till`); this page only asks and shows.
"""

from __future__ import annotations

from enum import StrEnum

from pos_terminal.domain.people import MAX_NAME, Approval, Guarded, Person
from pos_terminal.domain.pins import BadPin, check_pin
from pos_terminal.domain.sale import FINISHED, LOCKED
from pos_terminal.domain.words import counted
from pos_terminal.errors import UserError
from pos_terminal.services.staff import PersonLocked, PinAlreadySet, PinToSet
from pos_terminal.services.terminal import Terminal
from pos_terminal.ui.approval_dialog import ManagerPrompt, pin_field, with_approval
from pos_terminal.ui.cashier_presenter import CHECK
from pos_terminal.ui.tasks import Messages, Tasks
from pos_terminal.ui.widgets import button, empty, label, least_room

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QButtonGroup,
    QFormLayout,
    QGridLayout,
    QHBoxLayout,
    QLineEdit,
    QPushButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

PEOPLE_COLUMNS = 3


class TillMode(StrEnum):
    FIRST_MANAGER = "first manager"
    SIGN_IN = "sign in"
    OPEN_SHIFT = "open shift"


CHOOSE_FIRST = "Choose your name first (touch it, or Enter on it), then type your PIN."


class _ChoiceKeys(QObject):
    """The keyboard on a person's button: Enter chooses them, as Space does (a button outside a dialog takes no
    Enter); a digit typed on someone not chosen says to choose first, where it went nowhere, and on the one chosen
    it goes into the PIN."""

    def __init__(self, view: TillView) -> None:
        super().__init__(view)
        self.view = view

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        if event.type() is not QEvent.Type.KeyPress or not isinstance(watched, QPushButton):
            return False
        assert isinstance(event, QKeyEvent)
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            watched.click()
            return True
        if not event.text().isdigit():
            return False
        if watched.isChecked():
            self.view.pin.setFocus()
            self.view.pin.insert(event.text())
        else:
            self.view._say(CHOOSE_FIRST)
        return True


class TillView(QWidget):
    """Signals: ``ready()`` once a person is at the till and the shift is open (or put off with "Not now")."""

    ready = Signal()

    def __init__(self, messages: Messages, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.messages = messages
        self.tasks = Tasks(messages, self)
        self.terminal: Terminal | None = None
        self.mode = TillMode.SIGN_IN
        self.chosen: Person | None = None
        self.prompt: ManagerPrompt | None = None
        self.person_buttons: list[QPushButton] = []
        self.choice_keys = _ChoiceKeys(self)

        # --- the first manager ---
        self.first_name = QLineEdit()
        self.first_name.setAccessibleName("Manager's name")
        self.first_name.setMaxLength(MAX_NAME)
        self.first_pin = pin_field("Manager's PIN")
        self.first_again = pin_field("The same PIN again")
        self.create_button = button("Create the manager and sign in", role="primary", name="Create manager")
        first = QWidget()
        first_layout = QVBoxLayout(first)
        first_layout.addWidget(label("Who manages this till?", role="heading"))
        first_layout.addWidget(
            label(
                "The first person is the till's manager. Managers approve refunds, cancellations after a charge, "
                "large discounts, opening the drawer without a sale, changing the settings and disconnecting, "
                f"and add the cashiers. {BadPin.hint}",
                role="hint",
                wrap=True,
            )
        )
        form = QFormLayout()
        form.addRow("&Name", self.first_name)
        form.addRow("&PIN", self.first_pin)
        form.addRow("PIN &again", self.first_again)
        first_layout.addLayout(form)
        first_layout.addWidget(self.create_button)

        # --- a person signs in ---
        self.sign_in_heading = label("Who is at the till?", role="heading")
        self.open_check = label(role="hint", wrap=True)
        self.open_check.setAccessibleName("The open check")
        self.people_box = QWidget()
        self.people_grid = QGridLayout(self.people_box)
        self.people_grid.setContentsMargins(0, 0, 0, 0)
        self.people_group = QButtonGroup(self)
        self.people_group.setExclusive(True)
        self.pin = pin_field("PIN")
        # after a manager's reset, the person chosen types their new PIN twice here (shown only then)
        self.new_pin_text = label(role="hint", wrap=True)
        self.new_pin_text.setAccessibleName("Choose your new PIN")
        least_room(self.new_pin_text, 2)  # its room kept, as the second field's: choosing a name moves nothing
        self.new_pin_text.hide()
        self.pin_again = pin_field("The same new PIN again")
        self.pin_again.setPlaceholderText("The same PIN again")
        kept = self.pin_again.sizePolicy()
        kept.setRetainSizeWhenHidden(True)
        self.pin_again.setSizePolicy(kept)
        self.pin_again.hide()
        self.sign_in_button = button("&Sign in", role="primary", name="Sign in at the till")
        self.sign_in_button.ensurePolished()  # as wide as the longer words it says for a new PIN: the PIN beside it
        widest = 0  # had narrowed when a name that sets a new PIN was chosen
        for words in ("&Set the PIN and sign in", "&Sign in"):
            self.sign_in_button.setText(words)
            widest = max(widest, self.sign_in_button.sizeHint().width())
        self.sign_in_button.setMinimumWidth(widest)
        self.unlock_button = button("&Unlock…", name="Unlock with a manager's PIN")
        # shown after a lockout, in room kept for it: appearing, it pushed the names and the PIN down a row
        unlock_room = self.unlock_button.sizePolicy()
        unlock_room.setRetainSizeWhenHidden(True)
        self.unlock_button.setSizePolicy(unlock_room)
        self.unlock_button.hide()
        pin_rows = QGridLayout()  # the PIN again under the PIN, as wide
        pin_rows.setContentsMargins(0, 0, 0, 0)
        pin_rows.addWidget(self.pin, 0, 0)
        pin_rows.addWidget(self.sign_in_button, 0, 1)
        pin_rows.addWidget(self.pin_again, 1, 0)
        pin_rows.setColumnStretch(0, 2)
        pin_rows.setColumnStretch(1, 1)
        sign_in = QWidget()
        sign_in_layout = QVBoxLayout(sign_in)
        sign_in_layout.addWidget(self.sign_in_heading)
        sign_in_layout.addWidget(self.open_check)
        sign_in_layout.addWidget(self.people_box)
        sign_in_layout.addWidget(self.new_pin_text)
        sign_in_layout.addLayout(pin_rows)
        sign_in_layout.addWidget(self.unlock_button, 0, Qt.AlignmentFlag.AlignLeft)

        # --- the shift ---
        self.shift_heading = label("Open the shift", role="heading")
        self.shift_heading.setTextFormat(Qt.TextFormat.PlainText)  # the person's name as typed, "<b>" and all
        self.shift_text = label(
            "Count the cash in the drawer: that is the float the shift starts with. Charges need an open shift.",
            role="hint",
            wrap=True,
        )
        self.opening_float = QLineEdit()
        self.opening_float.setAccessibleName("Float counted in the drawer")
        self.opening_float.setPlaceholderText("Float, e.g. 200.00")
        self.open_button = button("&Open the shift", role="primary", name="Open the shift")
        self.later_button = button("&Not now", name="Not now")
        shift = QWidget()
        shift_layout = QVBoxLayout(shift)
        shift_layout.addWidget(self.shift_heading)
        shift_layout.addWidget(self.shift_text)
        shift_form = QFormLayout()
        shift_form.addRow("&Float", self.opening_float)
        shift_layout.addLayout(shift_form)
        shift_buttons = QHBoxLayout()
        shift_buttons.addWidget(self.open_button, 2)
        shift_buttons.addWidget(self.later_button, 1)
        shift_layout.addLayout(shift_buttons)

        self.error = label(role="reason", wrap=True)
        self.error.setAccessibleName("Why not")
        least_room(self.error, 2)  # shown or not: a refused PIN moved the page under the cashier's finger
        self.error.hide()
        self.stack = QStackedWidget()
        self.pages = {TillMode.FIRST_MANAGER: first, TillMode.SIGN_IN: sign_in, TillMode.OPEN_SHIFT: shift}
        for page in self.pages.values():
            self.stack.addWidget(page)
        column = QWidget()
        column.setMaximumWidth(640)
        column_layout = QVBoxLayout(column)
        column_layout.addWidget(self.stack)
        column_layout.addWidget(self.error)
        inset = sign_in_layout.contentsMargins()  # the reason lines up with the names and the PIN above it
        self.error.setContentsMargins(inset.left(), 0, inset.right(), 0)
        column_layout.addStretch(1)
        outer = QHBoxLayout(self)
        outer.setContentsMargins(32, 48, 32, 32)
        outer.addStretch(1)
        outer.addWidget(column, 4)
        outer.addStretch(1)
        # Tab goes from the PIN to the PIN again, then to the button (set once all are on this page): laid out in
        # rows, the button came between the two PINs
        QWidget.setTabOrder(self.pin, self.pin_again)
        QWidget.setTabOrder(self.pin_again, self.sign_in_button)

        self.create_button.clicked.connect(self.on_create_clicked)
        self.first_again.returnPressed.connect(self.on_create_clicked)
        self.sign_in_button.clicked.connect(self.on_sign_in_clicked)
        self.pin.returnPressed.connect(self.on_pin_entered)
        self.pin_again.returnPressed.connect(self.on_sign_in_clicked)
        self.unlock_button.clicked.connect(self.on_unlock_clicked)
        self.open_button.clicked.connect(self.on_open_shift_clicked)
        self.opening_float.returnPressed.connect(self.on_open_shift_clicked)
        self.later_button.clicked.connect(self.ready)

    # --- which step ------------------------------------------------------------------------------

    def begin(self, terminal: Terminal) -> None:
        """Nobody at the till: the first manager on a new terminal, else the people to choose from."""
        self.terminal = terminal
        self._say(None)
        if not terminal.till.guarding:
            self._show(TillMode.FIRST_MANAGER)
            self.first_name.setFocus()
            return
        self._show_people(terminal)
        self._show(TillMode.SIGN_IN)

    def refresh_people(self) -> None:
        """The people changed elsewhere (another till of the store): show them again, keeping the one chosen, unless
        a PIN is being typed (the next change shows them)."""
        terminal = self.terminal
        if terminal is None:
            return
        if self.mode is TillMode.FIRST_MANAGER and terminal.till.guarding:
            self.begin(terminal)  # the store brought this new till its people: no first manager to make here
            return
        if self.mode is not TillMode.SIGN_IN or self.pin.text() or self.pin_again.text():
            return
        chosen = self.chosen.name if self.chosen is not None else None
        # what the page said of the one chosen stays: the lockout this till just made reaches the store and comes
        # back as a change of the people, which had wiped "locked until …" and the Unlock button at once
        said = self.error.text() if self.error.isVisible() else None
        locked = self.unlock_button.isVisible()
        self._show_people(terminal)
        for person, choice in zip(terminal.staff.people(active_only=True), self.person_buttons, strict=True):
            if person.name == chosen:
                choice.setChecked(True)
                self.choose(person)
                if said is not None and (not locked or person.locked(terminal.till.now())):
                    self._say(said)
                    self.unlock_button.setVisible(locked)

    def ask_shift(self, terminal: Terminal) -> None:
        """The person at the till opens a shift (from the Shifts view, after "Not now")."""
        self.terminal = terminal
        self._say(None)
        self._show_shift_step(terminal)

    def _show(self, mode: TillMode) -> None:
        self.mode = mode
        self.stack.setCurrentWidget(self.pages[mode])

    def _say(self, error: UserError | str | None) -> None:
        self.error.setText(error.text() if isinstance(error, UserError) else (error or ""))
        self.error.setVisible(error is not None)

    def _show_people(self, terminal: Terminal) -> None:
        for old in self.person_buttons:
            self.people_group.removeButton(old)
            old.hide()  # the keyboard leaves it now: kept until its deletion, it then went nowhere
            old.deleteLater()
        self.person_buttons = []
        self.chosen = None
        people = terminal.staff.people(active_only=True)
        for index, person in enumerate(people):
            choice = button(f"{person.name}\n{person.role}", role="person", name=f"Sign in as {person.name}")
            choice.setCheckable(True)
            choice.clicked.connect(lambda _=False, p=person: self.choose(p))
            choice.installEventFilter(self.choice_keys)
            self.people_group.addButton(choice)
            self.people_grid.addWidget(choice, index // PEOPLE_COLUMNS, index % PEOPLE_COLUMNS)
            choice.show()  # now, not at the layout's next turn: the focus given below would not take before it
            self.person_buttons.append(choice)
        state = terminal.register.current
        check = state.check
        if (check.items and state.phase not in FINISHED) or state.phase in LOCKED:
            amount = terminal.money.format(state.totals.total)
            whose = f" for {state.customer.display_name}" if state.customer else ""
            under_way = " Its charge is under way and goes on." if state.phase in LOCKED else ""
            self.open_check.setText(
                f"The open check is kept: {counted(check.item_count, 'item')}, {amount}{whose}.{under_way}"
            )
            self.open_check.show()
        else:
            self.open_check.hide()
        empty(self.pin)
        self._ask_new_pin(None)
        self.unlock_button.hide()
        if len(people) == 1:
            self.person_buttons[0].setChecked(True)
            self.choose(people[0])
        elif self.person_buttons:
            self.person_buttons[0].setFocus()

    def _show_shift_step(self, terminal: Terminal) -> None:
        who = terminal.till.actor or "nobody"
        self.shift_heading.setText(f"Open the shift, {who}")
        self.opening_float.setPlaceholderText(f"Float, e.g. {terminal.money.example(20000)}")
        empty(self.opening_float)
        self._show(TillMode.OPEN_SHIFT)
        self.opening_float.setFocus()

    # --- slots -----------------------------------------------------------------------------------

    def _ask_new_pin(self, person: Person | None) -> None:
        """The PIN fields for ``person``: their PIN, or, when a manager reset it, their new one twice."""
        new = person is not None and person.pin_to_set
        empty(self.pin_again)
        if person is not None and new:
            self.new_pin_text.setText(
                f"Choose your new PIN, {person.name}: a manager reset it. Type it twice; nobody else sees it. "
                f"{BadPin.hint}"
            )
        self.new_pin_text.setVisible(new)
        self.pin_again.setVisible(new)
        self.pin.setAccessibleName("New PIN" if new else "PIN")
        self.pin.setPlaceholderText("New PIN" if new else "PIN")
        self.sign_in_button.setText("&Set the PIN and sign in" if new else "&Sign in")
        self.sign_in_button.setAccessibleName("Set the new PIN and sign in" if new else "Sign in at the till")

    def choose(self, person: Person) -> None:
        if self.chosen is None or self.chosen.id != person.id or self.chosen.pin_to_set != person.pin_to_set:
            empty(self.pin)
        self.chosen = person
        self._say(None)
        self._ask_new_pin(person)
        self.unlock_button.setVisible(False)
        self.pin.setFocus()

    def on_pin_entered(self) -> None:
        """Return in the PIN field: sign in, or, for a new PIN, on to typing it again."""
        if self.chosen is not None and self.chosen.pin_to_set and not self.pin_again.text():
            self.pin_again.setFocus()
            return
        self.on_sign_in_clicked()

    def on_create_clicked(self) -> None:
        if self.terminal is None or self.tasks.busy:
            return
        if self.first_pin.text() != self.first_again.text():
            self._say("The two PINs differ. Type the same PIN twice.")
            return
        name, pin = self.first_name.text(), self.first_pin.text()
        empty(self.first_pin)
        empty(self.first_again)
        self._say(None)  # what was refused is not what is tried now
        self.tasks.run(self._create(self.terminal, name, pin), key="person", on_error=self._say)

    async def _create(self, terminal: Terminal, name: str, pin: str) -> None:
        await terminal.till.create_first_manager(name, pin)
        self._signed_in(terminal)

    def on_sign_in_clicked(self) -> None:
        if self.terminal is None or self.tasks.busy:
            return
        if self.chosen is None:
            self._say("Choose your name first.")
            return
        person = self.chosen
        pin, again = self.pin.text(), self.pin_again.text()
        empty(self.pin)
        empty(self.pin_again)
        self._say(None)  # "That is not Ana's PIN" is not said of the PIN being checked now
        if not person.pin_to_set:
            self.tasks.run(self._sign_in(self.terminal, person, pin), key="person", on_error=self._refused)
            return
        try:
            if pin != again:
                raise BadPin("The two PINs differ.", hint="Type the same new PIN twice.")
            check_pin(pin)
        except BadPin as exc:
            self._say(exc)
            self.pin.setFocus()
            return
        self.tasks.run(self._set_pin(self.terminal, person, pin), key="person", on_error=self._refused)

    async def _sign_in(self, terminal: Terminal, person: Person, pin: str) -> None:
        await terminal.till.sign_in(person.name, pin)
        self._signed_in(terminal)

    async def _set_pin(self, terminal: Terminal, person: Person, pin: str) -> None:
        await terminal.till.set_pin_and_sign_in(person.name, pin)
        self.messages.show_info(f"{person.name}'s new PIN is set.")
        self._signed_in(terminal)

    def _refused(self, error: UserError) -> None:
        terminal, chosen = self.terminal, self.chosen
        if isinstance(error, PinToSet | PinAlreadySet) and terminal is not None and chosen is not None:
            # a reset, or a PIN chosen on another till, came from the store meanwhile: ask for what is needed now
            fresh = terminal.staff.book.get(chosen.id)
            if fresh is not None:
                self.choose(fresh)
        self._say(error)
        self.unlock_button.setVisible(isinstance(error, PersonLocked))
        self.pin.setFocus()

    def _signed_in(self, terminal: Terminal) -> None:
        self._say(None)
        if terminal.shifts.current() is None:
            self._show_shift_step(terminal)
            return
        self.ready.emit()

    def on_unlock_clicked(self) -> None:
        terminal, person = self.terminal, self.chosen
        if terminal is None or person is None:
            return

        def unlock(approval: Approval | None) -> None:
            try:
                terminal.till.unlock(person.name, approval)
            except UserError as exc:
                self._say(exc)
                return
            self.unlock_button.hide()
            self._say(None)
            self.messages.show_info(f"{person.name} is unlocked and can sign in again.")
            self.pin.setFocus()

        self.prompt = with_approval(self, terminal.till, Guarded.MANAGE_PEOPLE, f"Unlock {person.name}?", unlock)

    def on_open_shift_clicked(self) -> None:
        terminal = self.terminal
        if terminal is None:
            return
        try:
            opening_float = terminal.money.parse(self.opening_float.text())
            shift = terminal.till.open_shift(opening_float)
        except UserError as exc:
            self._say(exc)
            return
        self._say(None)
        self.messages.show_info(  # news until the first sale moves the check on
            f"Shift {shift.id} is open with a float of {terminal.money.format(shift.opening_float)}.", topic=CHECK
        )
        self.ready.emit()
