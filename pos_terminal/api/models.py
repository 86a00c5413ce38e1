"""Wire models of the service (spec sections 2.1–2.8): snake_case attributes, camelCase on the wire.

Reading is tolerant: unknown fields are ignored, optional fields may be missing
or null, states are normalised (``completed`` → ``complete``), times may come
with or without a zone (UTC is assumed). Requests are built strictly: int32
amounts, required fields present.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from functools import cache
from typing import Annotated, Any

from pydantic import (
    AliasChoices,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictInt,
    TypeAdapter,
    ValidationError,
    ValidationInfo,
    ValidatorFunctionWrapHandler,
    WrapValidator,
)
from pydantic.alias_generators import to_camel
from pydantic.dataclasses import dataclass as wire_dataclass

from pos_terminal.domain.clock import utcnow
from pos_terminal.domain.lifecycle import TxState, normalize_state
from pos_terminal.domain.money import INT32_MAX, INT32_MIN
from pos_terminal.domain.text import person_name


def _to_utc(value: datetime | None) -> datetime | None:
    if value is None:
        return None
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def _null_is_empty(value: Any) -> Any:
    return [] if value is None else value


# The wire shapes of a time that datetime.fromisoformat reads exactly as pydantic does (and several times faster);
# anything else (other shapes, errors) goes to pydantic's own parsing.
_PLAIN_TIME = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]{1,6})?(?:Z|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])?"
)


def _service_time(text: str) -> bool:
    """``YYYY-MM-DDTHH:MM:SS.fffZ`` or ``YYYY-MM-DDTHH:MM:SSZ``, as the service writes them: checked by position,
    cheaper than the pattern (fromisoformat rejects any non-digit left in the other positions)."""
    size = len(text)
    return (
        ((size == 24 and text[19] == ".") or size == 20)
        and text[-1] == "Z"
        and text[4] == "-"
        and text[7] == "-"
        and text[10] == "T"
        and text[13] == ":"
        and text[16] == ":"
        and text.isascii()
    )


def _read_time(value: Any, handler: ValidatorFunctionWrapHandler) -> datetime | None:
    """Blank is none, no zone is UTC, any zone is converted to UTC."""
    if isinstance(value, str):
        if _service_time(value) or _PLAIN_TIME.fullmatch(value):
            try:
                moment = datetime.fromisoformat(value)
            except ValueError:
                pass  # e.g. 30 February: pydantic says what is wrong
            else:
                return moment if moment.tzinfo is UTC else _to_utc(moment)
        elif value.strip() == "":
            return None
    return _to_utc(handler(value))


# Only on the time fields (far cheaper than a catch-all validator looking at every field of every record), and
# only when there is a value: null is read as None before it.
Time = Annotated[datetime, WrapValidator(_read_time)] | None
Int32 = Annotated[StrictInt, Field(ge=INT32_MIN, le=INT32_MAX)]


class WireModel(BaseModel):
    """Read tolerantly: aliases or field names, extra fields ignored; every time field is a :data:`Time` (UTC).

    Every model here builds its validator when first used (``defer_build``), not at import: the first
    answer from the service is read after the window has shown, not before.
    """

    model_config = ConfigDict(
        defer_build=True, alias_generator=to_camel, populate_by_name=True, extra="ignore", frozen=True
    )


def _state(value: Any, info: ValidationInfo) -> Any:
    """The spec's spellings and its prose's, and a deployment's own from the settings (the client's context)."""
    if not isinstance(value, str):
        return value
    return normalize_state(value, info.context.get("states") if isinstance(info.context, dict) else None)


State = Annotated[TxState, BeforeValidator(_state)]


@cache
def _time_adapter() -> TypeAdapter[datetime | None]:
    """Built when a customer's time first fails to read, not at import (the window shows before any answer)."""
    return TypeAdapter(Time)


def _loosened(data: Mapping[str, Any]) -> dict[str, Any]:
    """A customer's descriptive fields as far as they can be read: a number as its digits, anything else that is
    not text, and a time that cannot be read, left out."""
    loose = dict(data)
    for key, value in data.items():
        field = _DESCRIBING.get(key)
        if field is None or value is None:
            continue
        if field not in _TIMES and not isinstance(value, str):
            number = isinstance(value, int | float) and not isinstance(value, bool)
            loose[key] = str(value) if number else None
        elif field in _TIMES:
            try:
                _time_adapter().validate_python(value)
            except ValidationError:
                loose[key] = None
    return loose


