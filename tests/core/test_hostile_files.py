"""Every file the terminal reads either loads or gets one sentence: arbitrary bytes, arbitrary JSON, and the
inputs that once gave tracebacks (settings, regions, catalog and check files).

The property is the same for each reader: the only exception that may leave it is the project's one
user-error type (:class:`~pos_terminal.errors.UserError`), and its sentence names the file.
"""

from __future__ import annotations

import json
import string
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import tomli_w
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pos_terminal.api.regions import load_regions
from pos_terminal.config import load_settings
from pos_terminal.errors import UserError
from pos_terminal.services.catalog import load_catalog
from pos_terminal.services.check_file import read_check_file

Reader = Callable[[Path], Any]

READERS: dict[str, Reader] = {
    "settings": lambda path: load_settings(path),
    "regions": lambda path: load_regions(path),
    "catalog": lambda path: load_catalog(path),
    "check file": lambda path: read_check_file(path),
}

# JSON as people and programs get it wrong: any nesting of the usual values, with keys the readers know.
KEYS = st.sampled_from(
    ["items", "name", "price", "taxRate", "quantity", "unitPrice", "tax", "discounts", "payments", "amount",
     "percent", "method", "regions", "authUrl", "posUrl", "paymentsUrl", "production", "x"]
)  # fmt: skip
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12),
    st.sampled_from(["http://127.0.0.1:99999", "https://[::1", "10", "1e999", "\x00", "\u202e"]),
)
JSON = st.recursive(
    SCALARS,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(KEYS | st.text(max_size=6), children, max_size=5),
    max_leaves=25,
)

PROPERTY = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def loads_or_says_so(reader: Reader, path: Path) -> None:
    """The property: the reader returns, or raises a UserError whose sentence names the file."""
    try:
        reader(path)
    except UserError as exc:
        said = exc.text()
    else:
        return
    assert str(path) in said, said


@pytest.mark.parametrize("kind", READERS)
@PROPERTY
@given(raw=st.binary(max_size=300))
def test_arbitrary_bytes(tmp_path: Path, kind: str, raw: bytes) -> None:
    path = tmp_path / "input"
    path.write_bytes(raw)
    loads_or_says_so(READERS[kind], path)


@pytest.mark.parametrize("kind", ["regions", "catalog", "check file"])
@PROPERTY
@given(value=JSON)
def test_arbitrary_json(tmp_path: Path, kind: str, value: Any) -> None:
    path = tmp_path / "input.json"
    path.write_text(json.dumps(value))
    loads_or_says_so(READERS[kind], path)


@PROPERTY
@given(
    table=st.dictionaries(
        st.sampled_from(
            ["schema_version", "terminal_id", "region", "currency", "locale", "auto_cancel_hint_seconds",
             "request_timeout_seconds", "routes", "custom", "printer", "catalog_file", "legacy_api_token"]
        ),
        st.one_of(
            st.integers(min_value=-(2**63), max_value=2**63 - 1),
            st.floats(allow_nan=True, allow_infinity=True),
            st.text(alphabet=string.printable, max_size=20),
            st.booleans(),
            st.dictionaries(st.text(max_size=5), st.text(max_size=5), max_size=3),
        ),
        max_size=6,
    )
)  # fmt: skip
def test_arbitrary_settings_tables(tmp_path: Path, table: dict[str, Any]) -> None:
    path = tmp_path / "config.toml"
    path.write_text(tomli_w.dumps(table))
    loads_or_says_so(READERS["settings"], path)


# --- the inputs that once gave tracebacks ----------------------------------------------------------------------

DEEP_JSON = "[" * 100_000 + "]" * 100_000
DEEP_TOML = "a = " + "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize(
    ("kind", "content", "says"),
    [
        ("settings", b"\xff\xfe\x00garbage", "is not UTF-8 text"),
        ("settings", DEEP_TOML.encode(), "nests more than"),
        ("settings", b"schema_version = 1\nauto_cancel_hint_seconds = 99999999999999999999\n", "too large"),
        ("settings", b"schema_version = 1\nauto_cancel_hint_seconds = 9999999999\n", "auto_cancel_hint_seconds"),
        ("regions", b'{"regions": {"x": "\xc3\x28"}}', "is not UTF-8 text"),
        ("regions", DEEP_JSON.encode(), "nests more than"),
        ("regions", b'{"regions": {"x": {"authUrl": "http://127.0.0.1:99999"}}}', "has no valid"),
        ("catalog", b'{"items": [{"name": "Tea", "price": 400, "taxRate": "1e999999"}]}', "tax rate"),
        ("catalog", b'{"items": [{"name": "Tea", "price": 400, "taxRate": 1e999}]}', "too large"),
        ("catalog", b'{"items": [{"name": "Tea", "price": 1' + b"0" * 5000 + b"}]}", "too large"),
        ("catalog", b'{"items": [{"name": "\\ud800", "price": 400}]}', "not valid text"),
        ("check file", DEEP_JSON.encode(), "nests more than"),
        ("check file", b'{"items": [{"name": "A", "quantity": 1, "unitPrice": 1' + b"0" * 5000 + b"}]}", "too large"),
        ("check file", b'{"items": [{"name": "\\ud800", "quantity": 1, "unitPrice": 100}]}', "not valid text"),
        ("check file", b'{"items": [{"name": "A", "quantity": 1, "unitPrice": 1e999999999}]}', "too large"),
        ("check file", b'{"items": [{"name": "A", "quantity": 1e999999999, "unitPrice": 100}]}', "too large"),
        ("check file", b'{"items": [{"name": "A", "quantity": NaN, "unitPrice": 100}]}', "not a number"),
    ],
    ids=[
        "settings-not-utf8", "settings-deep", "settings-huge-int", "settings-hint-out-of-range",
        "regions-not-utf8", "regions-deep", "regions-bad-port",
        "catalog-rate-text-huge", "catalog-rate-huge", "catalog-price-5000-digits", "catalog-surrogate",
        "check-deep", "check-5000-digits", "check-surrogate", "check-price-1e999999999", "check-quantity-1e999999999",
        "check-nan",
    ],
)  # fmt: skip
def test_inputs_that_once_gave_tracebacks_get_one_sentence(
    tmp_path: Path, kind: str, content: bytes, says: str
) -> None:
    path = tmp_path / "input"
    path.write_bytes(content)
    with pytest.raises(UserError) as caught:
        READERS[kind](path)
    text = caught.value.text()
    assert str(path) in text and says in text, text
    assert "\n" not in caught.value.sentence


def test_a_file_that_is_a_folder_or_missing_gets_one_sentence(tmp_path: Path) -> None:
    for kind in ("catalog", "check file"):
        with pytest.raises(UserError, match="does not exist"):
            READERS[kind](tmp_path / "missing.json")
        with pytest.raises(UserError, match="cannot be read"):
            READERS[kind](tmp_path)
