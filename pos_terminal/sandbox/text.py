"""Text in a request must be text: no lone surrogates and no control characters but tab and line ends.

JSON can carry ``"\\ud800"``, which Python reads as a string that cannot be encoded as
UTF-8: stored, it broke every later list that included it. Such a request is refused
with 422 naming the field, through the base model of every request body (the error's
type is :data:`NOT_TEXT`, which the problem handler answers with 422 rather than 400).
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, field_validator
from pydantic_core import PydanticCustomError

NOT_TEXT = "not_text"
_NOT_TEXT = re.compile("[\ud800-\udfff]|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def text_problem(value: str) -> str | None:
    """Why ``value`` is not acceptable text, or None."""
    found = _NOT_TEXT.search(value)
    if found is None:
        return None
    if "\ud800" <= found.group() <= "\udfff":
        return "is not valid Unicode text (it holds a lone surrogate)"
    return "holds a control character"


class TextChecked(BaseModel):
    """Base of request bodies: every string field, and every string in a list field, is checked."""

    @field_validator("*", mode="after")
    @classmethod
    def _plain_text(cls, value: Any) -> Any:
        for text in value if isinstance(value, list) else (value,):
            if isinstance(text, str) and (problem := text_problem(text)) is not None:
                raise PydanticCustomError(NOT_TEXT, problem)
        return value