class Customer(WireModel):
    """POS customer (2.5)."""

    customer_id: str
    first_name: str | None = None
    last_name: str | None = None
    gender: str | None = None
    dob: Time = None
    member_no: str | None = None
    check_in_id: str | None = None
    check_in_number: str | None = None
    check_in_date: Time = None
    notes: str | None = None

    @property
    def display_name(self) -> str:
        name = person_name(self.first_name, self.last_name)
        return name or self.customer_id

    def reference(self) -> dict[str, Any]:
        """The customer object of a create request."""
        return self.model_dump(by_alias=True, exclude_none=True, mode="json")


class Line(WireModel):
    id: str | None = None
    name: str | None = None
    amount: int = 0
    tax: int | None = None


class Item(Line):
    quantity: int = 1


class PaymentLine(WireModel):
    method: str | None = None
    amount: int = 0


class Transaction(WireModel):
    """POS transaction record (2.7)."""

    transaction_id: str
    state: State
    ref_id: str | None = None
    terminal_id: str | None = None
    created: Time = None
    updated: Time = None
    completed: Time = None
    charge_amount: int = 0
    charged_amount: int | None = None
    modified_amount: int | None = None
    item_total: int = 0
    item_tax: int | None = None
    discount_total: int | None = None
    discount_tax: int | None = None
    total: int = 0
    tax: int | None = None
    balance: int = 0
    tip_amount: int = 0
    fee_amount: int = 0
    customer: Customer | None = None
    # a record of a check sent without discounts or payments carries them as null: read that as none
    items: Annotated[list[Item], BeforeValidator(_null_is_empty)] = Field(default_factory=list)
    discounts: Annotated[list[Line], BeforeValidator(_null_is_empty)] = Field(default_factory=list)
    payments: Annotated[list[PaymentLine], BeforeValidator(_null_is_empty)] = Field(default_factory=list)
    modifiers: Annotated[list[Line], BeforeValidator(_null_is_empty)] = Field(default_factory=list)

    @property
    def amount_charged(self) -> int:
        """What the customer actually paid through the service (loyalty included)."""
        return self.charged_amount if self.charged_amount is not None else self.charge_amount


_ROW = ConfigDict(defer_build=True, alias_generator=to_camel, populate_by_name=True, extra="ignore")


@wire_dataclass(frozen=True, slots=True, config=_ROW)
class CustomerName:
    """Of a customer, what a report's row shows."""

    customer_id: str | None = None
    first_name: str | None = None
    last_name: str | None = None

    @property
    def display_name(self) -> str:
        name = person_name(self.first_name, self.last_name)
        return name or self.customer_id or ""


@wire_dataclass(frozen=True, slots=True, config=_ROW)
class TransactionRow:
    """A transaction record (2.7) read only as far as a report needs: its figures, times and customer's name.

    Read the same tolerant way as :class:`Transaction`; a slotted object, a twentieth of a whole record in
    memory, so a day's listing never needs a day's worth of models at once.
    """

    transaction_id: str
    state: State
    ref_id: str | None = None
    terminal_id: str | None = None
    created: Time = None
    updated: Time = None
    completed: Time = None
    total: int = 0
    charge_amount: int = 0
    charged_amount: int | None = None
    tip_amount: int = 0
    fee_amount: int = 0
    customer: CustomerName | None = None

    @property
    def amount_charged(self) -> int:
        return self.charged_amount if self.charged_amount is not None else self.charge_amount


@wire_dataclass(frozen=True, slots=True, config=_ROW)
class TransactionRef:
    """Of a transaction record (2.7), what the search for a lost charge looks at: its id, its ``refId`` and when it
    was created. Some 250 bytes a sale, a third of a report's row: a search reads an hour and more of the till's
    sales at once, and keeps the few it finds."""

    transaction_id: str
    ref_id: str | None = None
    created: Time = None


class CreateLine(BaseModel):
    model_config = ConfigDict(defer_build=True, extra="forbid")
    id: str | None = None
    name: str
    amount: Int32
    tax: Int32 | None = None


class CreateItem(CreateLine):
    quantity: Annotated[StrictInt, Field(ge=1, le=INT32_MAX)]


class CreatePayment(BaseModel):
    model_config = ConfigDict(defer_build=True, extra="forbid")
    method: str
    amount: Int32


class CreateCustomer(BaseModel):
    model_config = ConfigDict(defer_build=True, extra="allow", alias_generator=to_camel, populate_by_name=True)
    customer_id: str
    check_in_id: str


