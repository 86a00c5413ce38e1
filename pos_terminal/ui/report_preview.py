"""The report's preview: the PDF's pages one under the other, as images, scaled down to fit.

The pages come from :mod:`pos_terminal.reports.raster` (pypdfium2: QtPdf is not in the PySide6 wheels); the
widgets that show them are made once and reused from report to report.

A page is painted from its ``QImage``, never set as a ``QPixmap`` on a ``QLabel``. Since Qt 6.9 a label keeps its
pixmap as a ``QIcon``, and the icon's engine puts every pixmap it draws into the application's ``QPixmapCache``
(10 MB by default). Each report's pages then stayed alive after the next report replaced them, until newer
entries pushed them out: up to 10 MB of an earlier day's pixels, held by no widget. Painting the image also keeps
one copy of each page's pixels instead of two (the image and its pixmap).
"""

from __future__ import annotations

from pos_terminal.ui.widgets import label

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QImage, QPainter, QPaintEvent, QResizeEvent
from PySide6.QtWidgets import QFrame, QScrollArea, QVBoxLayout, QWidget

PREVIEW_PAGES = 20  # a 10,000-transaction report has hundreds of pages; the PDF keeps them all
PAGE_BORDER = QColor("#9aa5b1")


class PageView(QWidget):
    """One page: its image in a one-pixel border, drawn as it is or scaled down to the width it is given."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.image = QImage()  # what is drawn: the page itself, or a copy scaled down to fit

    def show_image(self, image: QImage, width: int) -> None:
        """Draw ``image``, scaled down (never up) to ``width`` pixels when it is wider."""
        if width < image.width():
            image = image.scaledToWidth(width, Qt.TransformationMode.SmoothTransformation)
        self.image = image
        self.setFixedSize(image.width() + 2, image.height() + 2)
        self.update()

    def clear(self) -> None:
        """Let the page's pixels go."""
        self.image = QImage()

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 (Qt's name)
        painter = QPainter(self)
        painter.setPen(PAGE_BORDER)
        painter.drawRect(self.rect().adjusted(0, 0, -1, -1))
        if not self.image.isNull():
            painter.drawImage(1, 1, self.image)
        painter.end()


class Preview(QScrollArea):
    """The PDF's pages one under the other, each scaled down to the width available (never up)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.images: list[QImage] = []
        self.sheets: list[PageView] = []  # every page made so far (at most PREVIEW_PAGES)
        self.pages: list[PageView] = []  # those showing a page now
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
        self._make_sheets(PREVIEW_PAGES)  # all of them now: a longer report later makes no widget

    def _make_sheets(self, count: int) -> None:
        while len(self.sheets) < count:
            page = PageView()
            page.setAccessibleName(f"Page {len(self.sheets) + 1} of the report")
            page.hide()
            self.column.addWidget(page)
            self.sheets.append(page)

    def set_images(self, images: list[QImage]) -> None:
        """Show ``images``, one page widget each. The widgets are kept and reused, never deleted and made anew: a
        day of reports would otherwise leave pages (and their pixels) waiting for a deferred deletion."""
        self.images = images
        self.empty.setVisible(not images)
        self._make_sheets(len(images))
        for unused in self.sheets[len(images) :]:
            unused.clear()  # its pixels go now
            unused.hide()
        self.pages = self.sheets[: len(images)]
        for page in self.pages:
            page.show()
        self.fit()

    def fit(self) -> None:
        margins = self.column.contentsMargins()
        room = (
            self.viewport().width() - margins.left() - margins.right() - 2 - self.verticalScrollBar().sizeHint().width()
        )
        for page, image in zip(self.pages, self.images, strict=True):
            page.show_image(image, max(100, room))
        # The box of pages as wide as the preview again at once: the scroll area had sized it to the pages as they
        # were before this fit, so pages made narrower by a narrower window sat centred in a box still as wide as
        # the wider window had made them, their right side out of sight (the horizontal bar is off).
        self.column.activate()
        self.box.resize(self.box.size().boundedTo(self.box.minimumSizeHint().expandedTo(self.viewport().size())))

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        if self.images:
            self.fit()
