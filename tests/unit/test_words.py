"""Counted nouns and waits as a person reads them."""

from __future__ import annotations

import pytest

from pos_terminal.domain.words import counted, duration


def test_a_count_takes_the_noun_s_number() -> None:
    assert (counted(1, "item"), counted(0, "item"), counted(3, "person", "people")) == ("1 item", "0 items", "3 people")


@pytest.mark.parametrize(
    ("seconds", "said"),
    [
        (20, "20 seconds"),  # a 20-second code was "expires in 0 minutes"
        (1, "1 second"),
        (60, "1 minute"),
        (150, "2 minutes 30 seconds"),
        (600, "10 minutes"),
        (899, "15 minutes"),
        (-5, "0 seconds"),
    ],
)
def test_a_wait_is_said_in_the_unit_that_fits_it(seconds: int, said: str) -> None:
    assert duration(seconds) == said