class CreateTransactionRequest(BaseModel):
    """Create request (2.6), validated before it leaves; dumped by alias."""

    model_config = ConfigDict(defer_build=True, alias_generator=to_camel, populate_by_name=True, extra="forbid")

    points_earned: Int32 | None = None
    ref_id: Annotated[str, Field(min_length=1, max_length=64)]
    terminal_id: Annotated[str | None, Field(max_length=64)] = None
    charge_amount: Int32
    item_total: Int32
    item_tax: Int32 | None = None
    discount_total: Int32 | None = None
    discount_tax: Int32 | None = None
    total: Int32
    tax: Int32 | None = None
    balance: Int32
    customer: CreateCustomer
    items: Annotated[list[CreateItem], Field(min_length=1)]
    discounts: list[CreateLine] | None = None
    payments: list[CreatePayment] | None = None

    def wire(self) -> dict[str, Any]:
        return self.model_dump(by_alias=True, exclude_none=True, mode="json")


class CreateAnswer(WireModel):
    """The create response: ``{"state": "authorized"}``, perhaps with an id a deployment adds."""

    state: State = TxState.AUTHORIZED
    transaction_id: str | None = Field(default=None, validation_alias=AliasChoices("transactionId", "id"))


class Summary(WireModel):
    """Summary record (2.8). ``count`` and ``total`` must be there: without them an object is no summary (a wrong
    route's answer would read as a day with nothing sold); the other figures may be left out as zero."""

    terminal_id: str | None = None
    total: int
    fees: int = 0
    payout: int = 0
    tips: int = 0
    count: int
    start: Time = Field(default=None, validation_alias=AliasChoices("from", "start"))
    end: Time = Field(default=None, validation_alias=AliasChoices("to", "end"))


# --- authorization service ----------------------------------------------------------------------------------


class TokenResponse(BaseModel):
    """Token response (2.1); ``expires_in`` absent means the token does not expire."""

    model_config = ConfigDict(defer_build=True, extra="ignore")

    access_token: Annotated[str, Field(min_length=1)]
    token_type: str = "bearer"  # noqa: S105 - the token type, not a secret
    expires_in: int | None = None
    scope: str | None = None
    resource_owner_type: str | None = None
    refresh_token: str | None = None


class DeviceAuthorization(BaseModel):
    """RFC 8628 §3.2, with the moment it was received so the countdown survives a slow poll."""

    model_config = ConfigDict(defer_build=True, extra="ignore")

    device_code: str
    user_code: str
    verification_uri: str
    verification_uri_complete: str | None = None
    expires_in: int = 600
    interval: int = 5
    received_at: datetime = Field(default_factory=utcnow)

    @property
    def expires_at(self) -> datetime:
        return self.received_at + timedelta(seconds=self.expires_in)


# --- payments API (2.3, 2.4) --------------------------------------------------------------------------------


class PaymentMerchant(WireModel):
    id: str
    name: str | None = None


class PaymentCustomer(WireModel):
    id: str | None = None
    first_name: str | None = None
    last_name: str | None = None
    photo: str | None = None


class PaymentTransaction(WireModel):
    id: str
    created_at: Time = None
    updated_at: Time = None
    completed_at: Time = None
    merchant: PaymentMerchant | None = None
    total: int = 0
    tax: int = 0
    customer: PaymentCustomer | None = None
    items: Annotated[list[Item], BeforeValidator(_null_is_empty)] = Field(default_factory=list)


class NonceResource(WireModel):
    nonce: str
    transaction: PaymentTransaction


# What only describes a customer (all but the two a charge needs), by either name a deployment may send it under
_DESCRIBING = {
    name: field
    for field in Customer.model_fields
    if field not in ("customer_id", "check_in_id")
    for name in (field, to_camel(field))
}
_TIMES = frozenset({"dob", "check_in_date"})


def loosened(kind: type[Any], data: Any) -> dict[str, Any] | None:
    """An entry of ``kind`` that failed to read, with what only describes its customer read as far as it can be; None
    when there is nothing of the kind to loosen.

    Only ``customerId`` and ``checkInId`` are needed to charge: a deployment that writes the rest differently (a
    birthday as 12/04/1990, a member number as a number) must not keep the cashier from charging the customer, nor
    a record from its list. Asked only once an entry failed as the spec writes it, so the usual answer pays nothing.
    """
    if not isinstance(data, Mapping):
        return None
    if kind is Customer:
        return _loosened(data)
    if kind is Transaction and isinstance(customer := data.get("customer"), Mapping):
        return {**data, "customer": _loosened(customer)}
    return None
