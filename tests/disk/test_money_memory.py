"""The money format is learned from Babel once and remembered (``pos_terminal.disk.money_memory``): a later start
formats and reads amounts exactly as Babel would, without loading Babel; another Babel, or a file that cannot be
read, means asking Babel again."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import pos_terminal.domain.money as money_module
from pos_terminal.disk.money_memory import money_format
from pos_terminal.domain.money import MoneyFormat
from pos_terminal.errors import ConfigError

PROBE = """
import sys
from pathlib import Path
from pos_terminal.disk.money_memory import money_format
money = money_format(sys.argv[1], sys.argv[2], Path(sys.argv[3]))
print(money.format(-123456789), money.format(5), money.parse(sys.argv[4]), "babel" in sys.modules)
"""


def start(tmp_path: Path, locale: str, currency: str, typed: str) -> list[str]:
    """What a new process formats, reads and whether it loaded Babel, with the profile's memory in ``tmp_path``."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE, locale, currency, str(tmp_path / "money-format.json"), typed],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


@pytest.mark.parametrize(
    ("locale", "currency", "typed"),
    [("en_AU", "AUD", "$1,234.50"), ("de_DE", "EUR", "1.234,50 €"), ("en_IN", "INR", "1234.50")],
)
def test_a_later_start_formats_as_babel_does_without_babel(
    tmp_path: Path, locale: str, currency: str, typed: str
) -> None:
    first = start(tmp_path, locale, currency, typed)
    later = start(tmp_path, locale, currency, typed)
    assert first[-1] == "True"  # learned from Babel
    assert later[:-1] == first[:-1]  # the same text and the same cents
    assert later[:-1][-1] == "123450"
    fast = json.loads((tmp_path / "money-format.json").read_text())[f"{locale} {currency}"][3]
    # a plain layout needs no Babel later; Indian grouping goes through Babel for every amount anyway
    assert later[-1] == ("False" if fast is not None else "True")


def test_another_babel_or_an_unreadable_memory_asks_babel_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory = tmp_path / "money-format.json"
    for written in ("not json", json.dumps({"babel": "another", "en_AU AUD": [".", ",", ["X"], None]})):
        memory.write_text(written)
        monkeypatch.setattr(money_module, "_LEARNED", {})  # a new process
        money = money_format("en_AU", "AUD", memory)
        assert money.format(123456) == "$1,234.56"  # not the "X" the other Babel's file said
        kept = json.loads(memory.read_text())
        assert kept["babel"] != "another" and kept["en_AU AUD"][2] != ["X"]


def test_an_unknown_currency_is_still_one_sentence_and_nothing_is_kept(tmp_path: Path) -> None:
    memory = tmp_path / "money-format.json"
    with pytest.raises(ConfigError, match="currency “XQZ” is not known"):
        money_format("en_AU", "XQZ", memory)
    assert not memory.exists()


@pytest.mark.parametrize(
    "learned",
    [None, [], [".", ",", [], None], [".", ",", ["$"], ["a"]], [1, ",", ["$"], None], [".", ",", "$", None]],
)
def test_a_learned_shape_that_is_not_one_teaches_nothing(learned: object, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(money_module, "_LEARNED", {})
    assert not MoneyFormat.teach("en_AU", "AUD", learned)
    assert money_module._LEARNED == {}
