"""The status bar names every state of the sign-in: its texts are keyed by the states' values, because the
window is painted before the session's module loads (pos_terminal.app)."""

from __future__ import annotations

from pos_terminal.services.session import SessionState
from pos_terminal.ui.statusbar import _CONNECTION


def test_every_session_state_has_its_words_in_the_status_bar() -> None:
    assert set(_CONNECTION) == {str(state) for state in SessionState}
