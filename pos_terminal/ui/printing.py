"""Printing our PDFs (reports, receipts) to a system printer through Qt, and saving them.

QtPdf is not in the PySide6 wheels, so pages are rendered by
:mod:`pos_terminal.reports.raster` (pypdfium2) and painted onto a ``QPrinter``.
Each page keeps its own paper size (A4, or the 80 mm roll as long as the
content), drawn edge to edge: the PDF already has its margins.

Works without a window: a ``QApplication`` is created (offscreen is fine)
when none exists, so ``pos-terminal report --print`` can run unattended.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from pos_terminal.errors import UserError
from pos_terminal.reports import raster

from PySide6.QtCore import QCoreApplication, QMarginsF, QRectF, QSizeF
from PySide6.QtGui import QImage, QPageLayout, QPageSize, QPainter
from PySide6.QtPrintSupport import QPrinter, QPrinterInfo

PDF_FILE_PRINTER = "pdf:"  # a printer named "pdf:FILE" prints into FILE, as a print dialog's "Print to File";
# "pdf:FOLDER/" (ending in a slash) prints each job into a file of its own in FOLDER, named by the job's title
MAX_DPI = 300  # more only makes bigger print jobs; receipt printers are 203 dpi


class NoPrinter(UserError):
    hint = "Add a printer in the system settings, or save the PDF instead."
    about = "printer"


class PrintFailed(UserError):
    hint = "Check that the printer is on and has paper, then print again."
    about = "printer"


class SaveFailed(UserError):
    hint = "Choose another folder."


def ensure_gui_application() -> QCoreApplication:
    """The running Qt application, or a new ``QApplication`` (offscreen when there is no display).

    A process has one application for good: made as a plain ``QGuiApplication`` by a print, it would leave a
    window opened later in the same process (the tests', or an embedding program's) with no widgets at all.
    """
    app = QCoreApplication.instance()
    if app is not None:
        return app
    if not os.environ.get("QT_QPA_PLATFORM") and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    from PySide6.QtWidgets import QApplication

    return QApplication([])


def available_printers() -> list[str]:
    """The names of the system's printers (CUPS queues on Linux and macOS)."""
    ensure_gui_application()
    return list(QPrinterInfo.availablePrinterNames())


def default_printer() -> str | None:
    """The system's default printer, or ``None`` when there is none."""
    ensure_gui_application()
    info = QPrinterInfo.defaultPrinter()
    return None if info.isNull() else info.printerName()


def system_printer_exists() -> bool:
    """Whether the system has a printer that printing with no printer named would print on."""
    ensure_gui_application()
    return default_printer() is not None or len(available_printers()) == 1


def pdf_file_printer(printer: str | None) -> Path | None:
    """The file a ``pdf:FILE`` printer prints into (Qt's "print to file"), the folder of a ``pdf:FOLDER/`` one, or
    None for a system printer."""
    if printer is None or not printer.startswith(PDF_FILE_PRINTER):
        return None
    return Path(printer.removeprefix(PDF_FILE_PRINTER)).expanduser()


def pdf_folder_printer(folder: Path) -> str:
    """The printer that prints each job into a PDF file of its own in ``folder``."""
    return f"{PDF_FILE_PRINTER}{folder}{os.sep}"


def _pdf_file_for(printer: str, title: str) -> Path:
    """The file a PDF-file printer prints the job ``title`` into: its file, or a new file in its folder."""
    path = pdf_file_printer(printer)
    assert path is not None
    if not printer.endswith(("/", os.sep)):
        return path
    stem = "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in title).strip("-") or "print"
    candidate, number = path / f"{stem}.pdf", 1
    while candidate.exists():  # a copy printed again is a file of its own beside the first
        number += 1
        candidate = path / f"{stem}-{number}.pdf"
    return candidate


