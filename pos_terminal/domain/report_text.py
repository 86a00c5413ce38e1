"""A report as plain text, a line each: what the command line prints.

A thin renderer of :class:`~pos_terminal.domain.report_document.ReportDocument`: the title and its facts, then
every section a narrow paper shows (the table of every transaction is the A4 page's), tables as aligned columns.
"""

from __future__ import annotations

from collections.abc import Sequence

from pos_terminal.domain.report_document import (
    Block,
    Figures,
    Note,
    Pair,
    Pairs,
    ReportDocument,
    Table,
    Verdict,
)

_INDENT = "  "


def render_text(document: ReportDocument) -> list[str]:
    """``document`` as lines of text (no line ends)."""
    lines = [document.title, "=" * len(document.title)]
    if document.sandbox:
        lines.append(document.sandbox)
    lines += _pairs(document.facts, indent="", amounts=False)
    for section in document.sections_on(wide=False):
        lines.append("")
        if section.heading:
            lines += [section.title, "-" * len(section.title)]
        for block in section.blocks:
            lines += _block(block)
    return lines


def _block(block: Block) -> list[str]:
    if isinstance(block, Pairs):
        return _pairs(block.rows, indent=_INDENT, amounts=block.amounts)
    if isinstance(block, Table):
        if not block.rows:
            return [_INDENT + block.empty]
        return _columns(block.head, block.rows, block.right)
    if isinstance(block, Figures):
        return _figures(block)
    if isinstance(block, Verdict):
        return [_INDENT + block.headline, *(_INDENT * 2 + line for line in block.lines)]
    assert isinstance(block, Note)
    return [_INDENT + block.text]


def _pairs(rows: Sequence[Pair], *, indent: str, amounts: bool) -> list[str]:
    """Labels in a column, the values beside them (amounts right-aligned)."""
    width = max((len(p.label) for p in rows if p.value), default=0)
    room = max((len(p.value) for p in rows), default=0) if amounts else 0
    return [
        f"{indent}{p.label:<{width}}  {p.value:>{room}}".rstrip() if p.value else f"{indent}{p.label}" for p in rows
    ]


def _columns(head: Sequence[str], rows: Sequence[Sequence[str]], right: Sequence[int]) -> list[str]:
    widths = [max(len(row[i]) for row in (head, *rows)) for i in range(len(head))]

    def line(row: Sequence[str]) -> str:
        cells = (
            cell.rjust(w) if i in right else cell.ljust(w) for i, (cell, w) in enumerate(zip(row, widths, strict=True))
        )
        return (_INDENT + "  ".join(cells)).rstrip()

    return [line(head), *(line(row) for row in rows)]


def _figures(figures: Figures) -> list[str]:
    head = ("Terminal", *figures.names, "Check")
    rows: list[tuple[str, ...]] = []
    for line in (*figures.lines, *((figures.total,) if figures.total else ())):
        rows.append((line.label, *line.values, line.check))
        if not line.matches:
            rows.append(("  transactions give", *line.recomputed, ""))
    lines = _columns(head, rows, right=tuple(range(1, len(head) - 1)))
    return lines + ([_INDENT + figures.empty] if figures.empty else [])
