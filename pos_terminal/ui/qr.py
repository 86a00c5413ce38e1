"""A QR code of a web address, drawn by Qt from segno's module matrix (sharp at any size)."""

from __future__ import annotations

import segno

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPaintEvent
from PySide6.QtWidgets import QSizePolicy, QWidget


class QrCode(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._matrix: list[list[bool]] = []
        self._text = ""
        self.setMinimumSize(QSize(180, 180))
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        self.setAccessibleName("QR code of the sign-in address")

    @property
    def text(self) -> str:
        return self._text

    def set_text(self, text: str) -> None:
        self._text = text
        if text:
            code = segno.make(text, error="m", micro=False)
            self._matrix = [[bool(cell) for cell in row] for row in code.matrix_iter(scale=1, border=4)]
        else:
            self._matrix = []
        self.update()

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        return QSize(220, 220)

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 (Qt's name)
        painter = QPainter(self)
        painter.fillRect(self.rect(), Qt.GlobalColor.white)
        if not self._matrix:
            return
        count = len(self._matrix)
        side = min(self.width(), self.height())
        module = side / count
        left = (self.width() - side) / 2
        top = (self.height() - side) / 2
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor("black"))
        for y, row in enumerate(self._matrix):
            for x, dark in enumerate(row):
                if dark:
                    painter.drawRect(QRectF(left + x * module, top + y * module, module + 0.5, module + 0.5))
