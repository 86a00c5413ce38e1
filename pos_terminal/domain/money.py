"""Money is ``int`` cents: int32 bounds, and one formatter/parser per locale and currency (Babel).

Amounts never pass through ``float``: text becomes cents by integer arithmetic on
the digits, and cents become text through :class:`~decimal.Decimal`. Babel loads with the first
formatter made (the cashier's first screen is painted before that).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal

from pos_terminal.errors import ConfigError, UserError

INT32_MIN = -(2**31)
INT32_MAX = 2**31 - 1

_MINUS_SIGNS = ("-", "\u2212", "\u2013")
_MAX_DIGITS = 12  # more integer digits than this cannot be an int32 amount in cents anyway
_DIGITS = re.compile(r"[0-9]+")
_KEYPAD_DECIMAL = re.compile(r"[0-9]+\.[0-9]{1,2}")


def in_int32(value: int) -> bool:
    return INT32_MIN <= value <= INT32_MAX


def check_int32(value: int, field: str) -> int:
    """``value`` unchanged when it fits in int32; else :class:`AmountInputError` naming ``field``."""
    if not in_int32(value):
        raise AmountInputError(f"The {field} {value} is too large for the service.")
    return value


class AmountInputError(UserError):
    """Text typed as an amount or a percent that cannot be used."""

    hint = "Type it again, for example 12.50."


_Learned = tuple[str, str, tuple[str, ...], tuple[str, str, str, str, str, str] | None]
_LEARNED: dict[tuple[str, str], _Learned] = {}  # what MoneyFormat learned from Babel, by locale and currency


@dataclass(frozen=True)
class MoneyFormat:
    """Cents to text and back for one locale (``en_AU``) and currency (``AUD``)."""

    locale: str
    currency: str
    _decimal: str = field(init=False, repr=False, compare=False)
    _group: str = field(init=False, repr=False, compare=False)
    _symbols: tuple[str, ...] = field(init=False, repr=False, compare=False)
    _fast: tuple[str, str, str, str, str, str] | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        learned = _LEARNED.get((self.locale, self.currency))
        if learned is not None:  # Babel's locale data is read once per locale and currency, not per formatter
            for name, value in zip(("_decimal", "_group", "_symbols", "_fast"), learned, strict=True):
                object.__setattr__(self, name, value)
            return
        from babel import Locale, UnknownLocaleError
        from babel.numbers import (
            UnknownCurrencyError,
            get_currency_precision,
            get_currency_symbol,
            get_decimal_symbol,
            get_group_symbol,
            validate_currency,
        )

        try:
            Locale.parse(self.locale)
        except (UnknownLocaleError, ValueError, TypeError):
            raise ConfigError(f"The locale “{self.locale}” is not known.") from None
        try:
            validate_currency(self.currency, self.locale)
        except UnknownCurrencyError:
            raise ConfigError(f"The currency “{self.currency}” is not known.") from None
        if (digits := get_currency_precision(self.currency)) != 2:
            # the service counts every amount in cents: written with no or three decimals, ¥10.50 would read ¥11
            raise ConfigError(
                f"The service counts money in cents, and {self.currency} is written with {digits} decimals.",
                hint="Choose a currency written with two, like AUD, NZD, SGD or GBP.",
            )
        symbols = {
            self.currency,
            get_currency_symbol(self.currency, self.locale),
            get_currency_symbol(self.currency, "en"),
        }
        object.__setattr__(self, "_decimal", get_decimal_symbol(self.locale))
        object.__setattr__(self, "_group", get_group_symbol(self.locale))
        object.__setattr__(self, "_symbols", tuple(sorted(symbols, key=len, reverse=True)))
        object.__setattr__(self, "_fast", None)
        object.__setattr__(self, "_fast", self._learn_layout())
        _LEARNED[(self.locale, self.currency)] = (self._decimal, self._group, self._symbols, self._fast)

    def learned(self) -> list[object]:
        """What this format learned from Babel, as JSON keeps it: for :meth:`teach` in a later process."""
        return [self._decimal, self._group, list(self._symbols), list(self._fast) if self._fast is not None else None]

    @staticmethod
    def teach(locale: str, currency: str, learned: object) -> bool:
        """Let formats of ``locale`` and ``currency`` start from what an earlier process learned (:meth:`learned`),
        without Babel; False, and nothing taught, when ``learned`` does not have that shape."""
        if not (isinstance(learned, list) and len(learned) == 4):
            return False
        decimal, group, symbols, fast = learned

        def texts(value: object, count: int | None = None) -> bool:
            return (
                isinstance(value, list)
                and all(isinstance(v, str) for v in value)
                and (count is None or len(value) == count)
            )

        if not (isinstance(decimal, str) and decimal and isinstance(group, str) and texts(symbols) and symbols):
            return False
        if fast is not None and not texts(fast, 6):
            return False
        layout = tuple(fast) if fast is not None else None
        _LEARNED[(locale, currency)] = (decimal, group, tuple(symbols), layout)
        return True

    def format(self, cents: int) -> str:
        """``1234`` → ``"$12.34"`` (as the locale writes it)."""
        if self._fast is None:
            return self._babel(cents)
        prefix, suffix, minus_prefix, minus_suffix, group, decimal = self._fast
        units, fraction = divmod(abs(cents), 100)
        digits = f"{units:,}".replace(",", group) if group != "," else f"{units:,}"
        if cents < 0:
            return f"{minus_prefix}{digits}{decimal}{fraction:02d}{minus_suffix}"
        return f"{prefix}{digits}{decimal}{fraction:02d}{suffix}"

    def _babel(self, cents: int) -> str:
        from babel.numbers import format_currency

        return format_currency(Decimal(cents).scaleb(-2), self.currency, locale=self.locale)

    def _learn_layout(self) -> tuple[str, str, str, str, str, str] | None:
        """How Babel lays out an amount here, when it is the plain one (groups of three, two decimals).

        Babel takes tens of microseconds per amount, too slow for a report of thousands of lines.
        The layout is read off Babel's own output and kept only if it reproduces Babel exactly on
        amounts of every length and sign; otherwise (Indian grouping, a minimum grouping, …) every
        amount goes through Babel.
        """
        shape = re.compile(r"(\D*)1(\D+)234(\D+)567(\D+)89(\D*)")
        plus, minus = shape.fullmatch(self._babel(123456789)), shape.fullmatch(self._babel(-123456789))
        if plus is None or minus is None or plus[2] != plus[3] or (minus[2], minus[3], minus[4]) != plus.group(2, 3, 4):
            return None
        layout = (plus[1], plus[5], minus[1], minus[5], plus[2], plus[4])
        object.__setattr__(self, "_fast", layout)
        samples = (0, 1, 7, 99, 100, 1_000, 99_999, 100_000, 123_456, 1_000_000, 12_345_678, INT32_MAX, INT32_MIN)
        if any(self.format(c) != self._babel(c) or self.format(-c) != self._babel(-c) for c in samples):
            return None
        return layout

    @property
    def decimal_mark(self) -> str:
        """What the locale writes between units and cents: ``"."`` in en_AU, ``","`` in de_DE."""
        return self._decimal

    def example(self, cents: int) -> str:
        """An amount as a cashier types it in this locale: ``1250`` → ``"12.50"``, or ``"12,50"`` in de_DE."""
        units, fraction = divmod(abs(cents), 100)
        return f"{'-' if cents < 0 else ''}{units}{self._decimal}{fraction:02d}"

    def parse(self, text: str, *, allow_negative: bool = False) -> int:
        """Cents from what a person typed: ``"12"``, ``"12.5"``, ``"$1,234.50"``, ``"1.234,50"`` (de_DE).

        In a locale whose decimal mark is a comma, ``"12.50"`` (one dot, 1–2 digits after it) is also
        read as a decimal, as a numeric keypad types it; ``"1.234"`` stays one thousand two hundred
        and thirty-four.
        """
        body = text.strip()
        for symbol in self._symbols:
            body = body.replace(symbol, "")
        hint = f"Type it again, for example {self.example(1250)}."
        negative, units, fraction = self._split(body, text, hint)
        if len(fraction) > 2:
            raise AmountInputError(f"“{text.strip()}” has more than 2 decimals.", hint=hint)
        cents = int(units or "0") * 100 + int(fraction.ljust(2, "0"))
        if negative and cents:
            if not allow_negative:
                raise AmountInputError(f"“{text.strip()}” is negative; an amount here must not be.", hint=hint)
            cents = -cents
        if not in_int32(cents):
            raise AmountInputError(f"“{text.strip()}” is too large an amount.", hint=hint)
        return cents

    def parse_percent(self, text: str) -> int:
        """Basis points from a percent: ``"10"`` → 1000, ``"12.5%"`` → 1250; more than 0 and at most 100 %."""
        hint = f"Type a percent like 12{self._decimal}5."
        negative, units, fraction = self._split(text.strip().removesuffix("%"), text, hint)
        if len(fraction) > 2:
            raise AmountInputError(f"“{text.strip()}” has more than 2 decimals.", hint=hint)
        points = int(units or "0") * 100 + int(fraction.ljust(2, "0"))
        if negative or not 0 < points <= 10000:
            raise AmountInputError(f"“{text.strip()}” is not a percent between 0 and 100.", hint=hint)
        return points

    def _split(self, body: str, original: str, hint: str) -> tuple[bool, str, str]:
        """(negative, integer digits, fraction digits) of a number written in this locale; ``hint`` says what to
        type instead."""
        body = "".join(ch for ch in body if not ch.isspace())
        if not body:
            raise AmountInputError("No amount was typed.", hint=hint)
        negative = False
        if body.startswith(_MINUS_SIGNS):
            negative, body = True, body[1:]
        elif body.startswith("+"):
            body = body[1:]
        if body.endswith(_MINUS_SIGNS) and not negative:  # "12.50-", as some tills print it
            negative, body = True, body[:-1]
        decimal, group = self._decimal, self._group
        if decimal not in body and decimal == "," and group == "." and _KEYPAD_DECIMAL.fullmatch(body):
            decimal, group = ".", ","
        units, sep, fraction = body.partition(decimal)
        if group and not group.isspace() and group in units:
            parts = units.split(group)
            if not (1 <= len(parts[0]) <= 3 and all(len(p) == 3 for p in parts[1:])):
                raise AmountInputError(f"“{original.strip()}” is not an amount.", hint=hint)
            units = "".join(parts)
        valid = (
            (units or fraction)
            and (not units or _DIGITS.fullmatch(units))
            and (not sep or _DIGITS.fullmatch(fraction))
            and len(units) <= _MAX_DIGITS
        )
        if not valid:
            if units.isdigit() and len(units) > _MAX_DIGITS:
                raise AmountInputError(f"“{original.strip()}” is too large an amount.", hint=hint)
            raise AmountInputError(f"“{original.strip()}” is not an amount.", hint=hint)
        return negative, units, fraction
