"""The fonts the PDFs embed, and how text that DejaVu cannot draw falls back to Droid Sans Fallback and NanumSquare.

reportlab's base-14 fonts are Latin-1 only and reportlab does not fall back
from one font to another by itself, so text is split into runs: each run of
characters DejaVu Sans lacks is drawn in the first fallback that has them,
Droid Sans Fallback for Chinese and Japanese, NanumSquare for Korean (Droid
has three of Hangul's 11,172 syllables).
"""

from __future__ import annotations

import threading
from functools import cache
from xml.sax.saxutils import escape

from reportlab.lib.fonts import addMapping
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont

from pos_terminal import assets

REGULAR = "PosSans"
BOLD = "PosSans-Bold"
FALLBACK = "PosSansFallback"
HANGUL = "PosSansHangul"
FALLBACKS = (FALLBACK, HANGUL)  # in the order a character DejaVu lacks looks for its glyph
_FILES = {
    REGULAR: assets.FONT_SANS,
    BOLD: assets.FONT_SANS_BOLD,
    FALLBACK: assets.FONT_CJK,
    HANGUL: assets.FONT_HANGUL,
}
_lock = threading.Lock()
_registered = False


def register() -> None:
    """Register the bundled fonts with reportlab once per process (``<b>`` in paragraphs picks the bold one)."""
    global _registered
    with _lock:
        if _registered:
            return
        for name, filename in _FILES.items():
            pdfmetrics.registerFont(TTFont(name, str(assets.path("fonts", filename))))
        addMapping(REGULAR, 0, 0, REGULAR)
        addMapping(REGULAR, 1, 0, BOLD)
        addMapping(REGULAR, 0, 1, REGULAR)
        addMapping(REGULAR, 1, 1, BOLD)
        for fallback in FALLBACKS:
            for bold, italic in ((0, 0), (1, 0), (0, 1), (1, 1)):
                addMapping(fallback, bold, italic, fallback)
        _registered = True


@cache
def _cmap(font: str) -> frozenset[int]:
    register()
    face = pdfmetrics.getFont(font).face
    return frozenset(face.charToGlyph)


def covered(text: str) -> bool:
    """Whether DejaVu Sans draws every character of ``text``."""
    if text.isascii():
        return True
    cmap = _cmap(REGULAR)
    return all(ord(ch) in cmap or ch.isspace() for ch in text)


def _fallback_for(code: int) -> str:
    """The first fallback with a glyph for ``code``; the first one when none has (its box is drawn)."""
    return next((font for font in FALLBACKS if code in _cmap(font)), FALLBACK)


def runs(text: str, font: str) -> list[tuple[str, str]]:
    """``(font, piece)`` pairs: ``font`` where DejaVu has the glyph, a fallback where it has not."""
    if covered(text):
        return [(font, text)]
    cmap = _cmap(REGULAR)
    pieces: list[tuple[str, str]] = []
    for ch in text:
        use = font if ord(ch) in cmap or ch.isspace() else _fallback_for(ord(ch))
        if pieces and pieces[-1][0] == use:
            pieces[-1] = (use, pieces[-1][1] + ch)
        else:
            pieces.append((use, ch))
    return pieces


def markup(text: str) -> str:
    """``text`` escaped for a reportlab ``Paragraph``, with fallback runs wrapped in ``<font>``."""
    if covered(text):
        return escape(text)
    return "".join(
        escape(piece) if font not in FALLBACKS else f'<font face="{font}">{escape(piece)}</font>'
        for font, piece in runs(text, REGULAR)
    )


def width(text: str, font: str, size: float) -> float:
    return float(sum(pdfmetrics.stringWidth(piece, f, size) for f, piece in runs(text, font)))


def fit(text: str, font: str, size: float, available: float) -> str:
    """``text``, shortened with "…" when it would be wider than ``available`` points.

    Not cached here: a cache that outlives a rendering fills with every transaction id and ref id ever
    printed, and in a long shift its entries, made while a report's pages were being built, kept the
    interpreter's memory arenas from being handed back. A rendering caches it for itself.
    """
    if width(text, font, size) <= available:
        return text
    low, high = 0, len(text)
    while low < high:  # the longest prefix that fits with the ellipsis
        mid = (low + high + 1) // 2
        if width(text[:mid] + "…", font, size) <= available:
            low = mid
        else:
            high = mid - 1
    return text[:low].rstrip() + "…"
