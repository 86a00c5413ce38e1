"""The report preview lets a report's pixels go once the next report replaces it."""

from __future__ import annotations

from typing import Any

from pos_terminal.ui.report_preview import Preview
from tests.helpers.memory import c_heap_in_use

from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QApplication

ROLL_PAGE = (315, 1575)  # an 80 mm roll page at the preview's 100 dpi: 2 MB of pixels


def pages(count: int, shade: int, size: tuple[int, int] = ROLL_PAGE) -> list[QImage]:
    images = []
    for index in range(count):
        image = QImage(*size, QImage.Format.Format_RGB32)
        image.fill(QColor(255 - shade, 255 - index, 255))
        images.append(image)
    return images


def painted(preview: Preview) -> None:
    preview.viewport().repaint()
    QApplication.processEvents()


def test_reports_replaced_leave_none_of_their_pages_in_memory(qtbot: Any) -> None:
    """Each page shown and then replaced is freed. Qt 6.9's ``QLabel`` kept every pixmap it drew in the
    application's ``QPixmapCache``: after six roll reports of three pages and an empty one, 7.9 MB of pages
    no widget showed any more were still held."""
    preview = Preview()
    qtbot.addWidget(preview)
    preview.resize(900, 700)
    preview.show()
    qtbot.waitExposed(preview)
    preview.set_images(pages(1, 0, (315, 816)))
    painted(preview)
    before = c_heap_in_use()
    for report in range(1, 7):
        preview.set_images(pages(3, report))
        painted(preview)
        assert [page.image.size().toTuple() for page in preview.pages] == [ROLL_PAGE] * 3
    preview.set_images(pages(1, 0, (315, 816)))
    painted(preview)
    grown = c_heap_in_use() - before
    assert grown < 1_000_000, f"{grown / 1e6:.1f} MB more in use than before the six reports"
