"""The roll as the printer would print it, drawn from what the fake printer decoded (not from the slip).

Font A is 12 x 24 dots; a 576-dot roll (80 mm at 203 dpi) has 48 columns. Text is drawn
character by character in its column (double width and height when large, centred when
the printer was told to centre), pictures as they were sent, QR codes from their data
(drawn here with segno at the module size the printer was given), and a dashed line where
the paper was cut.
"""

from __future__ import annotations

from pathlib import Path

import segno
from PIL import Image, ImageDraw, ImageFont

from tests.devices.fake_printer import Cut, Element, Picture, QrCode, Text

DOTS = 576
COLUMN = 12
LINE = 24
MARGIN = 16
FONTS = Path(__file__).resolve().parents[2] / "resources" / "fonts"


def render(elements: list[Element], path: Path) -> Path:
    regular = ImageFont.truetype(str(FONTS / "DejaVuSans.ttf"), 19)
    bold = ImageFont.truetype(str(FONTS / "DejaVuSans-Bold.ttf"), 19)
    large = ImageFont.truetype(str(FONTS / "DejaVuSans-Bold.ttf"), 38)
    pieces: list[Image.Image] = []
    for element in elements:
        if isinstance(element, Text):
            scale = 2 if element.large else 1
            piece = Image.new("L", (DOTS, LINE * scale), 255)
            draw = ImageDraw.Draw(piece)
            font = large if element.large else bold if element.bold else regular
            width = len(element.text) * COLUMN * scale
            x0 = (DOTS - width) // 2 if element.align == "center" else 0
            for index, ch in enumerate(element.text):
                x = x0 + index * COLUMN * scale + COLUMN * scale // 2
                draw.text((x, LINE * scale - 5 * scale), ch, font=font, fill=0, anchor="ms")
            pieces.append(piece)
        elif isinstance(element, Picture):
            pieces.append(element.image.convert("L"))
        elif isinstance(element, QrCode):
            code = segno.make(element.data, error="l", micro=False)
            side = code.symbol_size(scale=element.size, border=0)[0]
            picture = Image.new("L", (DOTS, side + 8), 255)
            for row, bits in enumerate(code.matrix_iter(scale=element.size, border=0)):
                for col, bit in enumerate(bits):
                    if bit:
                        picture.putpixel(((DOTS - side) // 2 + col, row + 4), 0)
            pieces.append(picture)
        elif isinstance(element, Cut):
            piece = Image.new("L", (DOTS, 20), 255)
            ImageDraw.Draw(piece).line([(0, 10), (DOTS, 10)], fill=128, width=2)
            pieces.append(piece)
    height = sum(p.height for p in pieces) + 2 * MARGIN
    roll = Image.new("L", (DOTS + 2 * MARGIN, height), 255)
    y = MARGIN
    for piece in pieces:
        roll.paste(piece, (MARGIN, y))
        y += piece.height
    path.parent.mkdir(parents=True, exist_ok=True)
    roll.save(path)
    return path
