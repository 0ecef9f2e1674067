"""Where the user writes: Enter sends, Shift+Enter starts a new line, Esc stops a reply."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFocusEvent, QKeyEvent
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
)

MAX_LINES = 8
NO_DOCUMENTS = "No documents"


class ComposerEdit(QPlainTextEdit):
    submitted = Signal()
    stop_requested = Signal()
    focus_changed = Signal(bool)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            if event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
                self.insertPlainText("\n")
            else:
                self.submitted.emit()
            return
        if event.key() == Qt.Key.Key_Escape:
            self.stop_requested.emit()
            return
        super().keyPressEvent(event)

    def focusInEvent(self, event: QFocusEvent) -> None:
        super().focusInEvent(event)
        self.focus_changed.emit(True)

    def focusOutEvent(self, event: QFocusEvent) -> None:
        super().focusOutEvent(event)
        self.focus_changed.emit(False)


class Composer(QFrame):
    """Emits ``send_requested`` with the text; the owner clears it with ``take_text`` once the
    message is accepted, so nothing typed is lost when it cannot be sent yet."""

    send_requested = Signal(str)
    stop_requested = Signal()
    collection_changed = Signal(str)  # the collection to answer from; "" for none

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("Composer")
        self._generating = False
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 8, 8, 8)
        layout.setSpacing(4)
        row = QHBoxLayout()
        row.setSpacing(8)
        self.edit = ComposerEdit()
        self.edit.setFrameShape(QFrame.Shape.NoFrame)
        self.edit.setPlaceholderText("Message Cove  (Enter to send, Shift+Enter for a new line)")
        self.edit.setTabChangesFocus(True)
        self.edit.setStyleSheet("QPlainTextEdit { background: transparent; }")
        self.edit.document().contentsChanged.connect(self._fit_height)
        self.edit.submitted.connect(self._submit)
        self.edit.stop_requested.connect(self.stop_requested)
        self.edit.focus_changed.connect(self._focus_changed)
        self.button = QPushButton("Send")
        self.button.setObjectName("Primary")
        self.button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.button.clicked.connect(self._button_clicked)
        row.addWidget(self.edit, 1)
        row.addWidget(self.button, 0, Qt.AlignmentFlag.AlignBottom)
        layout.addLayout(row)
        under = QHBoxLayout()
        under.setSpacing(6)
        self.documents_label = QLabel("Answer from")
        self.documents_label.setProperty("muted", True)
        self.documents = QComboBox()
        self.documents.setObjectName("DocumentsChoice")
        self.documents.setToolTip(
            "Answer from a document collection: the reply cites its passages by file and page"
        )
        self.documents.addItem(NO_DOCUMENTS, "")
        self.documents.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.documents.currentIndexChanged.connect(
            lambda _i: self.collection_changed.emit(self.collection)
        )
        self.hint = QLabel("")
        self.hint.setProperty("muted", True)
        self.hint.setWordWrap(True)
        self.hint.setVisible(False)
        under.addWidget(self.documents_label)
        under.addWidget(self.documents)
        under.addWidget(self.hint, 1)
        under.addStretch(0)
        layout.addLayout(under)
        self.set_collections([])
        self._fit_height()

    @property
    def text(self) -> str:
        return self.edit.toPlainText()

    def set_text(self, text: str) -> None:
        self.edit.setPlainText(text)

    def take_text(self) -> str:
        text = self.edit.toPlainText()
        self.edit.clear()
        return text

    def set_generating(self, generating: bool) -> None:
        self._generating = generating
        self.button.setText("Stop" if generating else "Send")
        self.button.setToolTip("Stop the reply (Esc)" if generating else "Send (Enter)")

    @property
    def collection(self) -> str:
        """The collection chosen to answer from, or "" for none."""
        return str(self.documents.currentData() or "")

    def set_collections(self, names: list[str]) -> None:
        """The collections there are to answer from; the choice stays while it exists."""
        chosen = self.collection
        self.documents.blockSignals(True)
        self.documents.clear()
        self.documents.addItem(NO_DOCUMENTS, "")
        for name in names:
            self.documents.addItem(name, name)
        index = self.documents.findData(chosen) if chosen in names else 0
        self.documents.setCurrentIndex(max(index, 0))
        self.documents.blockSignals(False)
        shown = bool(names)
        self.documents.setVisible(shown)
        self.documents_label.setVisible(shown)
        if self.collection != chosen:
            self.collection_changed.emit(self.collection)

    def choose_collection(self, name: str) -> None:
        index = self.documents.findData(name)
        if index >= 0:
            self.documents.setCurrentIndex(index)

    def set_hint(self, text: str) -> None:
        self.hint.setText(text)
        self.hint.setVisible(bool(text))

    def focus(self) -> None:
        self.edit.setFocus()

    def _submit(self) -> None:
        if self.text.strip():
            self.send_requested.emit(self.text)

    def _button_clicked(self) -> None:
        if self._generating:
            self.stop_requested.emit()
        else:
            self._submit()

    def _fit_height(self) -> None:
        metrics = self.edit.fontMetrics()
        lines = max(1, min(MAX_LINES, self.edit.document().lineCount()))
        # Wrapped lines count too once the document is laid out.
        layout_height = self.edit.document().size().height()
        line_height = metrics.lineSpacing()
        if layout_height > 0:
            lines = max(lines, min(MAX_LINES, round(layout_height)))
        height = lines * line_height + 2 * int(self.edit.document().documentMargin()) + 4
        self.edit.setFixedHeight(max(line_height * 2, height))

    def _focus_changed(self, focused: bool) -> None:
        self.setProperty("focused", focused)
        self.style().unpolish(self)
        self.style().polish(self)
