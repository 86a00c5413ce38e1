"""The back office's people page: everyone who works the till, and a manager's changes to them.

Add, rename, change the role, reset the PIN (the person then chooses a new one at their next sign-in at the till:
a manager never knows it), unlock, disable and enable. Each asks the till for a manager
(:func:`~pos_terminal.ui.approval_dialog.with_approval`: at once for the manager at the till, else a manager's
PIN at the prompt) and hands the approval to the till, whose rules hold whatever asks (never the last manager;
a name is the store's to give). A refusal is one sentence beside the form, which keeps what was typed. Nobody
is deleted: history and reports still name them, so a person who leaves is disabled.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from enum import StrEnum
from typing import TYPE_CHECKING

from pos_terminal.domain.clock import utcnow
from pos_terminal.domain.people import MAX_NAME, Approval, Guarded, Person, Role, check_name
from pos_terminal.domain.pins import BadPin, check_pin
from pos_terminal.errors import UserError
from pos_terminal.services.terminal import Terminal
from pos_terminal.ui import widgets
from pos_terminal.ui.approval_dialog import ManagerPrompt, pin_field, with_approval
from pos_terminal.ui.people_model import PeopleModel
from pos_terminal.ui.tasks import STORE, Messages, Tasks, topic_of
from pos_terminal.ui.widgets import (
    BIG_BUTTON,
    BUTTON,
    button,
    confirm,
    empty,
    label,
    least_room,
    on_enter,
    wheel_when_focused,
)

if TYPE_CHECKING:
    from pos_terminal.services.till import Till

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut, QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLineEdit,
    QMessageBox,
    QStackedWidget,
    QTableView,
    QVBoxLayout,
    QWidget,
)

ACTION_COLUMNS = 4  # the buttons under the list, in rows of four: they fit beside the form at 1024×768


class Form(StrEnum):
    """What the form beside the list is asking for."""

    NONE = "none"
    ADD = "add"
    RENAME = "rename"
    ROLE = "role"


def _roles() -> QComboBox:
    box = QComboBox()
    for role in Role:
        box.addItem(str(role).capitalize(), role)
    return box


class PeoplePage(QWidget):
    """Signals: ``changed()`` after a change was saved (who may sign in at the till follows at once)."""

    changed = Signal()

    def __init__(self, messages: Messages, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAccessibleName("People")
        self.messages = messages
        self.tasks = Tasks(messages, self)
        self.terminal: Terminal | None = None
        self.form = Form.NONE
        self.subject: Person | None = None  # whom the open form changes (None: a new person)
        self.prompt: ManagerPrompt | None = None
        self.confirm_box: QMessageBox | None = None  # a manager at the till is asked before a PIN reset
        self.done_about: Person | None = None  # the person as the change said beside the form left them
        self.reason_topic: str | None = None  # what the refusal is about, when its cause can go (the store away)

        self.heading = label("People", role="heading")
        self.scope = label(role="hint", wrap=True)
        self.scope.setAccessibleName("Whose people these are")
        self.model = PeopleModel(self)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setAccessibleName("People")
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setWordWrap(False)  # one line a person, a long name shortened with "…"
        self.table.setTabKeyNavigation(False)  # Tab goes on to the buttons; the arrows move in the list
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(BUTTON)  # a row is a fingertip high
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)

        self.add_button = button("&New person…", name="Add a person")
        self.rename_button = button("&Rename…", name="Rename the person chosen")
        self.role_button = button("Change r&ole…", name="Change the role of the person chosen")
        self.pin_button = button("Reset P&IN…", name="Reset the PIN of the person chosen")
        self.unlock_button = button("&Unlock", name="Unlock the person chosen")
        self.disable_button = button("Disa&ble", name="Disable the person chosen")
        self.enable_button = button("&Enable", name="Enable the person chosen")
        self.person_buttons = (
            self.rename_button,
            self.role_button,
            self.pin_button,
            self.unlock_button,
            self.disable_button,
            self.enable_button,
        )
        actions = QGridLayout()
        for index, widget in enumerate((self.add_button, *self.person_buttons)):
            actions.addWidget(widget, index // ACTION_COLUMNS, index % ACTION_COLUMNS)

        self._build_forms()
        left = QVBoxLayout()
        left.addWidget(self.heading)
        left.addWidget(self.scope)
        left.addWidget(self.table, 1)
        left.addLayout(actions)
        columns = QHBoxLayout(self)
        columns.setContentsMargins(8, 8, 8, 8)
        columns.addLayout(left, 3)
        columns.addWidget(self.panel, 2)
        wheel_when_focused(self)
        self._connect_signals()
        self._show_form(Form.NONE)
        self.refresh()

    def _build_forms(self) -> None:
        self.name = QLineEdit()
        self.name.setMaxLength(MAX_NAME)
        self.name.setAccessibleName("Name")
        self.name.setPlaceholderText("As colleagues know them")
        self.role = _roles()
        self.role.setAccessibleName("Role")
        self.pin = pin_field("PIN")
        self.pin_again = pin_field("The same PIN again")
        add = QWidget()
        add_form = widgets.form()
        add_form.setContentsMargins(0, 0, 0, 0)
        add_form.addRow("Na&me", self.name)
        add_form.addRow("Ro&le", self.role)
        add_form.addRow("PIN", self.pin)
        add_form.addRow("PIN a&gain", self.pin_again)
        widgets.level_labels(add_form)
        add.setLayout(add_form)

        self.new_name = QLineEdit()
        self.new_name.setMaxLength(MAX_NAME)
        self.new_name.setAccessibleName("New name")
        rename = QWidget()
        rename_form = widgets.form()
        rename_form.setContentsMargins(0, 0, 0, 0)
        rename_form.addRow("New na&me", self.new_name)
        widgets.level_labels(rename_form)
        rename.setLayout(rename_form)

        self.new_role = _roles()
        self.new_role.setAccessibleName("New role")
        role = QWidget()
        role_form = widgets.form()
        role_form.setContentsMargins(0, 0, 0, 0)
        role_form.addRow("New ro&le", self.new_role)
        widgets.level_labels(role_form)
        role.setLayout(role_form)

        self.form_heading = label(role="heading", wrap=True)
        self.form_heading.setAccessibleName("What the form does")
        self.form_hint = label(role="hint", wrap=True)
        self.forms = QStackedWidget()
        self.form_pages = {Form.NONE: QWidget(), Form.ADD: add, Form.RENAME: rename, Form.ROLE: role}
        for page in self.form_pages.values():
            self.forms.addWidget(page)
        self.reason = label(role="reason", wrap=True)
        self.reason.setAccessibleName("Why not")
        least_room(self.reason, 2)  # a refusal coming or going never moves the form's buttons
        self.reason.hide()
        self.done = label(role="hint", wrap=True)
        self.done.setAccessibleName("What was changed")
        self.done.hide()
        self.submit_button = button("Save", role="primary", name="Save")
        self.cancel_button = button("Cancel", name="Cancel the form")
        self.cancel_button.setMinimumHeight(BIG_BUTTON)  # side by side with the form's button: one height
        self.form_buttons = QWidget()
        row = QHBoxLayout(self.form_buttons)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.submit_button, 2)
        row.addWidget(self.cancel_button, 1)
        self.panel = QFrame()
        self.panel.setAccessibleName("Form")
        self.panel.setMinimumWidth(360)
        self.panel.setMaximumWidth(560)
        panel = QVBoxLayout(self.panel)
        panel.setContentsMargins(8, 0, 0, 0)
        panel.addWidget(self.form_heading)
        panel.addWidget(self.form_hint)
        panel.addWidget(self.forms)
        said = QGridLayout()  # a refusal and what was changed take turns in one place, whose room is kept
        said.addWidget(self.reason, 0, 0)
        said.addWidget(self.done, 0, 0)
        panel.addLayout(said)
        panel.addWidget(self.form_buttons)
        panel.addStretch(1)

    def _connect_signals(self) -> None:
        self.table.selectionModel().currentRowChanged.connect(lambda *_: self._update_buttons())
        self.table.doubleClicked.connect(lambda _: self.on_rename_clicked())
        self.add_button.clicked.connect(self.on_add_clicked)
        self.rename_button.clicked.connect(self.on_rename_clicked)
        self.role_button.clicked.connect(self.on_role_clicked)
        self.pin_button.clicked.connect(self.on_pin_clicked)
        self.unlock_button.clicked.connect(self.on_unlock_clicked)
        self.disable_button.clicked.connect(self.on_disable_clicked)
        self.enable_button.clicked.connect(self.on_enable_clicked)
        self.submit_button.clicked.connect(self.on_submit_clicked)
        self.cancel_button.clicked.connect(self.on_cancel_clicked)
        self.messages.resolved.connect(self._on_resolved)
        for field in (self.name, self.pin, self.pin_again, self.new_name):
            field.returnPressed.connect(self.on_submit_clicked)
        for box in (self.role, self.new_role):
            on_enter(box, self.on_submit_clicked)
        escape = QShortcut(QKeySequence(Qt.Key.Key_Escape), self.panel)
        escape.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        escape.activated.connect(self.on_cancel_clicked)

    # --- the terminal ----------------------------------------------------------------------------

    def attach(self, terminal: Terminal) -> None:
        self.terminal = terminal
        self.refresh()

    def detach(self) -> None:
        self.tasks.cancel_all()
        self.terminal = None
        self.submit_button.setEnabled(True)  # a change canceled half-way leaves nothing pending
        self._show_form(Form.NONE)
        self.refresh()

    def refresh(self) -> None:
        """Show everyone as they are now (another till may have changed them, a lock may have ended), keeping the
        person chosen and any form being filled in."""
        terminal = self.terminal
        chosen = self.selected()
        self.model.at = terminal.till.now() if terminal is not None else utcnow()
        self.model.replace_rows(terminal.staff.people() if terminal is not None else [])
        self._choose(chosen.id if chosen is not None else None)
        self._forget_done_if_changed()
        if terminal is None:
            self.scope.setText("Not connected.")
        elif terminal.store.linked:
            self.scope.setText("The store's people: a change here reaches every till. A manager approves each change.")
        else:
            self.scope.setText("This till's people (it stands alone). A manager approves each change.")
        self.add_button.setEnabled(terminal is not None)

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 (Qt's name)
        """Shown again (the tab, or the workspace after the till's sign-in): people as they are now."""
        super().showEvent(event)
        if self.terminal is not None:
            self.refresh()

    def _forget_done_if_changed(self) -> None:
        """What was changed is said while the person is as the change left them: "Anna sets a new PIN at their
        next sign-in" goes once she has set it (or anything else about her changed)."""
        about = self.done_about
        if about is None or self.done.isHidden():
            return
        now = next((person for person in self.model.rows if person.id == about.id), None)
        if now != about:
            self.done.hide()
            self.done_about = None

    def _on_resolved(self, topic: str) -> None:
        """A refusal whose cause is gone (the store is reached again) goes; the form keeps what was typed."""
        if self.reason_topic is not None and topic == self.reason_topic:
            self._say(None)

    def _choose(self, person_id: int | None) -> None:
        row = self.model.row_of(person_id) if person_id is not None else None
        if row is None and self.model.rows:
            row = 0
        if row is not None:
            self.table.selectRow(row)
        self._update_buttons()

    def selected(self) -> Person | None:
        index = self.table.currentIndex()
        return self.model.row(index.row()) if index.isValid() else None

    def _update_buttons(self) -> None:
        """What can be done to the person chosen. Disable stays open for the last manager: the till's refusal says
        why, where a greyed button would not."""
        person = self.selected() if self.terminal is not None else None
        for widget in (self.rename_button, self.role_button, self.pin_button):
            widget.setEnabled(person is not None)
        self.unlock_button.setEnabled(person is not None and (person.wrong_pins > 0 or person.locked_until is not None))
        self.disable_button.setEnabled(person is not None and person.active)
        self.enable_button.setEnabled(person is not None and not person.active)

    # --- the forms -------------------------------------------------------------------------------

    def _show_form(self, form: Form, subject: Person | None = None) -> None:
        self.form = form
        self.subject = subject
        who = subject.name if subject is not None else ""
        headings = {
            Form.NONE: ("", ""),
            Form.ADD: ("Add a person", f"They sign in at the till with this name and PIN. {BadPin.hint}"),
            Form.RENAME: (f"Rename {who}", "History and reports keep the name each record was written with."),
            Form.ROLE: (f"Change {who}'s role", "Managers approve refunds, large discounts and changes like these."),
        }
        heading, hint = headings[form]
        self.form_heading.setText(heading or "Choose a person, then what to change")
        self.form_hint.setText(
            hint or "Nobody is ever deleted: history and reports still name them. Disable someone who has left."
        )
        self.submit_button.setText(
            {Form.ADD: "Add", Form.RENAME: "Rename", Form.ROLE: "Change the role"}.get(form, "Save")
        )
        self.submit_button.setAccessibleName(self.submit_button.text())
        self.forms.setCurrentWidget(self.form_pages[form])
        self.forms.setVisible(form is not Form.NONE)
        self.form_buttons.setVisible(form is not Form.NONE)
        self._say(None)

    def _open(self, form: Form, subject: Person | None = None) -> None:
        """A fresh form (what another one held is gone: it was canceled)."""
        if self.terminal is None or (form is not Form.ADD and subject is None):
            return
        for field in (self.name, self.pin, self.pin_again, self.new_name):
            empty(field)
        self._show_form(form, subject)
        self.done.hide()
        if form is Form.ADD:
            self.role.setCurrentIndex(self.role.findData(Role.CASHIER))
            self.name.setFocus()
        elif form is Form.RENAME and subject is not None:
            self.new_name.setText(subject.name)
            self.new_name.selectAll()
            self.new_name.setFocus()
        elif form is Form.ROLE and subject is not None:
            other = Role.CASHIER if subject.role is Role.MANAGER else Role.MANAGER
            self.new_role.setCurrentIndex(self.new_role.findData(other))
            self.new_role.setFocus()

    def _say(self, error: UserError | str | None) -> None:
        # a refusal for want of the store goes once it is reached again; one about what was typed stays with it
        topic = topic_of(error) if isinstance(error, UserError) else None
        self.reason_topic = topic if topic == STORE else None
        self.reason.setText(error.text() if isinstance(error, UserError) else (error or ""))
        self.reason.setVisible(error is not None)
        if error is not None:
            self.done.hide()

    def on_add_clicked(self) -> None:
        self._open(Form.ADD)

    def on_rename_clicked(self) -> None:
        self._open(Form.RENAME, self.selected())

    def on_role_clicked(self) -> None:
        self._open(Form.ROLE, self.selected())

    def on_pin_clicked(self) -> None:
        """A reset leaves the new PIN to the person, at their next sign-in at the till (until then no PIN opens)."""
        terminal, person = self.terminal, self.selected()
        if terminal is None or person is None or self.tasks.busy:
            return
        question = f"Reset {person.name}'s PIN?"
        detail = "They choose a new one at their next sign-in at the till; until then nobody can sign in as them."

        def reset() -> None:
            self._change(
                f"{question} {detail}",
                lambda till, approval: till.reset_pin(person.name, None, approval),
                lambda done: f"{done.name} sets a new PIN at their next sign-in.",
            )

        if terminal.till.may(Guarded.MANAGE_PEOPLE):
            self.confirm_box = confirm(self, "Reset PIN", question, detail, reset)  # the prompt asks a cashier
        else:
            reset()

    def on_cancel_clicked(self) -> None:
        if self.form is not Form.NONE and not self.tasks.busy:
            self._open_none()

    def _open_none(self) -> None:
        for field in (self.pin, self.pin_again):
            empty(field)  # no PIN stays in a hidden field
        self._show_form(Form.NONE)
        self.table.setFocus()

    def on_submit_clicked(self) -> None:
        """Check what was typed, then ask for a manager, then ask the till: nothing is asked of a manager that the
        till would refuse for what was typed."""
        if self.terminal is None or self.tasks.busy or self.form is Form.NONE:
            return
        try:
            self._submit(self.form, self.subject)
        except UserError as exc:
            self._refused(exc)

    def _submit(self, form: Form, subject: Person | None) -> None:
        if form is Form.ADD:
            name, role = check_name(self.name.text()), Role(self.role.currentData())
            pin = self._new_pin(self.pin, self.pin_again)
            self._change(
                f"Add {name} as a {role}?",
                lambda till, approval: till.add_person(name, role, pin, approval),
                lambda person: f"{person.name} is added as a {person.role}: they can sign in at the till now.",
                from_form=True,
            )
            return
        assert subject is not None
        if form is Form.RENAME:
            new_name = check_name(self.new_name.text())
            self._change(
                f"Rename {subject.name} to {new_name}?",
                lambda till, approval: till.rename(subject.name, new_name, approval),
                lambda person: f"{subject.name} is now called {person.name}.",
                from_form=True,
            )
        elif form is Form.ROLE:
            role = Role(self.new_role.currentData())
            self._change(
                f"Make {subject.name} a {role}?",
                lambda till, approval: _now(till.set_role(subject.name, role, approval)),
                lambda person: f"{person.name} is a {person.role} now.",
                from_form=True,
            )

    def _new_pin(self, pin: QLineEdit, again: QLineEdit) -> str:
        if pin.text() != again.text():
            raise BadPin("The two PINs differ.", hint="Type the same PIN twice.")
        return check_pin(pin.text())

    def on_unlock_clicked(self) -> None:
        if (person := self.selected()) is not None:
            self._change(
                f"Unlock {person.name}?",
                lambda till, approval: _now(till.unlock(person.name, approval)),
                lambda done: f"{done.name} is unlocked and can sign in again.",
            )

    def on_disable_clicked(self) -> None:
        if (person := self.selected()) is not None:
            self._change(
                f"Disable {person.name}? They can no longer sign in; history keeps their name.",
                lambda till, approval: _now(till.disable(person.name, approval)),
                lambda done: f"{done.name} is disabled and can no longer sign in.",
            )

    def on_enable_clicked(self) -> None:
        if (person := self.selected()) is not None:
            self._change(
                f"Enable {person.name}?",
                lambda till, approval: _now(till.enable(person.name, approval)),
                lambda done: f"{done.name} is enabled and can sign in again with their PIN.",
            )

    # --- a change, once a manager approved it ----------------------------------------------------

    def _change(
        self,
        question: str,
        make: Callable[[Till, Approval | None], Awaitable[Person]],
        said: Callable[[Person], str],
        *,
        from_form: bool = False,
    ) -> None:
        """Ask the till for a manager (the prompt when the person at the till is not one), then make the change;
        the form closes once what it asked for is done (a form left open beside an unlock or a disable stays)."""
        terminal = self.terminal
        if terminal is None or self.tasks.busy:
            return
        self._say(None)

        def then(approval: Approval | None) -> None:
            if self.terminal is terminal:
                self.submit_button.setEnabled(False)
                self.tasks.run(
                    self._make(terminal, make, approval, said, from_form), key="change", on_error=self._refused
                )

        self.prompt = with_approval(self, terminal.till, Guarded.MANAGE_PEOPLE, question, then)

    async def _make(
        self,
        terminal: Terminal,
        make: Callable[[Till, Approval | None], Awaitable[Person]],
        approval: Approval | None,
        said: Callable[[Person], str],
        from_form: bool,
    ) -> None:
        person = await make(terminal.till, approval)
        self.submit_button.setEnabled(True)
        if from_form:
            self._open_none()
        self.refresh()
        self._choose(person.id)
        self.done.setText(said(person))
        self.done.show()
        self.done_about = next((row for row in self.model.rows if row.id == person.id), person)
        self.changed.emit()

    def _refused(self, error: UserError) -> None:
        """The till's sentence beside the form; what was typed stays, but for a PIN that cannot be one (it is not
        shown, so it is typed again)."""
        self.submit_button.setEnabled(True)
        self.done.hide()
        self._say(error)
        if isinstance(error, BadPin) and self.form is Form.ADD:
            empty(self.pin)
            empty(self.pin_again)
            self.pin.setFocus()
        elif self.form is Form.ADD:
            self.name.setFocus()
        elif self.form is Form.RENAME:
            self.new_name.setFocus()


async def _now(person: Person) -> Person:
    """A change the till makes at once, awaited like the ones that hash a PIN or ask the store."""
    return person
