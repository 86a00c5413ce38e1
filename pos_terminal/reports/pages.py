"""What the end-of-day report and the receipt share: styles, text cells, page decoration and the two page shapes.

Every page carries "Page N of M" and, when the service is not production, a
red SANDBOX mark. A4 pages are portrait with 15 mm margins; the 80 mm roll is
one page as long as its content (cut after it), split into several pages only
when it would be longer than a printer driver takes in one piece.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, tzinfo
from typing import Any

from reportlab import rl_config
from reportlab.lib import colors
from reportlab.lib.enums import TA_CENTER
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.lib.utils import ImageReader
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import BaseDocTemplate, Flowable, Frame, Image, PageTemplate, Paragraph, Spacer

from pos_terminal.reports import fonts
from pos_terminal.version import version

# Page streams are compressed; ASCII85 on top only makes them bigger and costs a second per hundred pages.
rl_config.useA85 = 0

RED = colors.HexColor("#B00020")
GREEN = colors.HexColor("#1B5E20")
GREY = colors.HexColor("#5F6368")
RULE = colors.HexColor("#BDC1C6")
SHADE = colors.HexColor("#F1F3F4")
PALE_RED = colors.HexColor("#FDECEE")
PALE_GREEN = colors.HexColor("#E8F5E9")

ROLL_WIDTH = 80 * mm
ROLL_MARGIN = 4 * mm
ROLL_MAX_PAGE = 1200 * mm  # longer than this, the roll is cut into pages of ROLL_PAGE
ROLL_PAGE = 400 * mm
A4_MARGIN = 15 * mm
FOOTER = 10 * mm


Fit = Callable[[str, str, float, float], str]  # text, font, size, available points -> the text that fits


@dataclass(frozen=True)
class Styles:
    body: ParagraphStyle
    small: ParagraphStyle
    title: ParagraphStyle
    heading: ParagraphStyle
    banner: ParagraphStyle
    cell: ParagraphStyle
    cell_bold: ParagraphStyle


def styles(size: float) -> Styles:
    """Paragraph styles around a body size (9 pt on A4, 8 pt on the roll)."""
    fonts.register()
    body = ParagraphStyle("body", fontName=fonts.REGULAR, fontSize=size, leading=size * 1.3)
    return Styles(
        body=body,
        small=ParagraphStyle("small", parent=body, fontSize=size - 1.5, leading=(size - 1.5) * 1.3, textColor=GREY),
        title=ParagraphStyle(
            "title", parent=body, fontName=fonts.BOLD, fontSize=size + 7, leading=(size + 7) * 1.25, spaceAfter=2
        ),
        heading=ParagraphStyle(
            "heading",
            parent=body,
            fontName=fonts.BOLD,
            fontSize=size + 2,
            leading=(size + 2) * 1.3,
            spaceBefore=size * 1.2,
            spaceAfter=size * 0.4,
        ),
        banner=ParagraphStyle(
            "banner",
            parent=body,
            fontName=fonts.BOLD,
            fontSize=size + 1,
            leading=(size + 1) * 1.3,
            textColor=colors.white,
            alignment=TA_CENTER,
        ),
        cell=ParagraphStyle("cell", parent=body, fontSize=size - 1, leading=(size - 1) * 1.2),
        cell_bold=ParagraphStyle("cell_bold", parent=body, fontName=fonts.BOLD, fontSize=size - 1),
    )


LOGO_DPI = 203  # a receipt printer's dots per inch: the logo is as large on a PDF as on the roll
LOGO_MAX_HEIGHT = 30 * mm


def logo(png: bytes | None, available: float) -> list[Flowable]:
    """The store's logo (a grey PNG) centred above its name, as large as the receipt printer prints it, within
    ``available`` wide and LOGO_MAX_HEIGHT high; nothing when there is none."""
    if not png:
        return []
    reader = ImageReader(io.BytesIO(png))
    pixels_wide, pixels_high = reader.getSize()
    width, height = pixels_wide * 25.4 * mm / LOGO_DPI, pixels_high * 25.4 * mm / LOGO_DPI
    scale = min(1.0, available / width, LOGO_MAX_HEIGHT / height)
    picture = Image(io.BytesIO(png), width=width * scale, height=height * scale)
    picture.hAlign = "CENTER"
    return [picture, Spacer(1, 2 * mm)]


def para(text: str, style: ParagraphStyle) -> Paragraph:
    """A paragraph of plain text (escaped; characters DejaVu lacks drawn in the fallback font)."""
    return Paragraph(fonts.markup(text), style)


def cell(text: str, style: ParagraphStyle, available: float | None = None, *, fit: Fit = fonts.fit) -> str | Paragraph:
    """A table cell: the plain (fast) string, cut to ``available`` points (by ``fit``: a rendering passes its
    cached one); a paragraph if it needs the fallback."""
    if available is not None:
        text = fit(text, style.fontName, style.fontSize, available)
    return text if fonts.covered(text) else Paragraph(fonts.markup(text), style)


def local(moment: datetime | None, tz: tzinfo | None, pattern: str = "%Y-%m-%d %H:%M") -> str:
    """A UTC moment as local time on paper (the system's zone when ``tz`` is ``None``)."""
    if moment is None:
        return ""
    return (moment.astimezone() if tz is None else moment.astimezone(tz)).strftime(pattern)


def draw_text(canvas: Canvas, x: float, y: float, text: str, font: str, size: float, *, align: str = "left") -> None:
    """``drawString`` with fallback runs; ``align`` ``left``, ``right`` or ``center`` about ``x``."""
    pieces = fonts.runs(text, font)
    total = sum(canvas.stringWidth(piece, f, size) for f, piece in pieces)
    if align == "right":
        x -= total
    elif align == "center":
        x -= total / 2
    for f, piece in pieces:
        canvas.setFont(f, size)
        canvas.drawString(x, y, piece)
        x += canvas.stringWidth(piece, f, size)


Decorate = Callable[[Canvas, int, int], None]


def _numbered_canvas(decorate: Decorate) -> type[Canvas]:
    """A canvas that knows the page count when it decorates each page ("Page 2 of 7")."""

    class NumberedCanvas(Canvas):  # type: ignore[misc]  # reportlab has no type hints
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._pages: list[dict[str, Any]] = []

        def showPage(self) -> None:  # noqa: N802 - reportlab's name
            self._pages.append(dict(self.__dict__))
            self._startPage()

        def save(self) -> None:
            count = len(self._pages)
            for number, state in enumerate(self._pages, start=1):
                self.__dict__.update(state)
                decorate(self, number, count)
                super().showPage()
            super().save()

    return NumberedCanvas


def sandbox_mark(canvas: Canvas, page_width: float, top: float, size: float) -> None:
    """The red SANDBOX tag at the top right of a page."""
    label = "SANDBOX"
    text_width = canvas.stringWidth(label, fonts.BOLD, size)
    pad = size * 0.35
    x = page_width - text_width - 2 * pad - 3 * mm
    canvas.setFillColor(RED)
    canvas.roundRect(x, top - size - 2 * pad, text_width + 2 * pad, size + 2 * pad, 2, stroke=0, fill=1)
    canvas.setFillColor(colors.white)
    canvas.setFont(fonts.BOLD, size)
    canvas.drawString(x + pad, top - size - pad + size * 0.18, label)
    canvas.setFillColor(colors.black)


def footer(
    canvas: Canvas, page_width: float, margin: float, left_text: str, number: int, count: int, size: float
) -> None:
    canvas.saveState()
    canvas.setFillColor(GREY)
    y = FOOTER / 2
    canvas.setStrokeColor(RULE)
    canvas.setLineWidth(0.5)
    canvas.line(margin, FOOTER - 1.5 * mm, page_width - margin, FOOTER - 1.5 * mm)
    page = f"pos-terminal {version()} · Page {number} of {count}"
    room = page_width - 2 * margin - canvas.stringWidth(page, fonts.REGULAR, size) - 3 * mm
    draw_text(canvas, margin, y, fonts.fit(left_text, fonts.REGULAR, size, room), fonts.REGULAR, size)
    draw_text(canvas, page_width - margin, y, page, fonts.REGULAR, size, align="right")
    canvas.restoreState()


def _document(
    buffer: io.BytesIO, page_size: tuple[float, float], margin: float, top: float, *, title: str, author: str
) -> BaseDocTemplate:
    width, height = page_size
    doc = BaseDocTemplate(
        buffer,
        pagesize=page_size,
        leftMargin=margin,
        rightMargin=margin,
        topMargin=top,
        bottomMargin=FOOTER + 2 * mm,
        title=title,
        author=author,
        creator=f"pos-terminal {version()}",
        invariant=True,  # the same report gives the same bytes
    )
    frame = Frame(margin, FOOTER + 2 * mm, width - 2 * margin, height - top - FOOTER - 2 * mm, 0, 0, 0, 0, id="body")
    doc.addPageTemplates([PageTemplate(id="page", frames=[frame])])
    return doc


def build_a4(story: Sequence[Flowable], decorate: Decorate, *, title: str, author: str, top: float) -> bytes:
    buffer = io.BytesIO()
    doc = _document(buffer, A4, A4_MARGIN, top, title=title, author=author)
    doc.build(list(story), canvasmaker=_numbered_canvas(decorate))
    return buffer.getvalue()


def roll_height(story: Sequence[Flowable], width: float, top: float) -> float:
    """How long the roll must be for ``story`` to fit on one page."""
    height = 0.0
    for flowable in story:
        _, h = flowable.wrap(width, 10**7)
        height += h + flowable.getSpaceBefore() + flowable.getSpaceAfter()
    return float(height + top + FOOTER + 2 * mm + 6 * mm)


def build_roll(
    make_story: Callable[[], list[Flowable]], decorate: Decorate, *, title: str, author: str, top: float
) -> bytes:
    """One page as long as the content, or pages of :data:`ROLL_PAGE` when that would be too long."""
    width = ROLL_WIDTH - 2 * ROLL_MARGIN
    height = roll_height(make_story(), width, top)
    page_height = height if height <= ROLL_MAX_PAGE else ROLL_PAGE
    buffer = io.BytesIO()
    doc = _document(buffer, (ROLL_WIDTH, page_height), ROLL_MARGIN, top, title=title, author=author)
    doc.build(make_story(), canvasmaker=_numbered_canvas(decorate))
    return buffer.getvalue()


class RowTable(Flowable):  # type: ignore[misc]  # reportlab has no type hints
    """Rows of one-line text drawn straight onto the canvas, the header repeated on every page.

    reportlab's ``Table`` spends milliseconds per row measuring and drawing cells; a day's
    transactions are thousands of rows of short text, so this draws each cell as one text
    operation (with the fallback font where needed) and splits between rows.
    """

    def __init__(
        self,
        header: Sequence[str],
        rows: Sequence[Sequence[str]],
        widths: Sequence[float],
        *,
        right: Iterable[int] = (),
        size: float = 7.0,
        sizes: Mapping[int, float] | None = None,
        pad: float = 3.0,
    ) -> None:
        super().__init__()
        self.header = list(header)
        self.rows = rows
        self.widths = list(widths)
        self.right = frozenset(right)
        self.size = size
        self.sizes = dict(sizes or {})
        self.pad = pad
        self.row_height = size * 1.55
        self.hAlign = "LEFT"

    def _part(self, rows: Sequence[Sequence[str]]) -> RowTable:
        return RowTable(
            self.header, rows, self.widths, right=self.right, size=self.size, sizes=self.sizes, pad=self.pad
        )

    def wrap(self, available_width: float, available_height: float) -> tuple[float, float]:
        self.width = sum(self.widths)
        self.height = self.row_height * (len(self.rows) + 1) + 1
        return self.width, self.height

    def split(self, available_width: float, available_height: float) -> list[Flowable]:
        fits = int((available_height - self.row_height - 1) // self.row_height)
        if fits < 1:
            return []
        if fits >= len(self.rows):
            return [self]
        return [self._part(self.rows[:fits]), self._part(self.rows[fits:])]

    def draw(self) -> None:
        canvas = self.canv
        top = self.row_height * (len(self.rows) + 1) + 1
        lefts = [sum(self.widths[:i]) for i in range(len(self.widths))]
        canvas.saveState()
        canvas.setFillColor(SHADE)
        # every other entry shaded; a row with an empty first cell goes on with the entry above (a long sentence)
        entry, shaded = -1, []
        for index, row in enumerate(self.rows):
            entry += 1 if index == 0 or row[0] else 0
            if entry % 2:
                shaded.append(index)
        shading = [
            f"0 {top - self.row_height * (index + 2) - 0.5:.2f} {self.width:.2f} {self.row_height:.2f} re"
            for index in shaded
        ]
        if shading:
            canvas._code.append("\n".join(shading) + " f")
        canvas.setStrokeColor(colors.black)
        canvas.setLineWidth(0.6)
        canvas.line(0, top - self.row_height - 0.5, self.width, top - self.row_height - 0.5)
        canvas.setFillColor(colors.black)
        encode, measure = _encoder(canvas), _measurer(canvas)
        code = ["BT"]
        baseline = top - self.row_height + self.size * 0.45
        header_sizes = [self.size] * len(self.widths)
        self._line(code, encode, measure, self.header, lefts, header_sizes, baseline, fonts.BOLD)
        sizes = [self.sizes.get(column, self.size) for column in range(len(self.widths))]
        for row in self.rows:
            baseline -= self.row_height
            self._line(code, encode, measure, row, lefts, sizes, baseline, fonts.REGULAR)
        code.append("ET")
        canvas._code.append("\n".join(code))
        canvas.restoreState()

    def _line(
        self,
        code: list[str],
        encode: Callable[[str, str], list[tuple[str, str]]],
        measure: Callable[[str, str, float], float],
        cells: Sequence[str],
        lefts: Sequence[float],
        sizes: Sequence[float],
        y: float,
        font: str,
    ) -> None:
        right, widths, pad, append = self.right, self.widths, self.pad, code.append
        for column, value in enumerate(cells):
            if not value:
                continue
            size = sizes[column]
            if column in right:
                x = lefts[column] + widths[column] - pad - measure(value, font, size)
            else:
                x = lefts[column] + pad
            append(f"1 0 0 1 {x:.2f} {y:.2f} Tm")
            for name, escaped in encode(value, font):
                append(f"{name} {size:g} Tf ({escaped}) Tj")


def _encoder(canvas: Canvas) -> Callable[[str, str], list[tuple[str, str]]]:
    """Text to ``(PDF font name, escaped bytes)`` pieces for ``Tj``, remembered for the canvas's document.

    This is what reportlab's text object does for a TrueType font (one subset per 256
    characters), without its per-call bookkeeping. Printable ASCII sits at its own code in
    subset 0 (reportlab's "ASCII readable" subsets), so such text is used as it is.
    """
    doc = canvas._doc
    cache: dict[tuple[str, str], list[tuple[str, str]]] = canvas.__dict__.setdefault("_pos_encoded", {})
    readable: dict[str, str | None] = {}

    def ascii_name(font: str) -> str | None:
        """The font's subset-0 name when ASCII is readable in it, else ``None``."""
        if font not in readable:
            face = pdfmetrics.getFont(font)
            name = face.getSubsetInternalName(0, doc)
            state = face.state[doc]
            readable[font] = name if all(state.assignments.get(c) == c for c in range(32, 127)) else None
        return readable[font]

    def encode(text: str, font: str) -> list[tuple[str, str]]:
        key = (text, font)
        found = cache.get(key)
        if found is not None:
            return found
        name = ascii_name(font) if text.isascii() and text.isprintable() else None
        if name is not None:
            found = [(name, text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)"))]
        else:
            found = []
            for piece_font, piece in fonts.runs(text, font):
                face = pdfmetrics.getFont(piece_font)
                for subset, raw in face.splitString(piece, doc):
                    found.append((face.getSubsetInternalName(subset, doc), canvas._escape(raw)))
        if len(cache) < 100_000:
            cache[key] = found
        return found

    return encode


def _measurer(canvas: Canvas) -> Callable[[str, str, float], float]:
    """Width of a text, remembered for the canvas's document: the same amounts come back on every page.

    Kept with the document, not the process: a process-wide cache filled with every amount and id of
    every report, made while a report's pages were in memory, and held on to the interpreter's arenas.
    """
    cache: dict[tuple[str, str, float], float] = canvas.__dict__.setdefault("_pos_widths", {})

    def width(text: str, font: str, size: float) -> float:
        key = (text, font, size)
        found = cache.get(key)
        if found is None:
            found = cache[key] = fonts.width(text, font, size)
        return found

    return width
