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

    def __init__(self, sentence: str | None = None, *, hint: str | None = None) -> None:
        if sentence is not None:
            self.sentence = sentence
        if hint is not None:
            self.hint = hint
        super().__init__(self.text())

    def text(self) -> str:
        """The sentence and the hint, as shown to the cashier."""
        return f"{self.sentence} {self.hint}" if self.hint else self.sentence


class ConfigError(UserError):
    """A settings or data file cannot be read or is invalid."""

    hint = "Check the file, or remove it to start from the defaults."
