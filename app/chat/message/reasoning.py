"""A reasoning model's thinking, above its answer, as plain text. While the model thinks it shows,
streaming, and its line counts the words ("Thinking… · 212 words"); when the answer starts it
folds to that line ("Reasoning · 212 words"), opened again on a click."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QLabel, QToolButton, QVBoxLayout, QWidget

from app.common.i18n import tr


class ReasoningPanel(QFrame):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("Reasoning")
        self.text = ""
        self.thinking = False
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 2, 0, 2)
        layout.setSpacing(2)
        self.toggle = QToolButton()
        self.toggle.setCheckable(True)
        self.toggle.setAutoRaise(True)
        self.toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.toggle.setArrowType(Qt.ArrowType.RightArrow)
        self.toggle.toggled.connect(self._fold)
        self.body = QLabel()
        self.body.setTextFormat(Qt.TextFormat.PlainText)
        self.body.setWordWrap(True)
        self.body.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.body.setProperty("muted", True)
        self.body.setVisible(False)
        layout.addWidget(self.toggle, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(self.body)

    def set_text(self, text: str, thinking: bool = False) -> None:
        self.text, self.thinking = text, thinking
        self.body.setText(text.strip())
        self._label()

    def append(self, text: str) -> None:
        if not self.thinking and not self.text:
            self.toggle.setChecked(True)  # open while it streams
        self.set_text(self.text + text, thinking=True)

    def answer_started(self) -> None:
        """The answer begins: the thinking folds away above it."""
        if self.thinking:
            self.thinking = False
            self._label()
            self.toggle.setChecked(False)

    def _label(self) -> None:
        words = len(self.text.split())
        what = tr("Message", "Thinking…") if self.thinking else tr("Message", "Reasoning")
        count = (
            tr("Message", "1 word") if words == 1 else tr("Message", "{n} words").format(n=words)
        )
        self.toggle.setText(f"{what} · {count}")

    def _fold(self, open_: bool) -> None:
        self.body.setVisible(open_)
        self.toggle.setArrowType(Qt.ArrowType.DownArrow if open_ else Qt.ArrowType.RightArrow)
