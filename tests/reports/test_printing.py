"""Printing through Qt: to a real CUPS queue with cups-pdf when this machine has one, else Qt's own PDF output.

A cups-pdf queue needs a running cupsd and root to add it (``apt-get install cups
printer-driver-cups-pdf; cupsd; lpadmin -p PDF -v cups-pdf:/ -E -m lsb/usr/cups-pdf/CUPS-PDF_opt.ppd``),
which CI does not do; there the same painting code prints into ``QPrinter.PdfFormat`` instead.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from pypdf import PdfReader

from pos_terminal.domain.lifecycle import TxState
from pos_terminal.domain.money import MoneyFormat
from pos_terminal.domain.report import ModifierRow, Receipt, ReceiptLine
from pos_terminal.reports.end_of_day import render
from pos_terminal.reports.receipt import render_receipt
from pos_terminal.ui import printing
from tests.helpers.reports import cups_pdf_queue, long_report

MONEY = MoneyFormat("en_AU", "AUD")
ROLL_WIDTH_PT = 80 / 25.4 * 72


def receipt() -> Receipt:
    return Receipt(
        transaction_id="0b9f0c1e-7b4d-4c1e-9a2b-3f2a9c1e7b4d",
        state=TxState.COMPLETE,
        terminal_id="LANE-1",
        when=None,
        customer="雷 李",
        member_no="M-100888",
        items=(ReceiptLine("Flat white", 2, 1000),),
        discounts=(),
        item_total=1000,
        discount_total=0,
        total=1000,
        tax=91,
        payments=(),
        charge_amount=1000,
        modifiers=(ModifierRow("Member 5 %", -50),),
        charged_amount=950,
        tip_amount=0,
        region="Embedded sandbox",
        production=False,
    )


def pages(data: bytes) -> list[tuple[float, float]]:
    return [(float(p.mediabox.width), float(p.mediabox.height)) for p in PdfReader(io.BytesIO(data)).pages]


def test_a4_report_and_roll_receipt_print_page_for_page(qapp: Any, tmp_path: Path) -> None:
    report = render(long_report(150), "a4", money=MONEY)
    roll = render_receipt(receipt(), money=MONEY)
    queue = cups_pdf_queue()
    if queue is None or queue not in printing.available_printers():
        # No CUPS queue here (CI): the same painting, into Qt's PDF output.
        printed_a4 = printing.print_to_pdf_file(report, tmp_path / "a4.pdf", title="report").read_bytes()
        printed_roll = printing.print_to_pdf_file(roll, tmp_path / "roll.pdf", title="receipt").read_bytes()
    else:
        out = Path.home() / "PDF"  # cups-pdf's default "Out ${HOME}/PDF" for the submitting user
        before = set(out.glob("*.pdf")) if out.exists() else set()
        stamp = str(time.time_ns())
        assert printing.print_pdf(report, printer=queue, title=f"a4-{stamp}") == queue
        assert printing.print_pdf(roll, printer=queue, title=f"roll-{stamp}") == queue
        deadline = time.monotonic() + 60
        found: dict[str, Path] = {}
        while len(found) < 2 and time.monotonic() < deadline:  # the spooler works on its own; wait for its files
            for path in set(out.glob("*.pdf")) - before:
                for kind in ("a4", "roll"):
                    if f"{kind}-{stamp}" in path.name and path.stat().st_size > 0:
                        found[kind] = path
            time.sleep(0.2)
        assert set(found) == {"a4", "roll"}, f"cups-pdf wrote nothing to {out}"
        printed_a4, printed_roll = found["a4"].read_bytes(), found["roll"].read_bytes()
    assert len(pages(printed_a4)) == len(pages(report)) > 1
    assert all(w == pytest.approx(595, abs=2) and h == pytest.approx(842, abs=2) for w, h in pages(printed_a4))
    ((width, height),) = pages(printed_roll)
    assert width == pytest.approx(ROLL_WIDTH_PT, abs=2) and height == pytest.approx(pages(roll)[0][1], abs=2)


def test_no_such_printer_is_one_sentence(qapp: Any) -> None:
    with pytest.raises(printing.NoPrinter, match="There is no printer called “no-such-printer”"):
        printing.print_pdf(b"%PDF-1.4", printer="no-such-printer", title="x")


def test_save_writes_the_whole_file_or_says_why(tmp_path: Path) -> None:
    data = render_receipt(receipt(), money=MONEY)
    saved = printing.save_pdf(data, tmp_path / "out" / "receipt.pdf")
    assert saved.read_bytes() == data
    assert not list(saved.parent.glob(".*.part"))
    (tmp_path / "file").write_text("not a folder")
    with pytest.raises(printing.SaveFailed, match="cannot be saved"):
        printing.save_pdf(data, tmp_path / "file" / "receipt.pdf")


def test_an_application_made_for_printing_can_show_widgets_later() -> None:
    """A print made first in a process (the command line, a test) must not leave it unable to open a window."""
    probe = (
        "from pos_terminal.ui import printing\n"
        "app = printing.ensure_gui_application()\n"
        "from PySide6.QtWidgets import QApplication, QLabel\n"
        "assert isinstance(app, QApplication), type(app)\n"
        "QLabel('a widget').show()\n"
    )
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    run = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, env=env, check=False
    )
    assert run.returncode == 0, run.stderr
