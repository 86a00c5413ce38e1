"""The store's logo from a file: checked whole (one sentence naming the file and what is wrong), then kept as the
grey PNG every till prints, at most 384 dots either way."""

from __future__ import annotations

import io
import struct
import zlib
from pathlib import Path

import pytest
from PIL import Image

from pos_terminal.domain.details import LOGO_DOTS, BadLogo
from pos_terminal.reports.logo import read_logo, store_logo
from tests.helpers.text import assert_one_sentence


def png(width: int, height: int, mode: str = "RGB", colour: object = "white") -> bytes:
    data = io.BytesIO()
    Image.new(mode, (width, height), colour).save(data, format="PNG")  # type: ignore[arg-type]
    return data.getvalue()


def lying(data: bytes, width: int, height: int) -> bytes:
    """``data`` (a PNG) with a header that says it is ``width`` × ``height``, its checksum made right for it."""
    header = data[12:16] + struct.pack(">II", width, height) + data[24:29]
    return data[:8] + data[8:12] + header + struct.pack(">I", zlib.crc32(header)) + data[33:]


def refused(data: bytes, name: str = "logo.png") -> str:
    with pytest.raises(BadLogo) as refusal:
        store_logo(data, name)
    assert_one_sentence(refusal.value)
    assert name in refusal.value.sentence
    return refusal.value.sentence


def test_a_logo_is_kept_grey_within_384_dots_never_enlarged_transparency_on_white() -> None:
    kept = Image.open(io.BytesIO(store_logo(png(1024, 512, "RGB", "red"), "wide.png")))
    assert (kept.format, kept.mode, kept.size) == ("PNG", "L", (LOGO_DOTS, LOGO_DOTS // 2))
    tall = Image.open(io.BytesIO(store_logo(png(100, 1000), "tall.png")))
    assert tall.size == (38, LOGO_DOTS)
    small = Image.open(io.BytesIO(store_logo(png(64, 32), "small.png")))
    assert small.size == (64, 32)
    clear = Image.open(io.BytesIO(store_logo(png(40, 40, "RGBA", (0, 0, 0, 0)), "clear.png")))
    assert clear.getextrema() == (255, 255), "what is transparent prints as paper"
    jpeg = io.BytesIO()
    Image.new("RGB", (300, 200), "black").save(jpeg, format="JPEG")
    assert Image.open(io.BytesIO(store_logo(jpeg.getvalue(), "logo.jpg"))).getextrema()[1] < 20


def test_a_bad_logo_is_refused_in_one_sentence_that_names_it() -> None:
    assert "larger than 512 KB" in refused(png(10, 10) + bytes(512 * 1024))
    assert "not a PNG or JPEG" in refused(b"GIF89a" + bytes(100), "logo.gif")
    assert "not a PNG or JPEG" in refused(b"Name,Price\nTea,4.50\n", "menu.csv")
    gif = io.BytesIO()
    Image.new("L", (10, 10)).save(gif, format="GIF")
    assert "not a PNG or JPEG" in refused(gif.getvalue(), "logo.gif")
    assert "2000 × 100 pixels, larger than 1024 × 1024" in refused(png(2000, 100))


def test_a_png_that_lies_about_its_size_is_refused_before_its_pixels_are_decoded() -> None:
    small = png(10, 10)
    # says it is huge (a decompression bomb would): refused from the header alone
    assert "3000 × 3000 pixels, larger than 1024 × 1024" in refused(lying(small, 3000, 3000))
    assert "larger than 1024 × 1024 pixels" in refused(lying(small, 40000, 40000))
    # says it is larger than its data: the picture cannot be read whole
    assert "damaged" in refused(lying(small, 200, 200))
    noise = io.BytesIO()
    Image.effect_noise((200, 200), 80).save(noise, format="PNG")
    assert "damaged" in refused(noise.getvalue()[: len(noise.getvalue()) // 2]), "a file cut short"


def test_a_logo_file_that_cannot_be_read_is_one_sentence(tmp_path: Path) -> None:
    with pytest.raises(BadLogo, match=r"The logo gone\.png does not exist\."):
        read_logo(tmp_path / "gone.png")
    with pytest.raises(BadLogo, match="is a folder"):
        read_logo(tmp_path)
    (tmp_path / "big.png").write_bytes(png(10, 10) + bytes(600 * 1024))
    with pytest.raises(BadLogo, match=r"big\.png is larger than 512 KB"):
        read_logo(tmp_path / "big.png")
