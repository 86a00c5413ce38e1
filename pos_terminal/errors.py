"""Expected failures: each carries one plain sentence for a person and what to do next.

Anything raised that is *not* a :class:`UserError` is a bug and goes to the
crash handler; boundaries (CLI, presenters) catch ``UserError`` only and show
:meth:`UserError.text`.
"""

from __future__ import annotations


class UserError(Exception):
    """An expected failure. ``sentence`` says what happened, ``hint`` what to do next."""

    sentence: str = "Something went wrong."
    hint: str | None = None
    about: str | None = None  # what failed ("store", "printer"): the window's message goes when that is mended

    def __init__(self, sentence: str | None = None, *, hint: str | None = None) -> None:
        if sentence is not None:
            self.sentence = sentence
        if hint is not None:
            self.hint = hint
        super().__init__(self.text())

    def text(self) -> str:
        """The sentence and the hint, as shown to the cashier."""
        return f"{self.sentence} {self.hint}" if self.hint else self.sentence

    def __reduce__(self) -> tuple[object, ...]:
        """Pickled with its sentence and hint as they are: a report made in the child process raises its errors
        into the window, and rebuilt from its text alone an error would say its hint twice."""
        return (_restored, (type(self), dict(self.__dict__)))


def _restored(kind: type[UserError], state: dict[str, object]) -> UserError:
    error = kind.__new__(kind)
    error.__dict__.update(state)
    Exception.__init__(error, error.text())
    return error


class ConfigError(UserError):
    """A settings or data file cannot be read or is invalid."""

    hint = "Check the file, or remove it to start from the defaults."