def check_printer(printer: str | None) -> str:
    """The printer ``printer`` names (the system's default when ``None``): one sentence when there is none."""
    if pdf_file_printer(printer) is not None:
        assert printer is not None
        return printer
    ensure_gui_application()
    names = available_printers()
    name = printer or default_printer() or (names[0] if len(names) == 1 else None)
    if name is None:
        raise NoPrinter("There is no printer to print on.")
    if name not in names:
        raise NoPrinter(
            f"There is no printer called “{name}”.",
            hint=f"Choose one of: {', '.join(names) or 'none'}, or {PDF_FILE_PRINTER}FILE to print into a PDF file.",
        )
    return name


def print_pdf(data: bytes, *, printer: str | None, title: str) -> str:
    """Print every page of ``data`` on ``printer`` (the default one when ``None``); returns the printer's name.

    ``pdf:FILE`` prints into FILE through Qt's PDF output, the page images a printer would get, and ``pdf:FOLDER/``
    into a new file in FOLDER; either returns ``pdf:`` and the file printed into.
    """
    name = check_printer(printer)
    if pdf_file_printer(name) is not None:
        path = print_to_pdf_file(data, _pdf_file_for(name, title), title=title)
        return f"{PDF_FILE_PRINTER}{path}"
    device = QPrinter(QPrinterInfo.printerInfo(name), QPrinter.PrinterMode.HighResolution)
    device.setOutputFormat(QPrinter.OutputFormat.NativeFormat)
    device.setPrinterName(name)
    paint_pdf(device, data, title=title)
    return name


def print_to_pdf_file(data: bytes, path: Path, *, title: str) -> Path:
    """Print through Qt's own PDF output (``QPrinter.PdfFormat``): the print path without a printer."""
    ensure_gui_application()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SaveFailed(f"The folder of {path} cannot be made ({exc.strerror or exc}).") from None
    device = QPrinter(QPrinter.PrinterMode.HighResolution)
    device.setOutputFormat(QPrinter.OutputFormat.PdfFormat)
    device.setOutputFileName(str(path))
    paint_pdf(device, data, title=title)
    return path


def paint_pdf(device: QPrinter, data: bytes, *, title: str) -> None:
    """Paint the pages of ``data`` onto ``device``, each on paper of its own size."""
    sizes = raster.page_sizes(data)
    if not sizes:
        raise PrintFailed("The document has no pages.")
    device.setDocName(title)
    device.setFullPage(True)
    _page_size(device, *sizes[0])
    dpi = min(MAX_DPI, max(72, device.resolution()))
    painter = QPainter()
    if not painter.begin(device):
        raise PrintFailed(f"The printer “{device.printerName() or device.outputFileName()}” cannot be started.")
    try:
        for index, page in enumerate(raster.iter_pages(data, dpi=dpi)):
            if index:
                _page_size(device, page.width_pt, page.height_pt)
                if not device.newPage():
                    raise PrintFailed(f"Page {index + 1} could not be started.")
            image = QImage(page.data, page.width, page.height, page.stride, QImage.Format.Format_RGBA8888)
            target = device.pageLayout().fullRectPixels(device.resolution())
            painter.drawImage(QRectF(target), image)
    finally:
        if not painter.end():
            raise PrintFailed("The print job could not be finished.")


def _page_size(device: QPrinter, width_pt: float, height_pt: float) -> None:
    size = QPageSize(QSizeF(width_pt, height_pt), QPageSize.Unit.Point, "", QPageSize.SizeMatchPolicy.FuzzyMatch)
    orientation = QPageLayout.Orientation.Portrait
    device.setPageLayout(QPageLayout(size, orientation, QMarginsF(0, 0, 0, 0), QPageLayout.Unit.Point))


def save_pdf(data: bytes, path: Path) -> Path:
    """Write ``data`` to ``path`` whole or not at all (a temporary file, then renamed)."""
    path = Path(path)
    temporary = path.with_name(f".{path.name}.part")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary.write_bytes(data)
        os.replace(temporary, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            temporary.unlink(missing_ok=True)
        raise SaveFailed(f"The PDF cannot be saved to {path} ({exc.strerror or exc}).") from None
    return path
