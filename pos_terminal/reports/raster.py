"""Pages of a PDF as images, so the window can preview and print our PDFs without QtPdf.

pypdfium2 renders each page to 8-bit RGBA at the resolution asked for; the
caller wraps the bytes in whatever image type it draws with (``QImage`` with
``Format_RGBA8888`` and ``stride`` bytes per line).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from pos_terminal.errors import UserError


class UnreadablePdf(UserError):
    hint = "Make the report again."


@dataclass(frozen=True, slots=True)
class PageImage:
    """One page: ``height`` lines of ``stride`` bytes of RGBA pixels; the page's size in points."""

    width: int
    height: int
    stride: int
    data: bytes
    width_pt: float
    height_pt: float
    format: str = "RGBA8888"


def page_sizes(data: bytes) -> list[tuple[float, float]]:
    """Each page's (width, height) in points (1/72 inch)."""
    pdf = _open(data)
    try:
        return [(float(page.get_width()), float(page.get_height())) for page in pdf]
    finally:
        pdf.close()


def _open(data: bytes) -> pdfium.PdfDocument:
    try:
        return pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        raise UnreadablePdf(f"The PDF cannot be read ({exc}).") from None


def iter_pages(data: bytes, *, dpi: float = 150.0, first: int = 0, count: int | None = None) -> Iterator[PageImage]:
    """Render pages ``first``… (all by default) one at a time, so a long report never sits in memory whole."""
    pdf = _open(data)
    try:
        last = len(pdf) if count is None else min(len(pdf), first + count)
        for index in range(first, last):
            page = pdf[index]
            try:
                bitmap = page.render(scale=dpi / 72.0, rev_byteorder=True, force_bitmap_format=pdfium_c.FPDFBitmap_BGRA)
                try:
                    yield _image(bitmap, page)
                finally:
                    bitmap.close()
            finally:
                page.close()
    finally:
        pdf.close()


def render_pages(data: bytes, *, dpi: float = 150.0) -> list[PageImage]:
    """Every page as an image at ``dpi``."""
    return list(iter_pages(data, dpi=dpi))


def _image(bitmap: pdfium.PdfBitmap, page: pdfium.PdfPage) -> PageImage:
    if bitmap.n_channels != 4:  # asked for BGRA, reversed: RGBA; anything else is a pypdfium2 change
        raise RuntimeError(f"pypdfium2 rendered {bitmap.n_channels} channels, not 4")
    return PageImage(
        bitmap.width,
        bitmap.height,
        bitmap.stride,
        bytes(bitmap.buffer),
        float(page.get_width()),
        float(page.get_height()),
    )
