"""The POS transaction lifecycle (interface 3.1, contract section 2).

::

    (create) → authorized ─complete→ complete ─refund→ refunded
                   │
                   └─cancel (or automatically)→ canceled

Asking for the state a transaction is already in succeeds with no effect, so
every action can be re-sent safely until the service confirms it.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum

from pos_terminal.errors import UserError


class TxState(StrEnum):
    AUTHORIZED = "authorized"
    COMPLETE = "complete"
    CANCELED = "canceled"
    REFUNDED = "refunded"


_SPELLINGS = {"completed": TxState.COMPLETE, "cancelled": TxState.CANCELED}


def normalize_state(text: str, spellings: Mapping[str, str] | None = None) -> TxState:
    """A state as a service may spell it (``"Completed"``, ``"cancelled"``, or as a deployment's own ``spellings``
    say, lower case: ``{"settled": "complete"}``); ``ValueError`` when unknown."""
    key = text.strip().lower()
    if key in _SPELLINGS:
        return _SPELLINGS[key]
    if spellings and key in spellings:
        return TxState(spellings[key])
    try:
        return TxState(key)
    except ValueError:
        raise ValueError(f"unknown transaction state {text!r}") from None


class Action(StrEnum):
    """What the cashier can do to a transaction; ``target`` is the state it asks the service for."""

    COMPLETE = "complete"
    CANCEL = "cancel"
    REFUND = "refund"

    @property
    def target(self) -> TxState:
        return _TARGETS[self]


_TARGETS = {Action.COMPLETE: TxState.COMPLETE, Action.CANCEL: TxState.CANCELED, Action.REFUND: TxState.REFUNDED}

_CHANGES: dict[TxState, frozenset[Action]] = {
    TxState.AUTHORIZED: frozenset({Action.COMPLETE, Action.CANCEL}),
    TxState.COMPLETE: frozenset({Action.REFUND}),
    TxState.CANCELED: frozenset(),
    TxState.REFUNDED: frozenset(),
}

_REFUSALS: dict[tuple[TxState, Action], str] = {
    (TxState.CANCELED, Action.COMPLETE): "The transaction was canceled before it could be completed.",
    (TxState.REFUNDED, Action.COMPLETE): "The transaction has already been refunded.",
    (TxState.AUTHORIZED, Action.REFUND): "Only a completed transaction can be refunded.",
    (TxState.CANCELED, Action.REFUND): "A canceled transaction cannot be refunded; nothing was charged.",
    (TxState.COMPLETE, Action.CANCEL): "A completed transaction cannot be canceled; refund it instead.",
    (TxState.REFUNDED, Action.CANCEL): "The transaction has already been refunded.",
}


class TransitionRefused(UserError):
    """The action is not possible from the transaction's state."""

    def __init__(self, state: TxState, action: Action) -> None:
        self.state = state
        self.action = action
        super().__init__(_REFUSALS.get((state, action), f"The transaction is {state}; it cannot be changed that way."))


def allowed_actions(state: TxState) -> frozenset[Action]:
    """The actions that change ``state`` (what a cashier is offered).

    Repeating the action that led to ``state`` is also accepted by :func:`transition`
    (and the service), as a no-op, but is not offered.
    """
    return _CHANGES[state]


def is_repeat(state: TxState, action: Action) -> bool:
    """``action`` asks for the state the transaction is already in: it succeeds with no effect."""
    return action.target is state


def transition(state: TxState, action: Action) -> TxState:
    """The state after ``action``; :class:`TransitionRefused` when the table does not allow it."""
    if is_repeat(state, action) or action in _CHANGES[state]:
        return action.target
    raise TransitionRefused(state, action)
