"""The report's preview: the PDF's pages one under the other, as images, scaled down to fit.

The pages come from :mod:`pos_terminal.reports.raster` (pypdfium2: QtPdf is not in the PySide6 wheels); the
labels that show them are made once and reused from report to report.
"""

from __future__ import annotations

from pos_terminal.ui.widgets import label

from PySide6.QtCore import Qt
from PySide6.QtGui import QImage, QPixmap, QResizeEvent
from PySide6.QtWidgets import QFrame, QLabel, QScrollArea, QVBoxLayout, QWidget

PREVIEW_PAGES = 20  # a 10,000-transaction report has hundreds of pages; the PDF keeps them all
PAGE_STYLE = "background: white; border: 1px solid #9aa5b1;"


class Preview(QScrollArea):
    """The PDF's pages one under the other, each scaled down to the width available (never up)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.images: list[QImage] = []
        self.labels: list[QLabel] = []  # every page label made so far (at most PREVIEW_PAGES)
        self.pages: list[QLabel] = []  # those showing a page now
        self.box = QWidget()
        self.box.setObjectName("pages")
        self.box.setStyleSheet("QWidget#pages { background: #e4e7eb; }")
        self.column = QVBoxLayout(self.box)
        self.column.setSpacing(12)
        self.column.setAlignment(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop)
        self.empty = label("The PDF's pages appear here once the report is shown.", role="hint")
        self.column.addWidget(self.empty)
        self.setAccessibleName("Report preview")
        self.setWidget(self.box)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self._make_labels(PREVIEW_PAGES)  # all of them now: a longer report later makes no widget

    def _make_labels(self, count: int) -> None:
        while len(self.labels) < count:
            page = QLabel()
            page.setStyleSheet(PAGE_STYLE)
            page.setAccessibleName(f"Page {len(self.labels) + 1} of the report")
            page.hide()
            self.column.addWidget(page)
            self.labels.append(page)

    def set_images(self, images: list[QImage]) -> None:
        """Show ``images``, one label a page. Labels are kept and reused, never deleted and made anew: a day of
        reports would otherwise leave pages (and their pixmaps) waiting for a deferred deletion."""
        self.images = images
        self.empty.setVisible(not images)
        self._make_labels(len(images))
        for unused in self.labels[len(images) :]:
            unused.clear()  # its pixmap goes now
            unused.hide()
        self.pages = self.labels[: len(images)]
        for page in self.pages:
            page.show()
        self.fit()

    def fit(self) -> None:
        margins = self.column.contentsMargins()
        room = (
            self.viewport().width() - margins.left() - margins.right() - 2 - self.verticalScrollBar().sizeHint().width()
        )
        for page, image in zip(self.pages, self.images, strict=True):
            width = max(100, min(image.width(), room))
            pixmap = QPixmap.fromImage(image)
            if width < image.width():
                pixmap = pixmap.scaledToWidth(width, Qt.TransformationMode.SmoothTransformation)
            page.setPixmap(pixmap)
            page.setFixedSize(pixmap.width() + 2, pixmap.height() + 2)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        if self.images:
            self.fit()
