"""The transaction lifecycle: spellings, the state table, idempotent repeats."""

from __future__ import annotations

import itertools

import pytest

from pos_terminal.domain.lifecycle import (
    Action,
    TransitionRefused,
    TxState,
    allowed_actions,
    is_repeat,
    normalize_state,
    transition,
)
from pos_terminal.errors import UserError


@pytest.mark.parametrize(
    ("text", "state"),
    [
        ("authorized", TxState.AUTHORIZED),
        ("complete", TxState.COMPLETE),
        ("completed", TxState.COMPLETE),
        (" Completed\n", TxState.COMPLETE),
        ("canceled", TxState.CANCELED),
        ("cancelled", TxState.CANCELED),
        ("CANCELLED", TxState.CANCELED),
        ("Refunded", TxState.REFUNDED),
    ],
)
def test_normalize_state(text: str, state: TxState) -> None:
    assert normalize_state(text) is state


@pytest.mark.parametrize("text", ["", "pending", "authorised", "refund"])
def test_unknown_state_is_a_value_error(text: str) -> None:
    with pytest.raises(ValueError, match="unknown transaction state"):
        normalize_state(text)


def test_states_and_actions_speak_the_wire_spelling() -> None:
    assert [str(s) for s in TxState] == ["authorized", "complete", "canceled", "refunded"]
    assert {a: a.target for a in Action} == {
        Action.COMPLETE: TxState.COMPLETE,
        Action.CANCEL: TxState.CANCELED,
        Action.REFUND: TxState.REFUNDED,
    }
    assert str(Action.REFUND) == "refund"


def test_allowed_actions_follow_the_table() -> None:
    assert allowed_actions(TxState.AUTHORIZED) == {Action.COMPLETE, Action.CANCEL}
    assert allowed_actions(TxState.COMPLETE) == {Action.REFUND}
    assert allowed_actions(TxState.CANCELED) == frozenset()
    assert allowed_actions(TxState.REFUNDED) == frozenset()


@pytest.mark.parametrize(
    ("state", "action", "after"),
    [
        (TxState.AUTHORIZED, Action.COMPLETE, TxState.COMPLETE),
        (TxState.AUTHORIZED, Action.CANCEL, TxState.CANCELED),
        (TxState.COMPLETE, Action.REFUND, TxState.REFUNDED),
        (TxState.COMPLETE, Action.COMPLETE, TxState.COMPLETE),
        (TxState.CANCELED, Action.CANCEL, TxState.CANCELED),
        (TxState.REFUNDED, Action.REFUND, TxState.REFUNDED),
    ],
)
def test_transitions(state: TxState, action: Action, after: TxState) -> None:
    assert transition(state, action) is after


REFUSED = [
    (TxState.CANCELED, Action.COMPLETE),
    (TxState.REFUNDED, Action.COMPLETE),
    (TxState.COMPLETE, Action.CANCEL),
    (TxState.REFUNDED, Action.CANCEL),
    (TxState.AUTHORIZED, Action.REFUND),
    (TxState.CANCELED, Action.REFUND),
]


@pytest.mark.parametrize(("state", "action"), REFUSED)
def test_refused_transitions_say_why(state: TxState, action: Action) -> None:
    with pytest.raises(TransitionRefused) as caught:
        transition(state, action)
    assert isinstance(caught.value, UserError)
    assert caught.value.state is state and caught.value.action is action
    assert caught.value.sentence.endswith(".")


def test_every_pair_is_allowed_repeated_or_refused() -> None:
    for state, action in itertools.product(TxState, Action):
        allowed = action in allowed_actions(state) or is_repeat(state, action)
        assert allowed == ((state, action) not in REFUSED)
