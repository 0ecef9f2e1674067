"""The chat's own files above the composer: each file's name, how far it is read, and a button
that takes it out of the chat. Replies in the chat answer from the files that are read."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QToolButton, QWidget

from app.chat.chat_files import ChatFile
from app.common.i18n import tr

MAX_NAME = 32  # characters of a file's name shown on its chip (the tooltip has all of it)


class FileChip(QFrame):
    remove_requested = Signal(str)  # the file's path

    def __init__(self, file: ChatFile, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("FileChip")
        self.file = file
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 2, 2, 2)
        layout.setSpacing(4)
        name = file.name if len(file.name) <= MAX_NAME else file.name[: MAX_NAME - 1] + "…"
        self.label = QLabel(f"{name} · {file.detail}")
        self.label.setProperty("muted", file.state != "ready")
        if file.state == "failed":
            self.label.setObjectName("ImageError")
        self.setToolTip(f"{file.path}\n{file.detail}")
        self.setAccessibleName(
            tr("Chat", "{name}: {state}").format(name=file.name, state=file.detail)
        )
        layout.addWidget(self.label)
        self.remove_button = QToolButton()
        self.remove_button.setObjectName("FileChipRemove")
        self.remove_button.setText("×")
        remove = tr("Chat", "Remove {name} from this chat").format(name=file.name)
        self.remove_button.setToolTip(remove)
        self.remove_button.setAccessibleName(remove)
        self.remove_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.remove_button.clicked.connect(lambda: self.remove_requested.emit(file.path))
        layout.addWidget(self.remove_button)


class FilesStrip(QWidget):
    remove_requested = Signal(str)  # a file's path

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.chips: list[FileChip] = []
        self._layout = QHBoxLayout(self)
        self._layout.setContentsMargins(0, 2, 0, 2)
        self._layout.setSpacing(6)
        self.title = QLabel(tr("Chat", "Answers from:"))
        self.title.setProperty("muted", True)
        self._layout.addWidget(self.title)
        self._layout.addStretch(1)
        self.setVisible(False)

    def set_files(self, files: Sequence[ChatFile]) -> None:
        for chip in self.chips:
            chip.setParent(None)
            chip.deleteLater()
        self.chips = []
        for index, file in enumerate(files):
            chip = FileChip(file)
            chip.remove_requested.connect(self.remove_requested)
            self._layout.insertWidget(index + 1, chip)
            self.chips.append(chip)
        self.setVisible(bool(self.chips))

    def names(self) -> list[str]:
        return [chip.file.name for chip in self.chips]
