"""The one typing rule of every request to the sandbox, and the bounds its numbers carry.

JSON has one kind of number, and pydantic's lax mode reads ``true`` as 1 and ``0`` as false,
while its strict mode refuses ``19117.0`` for an integer. Every route follows this instead:

- a boolean is ``true`` or ``false``, never a number or a string (in a query: the word true or false);
- a number is a finite JSON number, never a boolean or a string;
- an integer is a number with no fractional part: ``19117`` and ``19117.0`` are the same integer, as
  JSON Schema's ``integer`` says; ``19117.5`` is refused;
- every number has bounds in its model, so nothing out of range reaches SQLite (whose integers
  stop at 2⁶³), and a value out of range is a problem naming the field.

:data:`TYPE_RULE` says the same in the OpenAPI document.
"""

from __future__ import annotations

import math
import re
from typing import Annotated, Any

from pydantic import AfterValidator, BeforeValidator, Field
from pydantic_core import PydanticCustomError

from pos_terminal.sandbox.clock import iso, parse_iso_ms

INT32_MIN = -(2**31)
INT32_MAX = 2**31 - 1
TEN_YEARS = 10 * 365 * 86_400

TYPE_RULE = (
    "**Types, on every route.** A boolean is `true` or `false`, never a number or a string "
    "(in a query, the word `true` or `false`). A number is a finite JSON number, never a boolean or a string. "
    "An integer is a number with no fractional part: `19117` and `19117.0` are the same integer "
    "(as JSON Schema's `integer`), `19117.5` is refused. Every number has the bounds written in its schema. "
    "A wrong type or a value out of bounds is a 400 problem naming the field; text that is not text "
    "(a lone surrogate, a control character) and a broken rule of the check are 422."
)


def _integral(value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise PydanticCustomError("int_type", "Input should be an integer, not {kind}", {"kind": _kind(value)})
    if isinstance(value, float):
        if not math.isfinite(value) or not value.is_integer():
            raise PydanticCustomError("int_from_float", "Input should be an integer, without a fractional part")
        return int(value)
    return value


def _number(value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise PydanticCustomError("float_type", "Input should be a number, not {kind}", {"kind": _kind(value)})
    if isinstance(value, float) and not math.isfinite(value):
        raise PydanticCustomError("finite_number", "Input should be a finite number")
    return float(value)


def _boolean(value: Any) -> Any:
    if not isinstance(value, bool):
        raise PydanticCustomError("bool_type", "Input should be true or false, not {kind}", {"kind": _kind(value)})
    return value


def _query_boolean(value: Any) -> Any:
    if value in ("true", "false"):
        return value == "true"
    if isinstance(value, bool):
        return value
    raise PydanticCustomError("bool_parsing", "Input should be the word true or false")


_RFC_3339 = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?([Zz]|[+-][0-9]{2}:[0-9]{2})"
)


def _date_time(value: str) -> str:
    """An RFC 3339 ``date-time`` (what ``format: date-time`` promises), kept as the sandbox writes times."""
    if not _RFC_3339.fullmatch(value):
        raise PydanticCustomError("datetime_type", "Input should be an RFC 3339 date-time like 2026-11-22T09:00:00Z")
    try:
        return iso(parse_iso_ms(value)) or value
    except (ValueError, OverflowError):
        raise PydanticCustomError("datetime_parsing", "Input should be a date-time that exists") from None


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


# A field gives its bounds before the rule: ``Annotated[int, Field(ge=1, le=1000), Integral]``. In that order
# the bounds land on the number itself, and the OpenAPI document says minimum and maximum.
Integral = BeforeValidator(_integral)
Numeric = BeforeValidator(_number)
Boolean = Annotated[bool, BeforeValidator(_boolean)]
# A time a client sends, which the sandbox will answer back: checked, so an answer never breaks its own schema.
DateTime = Annotated[str, Field(json_schema_extra={"format": "date-time"}), AfterValidator(_date_time)]
QueryBoolean = Annotated[bool, BeforeValidator(_query_boolean)]
# The POS API's amounts: int32 on the wire. The range itself is a rule of the check (contract section 7):
# out of int32 is 422 VALIDATION_FAILED naming the field, so the bounds are written, not enforced, here.
Int32 = Annotated[
    int, Field(json_schema_extra={"format": "int32", "minimum": INT32_MIN, "maximum": INT32_MAX}), Integral
]
