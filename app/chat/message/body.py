"""A message's text as shown: a read-only rich-text view exactly as tall as its text, that copies
formulas as their TeX and lets the chat scroll."""

from __future__ import annotations

import math
from typing import Any

from PySide6.QtCore import QMimeData, QSize, Qt
from PySide6.QtGui import QResizeEvent, QWheelEvent
from PySide6.QtWidgets import QFrame, QSizePolicy, QTextBrowser, QWidget

from app.chat.message.math_render import selection_text


class MessageBody(QTextBrowser):
    """A read-only rich-text view exactly as tall as its text (the chat scrolls, not the body)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        # A code line wider than the chat scrolls sideways instead of being cut off.
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.setOpenLinks(False)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse
            | Qt.TextInteractionFlag.TextSelectableByKeyboard
            | Qt.TextInteractionFlag.LinksAccessibleByMouse
        )
        self.viewport().setAutoFillBackground(False)
        self.setStyleSheet("QTextBrowser { background: transparent; }")
        self.document().documentLayout().documentSizeChanged.connect(self._fit_height)
        self.setFixedHeight(self._wanted_height())

    def _wanted_height(self) -> int:
        height = math.ceil(self.document().size().height()) + 2 * self.frameWidth()
        if self.document().size().width() > self.viewport().width() + 1:  # a code line too wide
            height += self.horizontalScrollBar().sizeHint().height()
        return max(1, height)

    def _fit_height(self, *_args: Any) -> None:
        wanted = self._wanted_height()
        if wanted != self.height():
            self.setFixedHeight(wanted)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_height()

    def wheelEvent(self, event: QWheelEvent) -> None:
        sideways = event.angleDelta().x() != 0 or bool(
            event.modifiers() & Qt.KeyboardModifier.ShiftModifier
        )
        if sideways and self.horizontalScrollBar().maximum() > 0:
            super().wheelEvent(event)  # a wide code line, scrolled sideways
        else:
            event.ignore()  # let the chat scroll

    def sizeHint(self) -> QSize:
        return QSize(super().sizeHint().width(), self._wanted_height())

    def createMimeDataFromSelection(self) -> QMimeData:
        data = super().createMimeDataFromSelection()
        text = selection_text(self.textCursor())  # formulas copied as their TeX
        if text is None:
            return data
        # Qt's own mime data writes its formats when first read, over any set before.
        copied = QMimeData()
        for kind in data.formats():
            copied.setData(kind, data.data(kind))
        copied.setText(text)
        copied.setData("text/markdown", text.encode())
        return copied
