"""Money: int32 bounds, formatting through Babel, parsing what a cashier types."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pos_terminal.domain.money import INT32_MAX, INT32_MIN, AmountInputError, MoneyFormat, check_int32
from pos_terminal.errors import ConfigError, UserError

US = MoneyFormat("en_US", "USD")
DE = MoneyFormat("de_DE", "EUR")
AU = MoneyFormat("en_AU", "AUD")


def test_int32_bounds() -> None:
    assert check_int32(INT32_MAX, "total") == INT32_MAX
    assert check_int32(INT32_MIN, "total") == INT32_MIN
    with pytest.raises(AmountInputError, match="total"):
        check_int32(INT32_MAX + 1, "total")
    assert issubclass(AmountInputError, UserError)


@pytest.mark.parametrize(
    ("money", "cents", "text"),
    [
        (US, 123456, "$1,234.56"),
        (US, 5, "$0.05"),
        (US, -1999, "-$19.99"),
        (AU, 1999, "$19.99"),
        (DE, 123456, "1.234,56\xa0€"),
        (US, INT32_MAX, "$21,474,836.47"),
    ],
)
def test_format(money: MoneyFormat, cents: int, text: str) -> None:
    assert money.format(cents) == text


@pytest.mark.parametrize(
    ("text", "cents"),
    [
        ("12", 1200),
        ("12.5", 1250),
        ("12.50", 1250),
        ("$12.50", 1250),
        (" $ 12.50 ", 1250),
        ("USD 3", 300),
        ("1,234.50", 123450),
        ("1,234,567", 123456700),
        (".5", 50),
        ("0", 0),
        ("21474836.47", INT32_MAX),
    ],
)
def test_parse_us(text: str, cents: int) -> None:
    assert US.parse(text) == cents


@pytest.mark.parametrize(
    ("text", "cents"),
    [
        ("1.234,50", 123450),
        ("12,5", 1250),
        ("12,50 €", 1250),
        ("€3", 300),
        ("1.234", 123400),
        ("12.50", 1250),  # a numeric keypad's dot
        ("EUR 7", 700),
    ],
)
def test_parse_de(text: str, cents: int) -> None:
    assert DE.parse(text) == cents


@pytest.mark.parametrize(
    "text", ["", "   ", "abc", "12.3.4", "1,2,3", "12.505", "$", "12..5", "1e5", "12,34", "NaN", "€12.50"]
)
def test_parse_rejects_with_one_sentence(text: str) -> None:
    with pytest.raises(AmountInputError) as caught:
        US.parse(text)
    assert caught.value.sentence.endswith(".")
    assert "\n" not in caught.value.text()


def test_more_than_two_decimals_is_named() -> None:
    with pytest.raises(AmountInputError, match="more than 2 decimals"):
        US.parse("1.234")
    with pytest.raises(AmountInputError, match="more than 2 decimals"):
        DE.parse("1,234")


@pytest.mark.parametrize(("money", "amount", "percent"), [(US, "12.50", "12.5"), (DE, "12,50", "12,5")])
def test_what_to_type_instead_is_written_as_the_locale_writes_amounts(
    money: MoneyFormat, amount: str, percent: str
) -> None:
    for text in ("abc", "", "1.2.3.4", "12,345,6"):
        with pytest.raises(AmountInputError) as caught:
            money.parse(text)
        assert caught.value.hint == f"Type it again, for example {amount}."
    for text in ("abc", "150", "1,005"):
        with pytest.raises(AmountInputError) as caught:
            money.parse_percent(text)
        assert caught.value.hint == f"Type a percent like {percent}."
    assert money.example(-20000) == f"-200{money.decimal_mark}00"


def test_negatives_only_when_allowed() -> None:
    with pytest.raises(AmountInputError, match="negative"):
        US.parse("-3")
    assert US.parse("-3", allow_negative=True) == -300
    assert US.parse("\u22122.50", allow_negative=True) == -250
    assert US.parse("-0") == 0


def test_out_of_int32_is_refused() -> None:
    with pytest.raises(AmountInputError, match="too large"):
        US.parse("21474836.48")
    with pytest.raises(AmountInputError, match="too large"):
        US.parse("9" * 40)
    assert US.parse("-21474836.48", allow_negative=True) == INT32_MIN


@pytest.mark.parametrize(
    ("text", "points"), [("10", 1000), ("12.5%", 1250), ("12.5 %", 1250), ("100", 10000), ("0.01", 1)]
)
def test_parse_percent(text: str, points: int) -> None:
    assert US.parse_percent(text) == points


def test_parse_percent_in_locale() -> None:
    assert DE.parse_percent("12,5 %") == 1250


@pytest.mark.parametrize("text", ["0", "100.01", "-5", "abc", "", "12.345"])
def test_parse_percent_rejects(text: str) -> None:
    with pytest.raises(AmountInputError):
        US.parse_percent(text)


def test_unknown_locale_or_currency_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="locale"):
        MoneyFormat("xx_NOPE", "USD")
    with pytest.raises(ConfigError, match="currency"):
        MoneyFormat("en_US", "QQQ")


@pytest.mark.parametrize(
    ("locale", "currency", "digits"), [("ja_JP", "JPY", 0), ("ko_KR", "KRW", 0), ("ar_KW", "KWD", 3)]
)
def test_a_currency_not_written_in_cents_is_refused(locale: str, currency: str, digits: int) -> None:
    """The service counts in cents: Babel wrote 1050 cents as "￥10" and -5 as "-￥0" for the yen."""
    with pytest.raises(ConfigError, match=f"{currency} is written with {digits} decimals") as refused:
        MoneyFormat(locale, currency)
    assert "AUD" in refused.value.text()


@given(st.integers(min_value=0, max_value=INT32_MAX), st.sampled_from([US, DE, AU, MoneyFormat("fr_FR", "EUR")]))
def test_format_then_parse_round_trips(cents: int, money: MoneyFormat) -> None:
    assert money.parse(money.format(cents)) == cents


@given(st.integers(min_value=INT32_MIN, max_value=-1))
def test_negative_round_trip(cents: int) -> None:
    assert US.parse(US.format(cents), allow_negative=True) == cents
