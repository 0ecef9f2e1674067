"""The composer's attached images: a row of thumbnails, each with a button that removes it."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QPixmap
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QToolButton, QWidget

from app.chat.attachments import THUMB_SIDE, Attachment
from app.common.i18n import tr


class ImageChip(QFrame):
    """One attached image: its thumbnail, with × in the corner."""

    remove_requested = Signal()

    def __init__(self, attachment: Attachment, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ImageChip")
        self.attachment = attachment
        self.setFixedSize(THUMB_SIDE + 4, THUMB_SIDE + 4)
        self.setToolTip(f"{attachment.name} ({attachment.size_text})")
        self.picture = QLabel(self)
        self.picture.setGeometry(2, 2, THUMB_SIDE, THUMB_SIDE)
        pixmap = QPixmap.fromImage(attachment.thumbnail)
        pixmap.setDevicePixelRatio(attachment.thumbnail.width() / THUMB_SIDE)
        self.picture.setPixmap(pixmap)
        self.picture.setScaledContents(True)
        self.remove_button = QToolButton(self)
        self.remove_button.setObjectName("ChipRemove")
        self.remove_button.setText("×")
        remove = tr("Attachments", "Remove {name}").format(name=attachment.name)
        self.remove_button.setToolTip(remove)
        self.remove_button.setAccessibleName(remove)
        self.remove_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.remove_button.setFixedSize(18, 18)
        self.remove_button.move(THUMB_SIDE + 4 - 20, 2)
        self.remove_button.clicked.connect(self.remove_requested)


class ImageStrip(QWidget):
    """The attached images in order; ``remove_requested(index)`` when one's × is clicked."""

    remove_requested = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.chips: list[ImageChip] = []
        self._layout = QHBoxLayout(self)
        self._layout.setContentsMargins(0, 2, 0, 4)
        self._layout.setSpacing(6)
        self._layout.addStretch(1)
        self.setVisible(False)

    def set_attachments(self, attachments: Sequence[Attachment]) -> None:
        for chip in self.chips:
            chip.setParent(None)
            chip.deleteLater()
        self.chips = []
        for index, attachment in enumerate(attachments):
            chip = ImageChip(attachment)
            chip.remove_requested.connect(lambda i=index: self.remove_requested.emit(i))
            self._layout.insertWidget(index, chip)
            self.chips.append(chip)
        self.setVisible(bool(self.chips))
