"""Names in every script a customer may have are drawn, in the PDFs and on the receipt printer's pictures: each
character in a bundled font that has its glyph. Korean names were boxes until NanumSquare came beside Droid Sans
Fallback, which has 3 of Hangul's 11,172 syllables."""

from __future__ import annotations

from collections.abc import Callable
from zoneinfo import ZoneInfo

import pytest
from reportlab.pdfbase import pdfmetrics

from pos_terminal.devices.escpos import line_image
from pos_terminal.domain.money import MoneyFormat
from pos_terminal.domain.slip import Line
from pos_terminal.reports import fonts
from pos_terminal.reports.end_of_day import render
from tests.helpers.reports import long_report

NAMES = ("Zoë Ångström", "Ελένη Παπαδοπούλου", "Мария Иванова", "雷 李", "さくら 田中", "김민준", "Ava 김 雷")


@pytest.mark.parametrize("name", NAMES)
def test_every_character_of_a_name_is_in_a_font_that_has_it(name: str) -> None:
    for font, piece in fonts.runs(name, fonts.REGULAR):
        glyphs = pdfmetrics.getFont(font).face.charToGlyph
        assert all(ord(ch) in glyphs for ch in piece if not ch.isspace()), (name, font, piece)


def test_hangul_is_drawn_in_nanum_and_chinese_in_droid() -> None:
    assert fonts.runs("김민준", fonts.REGULAR) == [(fonts.HANGUL, "김민준")]
    assert fonts.runs("Ava 雷", fonts.REGULAR) == [(fonts.REGULAR, "Ava "), (fonts.FALLBACK, "雷")]
    assert fonts.markup("김 <b>") == f'<font face="{fonts.HANGUL}">김</font> &lt;b&gt;'


def test_a_report_with_a_korean_name_embeds_the_hangul_font(pdf_text: Callable[[bytes], list[str]]) -> None:
    data = render(
        long_report(6, names=("김민준", "雷 李")), "a4", money=MoneyFormat("en_AU", "AUD"), tz=ZoneInfo("UTC")
    )
    assert b"+NanumSquareR" in data, "the Korean name is drawn in NanumSquare (its subset is embedded)"
    text = "".join(pdf_text(data))
    assert "김민준" in text and "雷 李" in text


def test_the_printer_draws_a_korean_line_not_its_boxes() -> None:
    width = 576
    korean = line_image("김민준", width, Line("김민준"))
    boxes = line_image("\U0010fffd" * 3, width, Line("\U0010fffd" * 3))
    assert korean.tobytes() != boxes.tobytes()
    assert korean.getbbox() is not None
