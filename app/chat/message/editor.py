"""Editing a message in place: a text box with Cancel and Save & send under it, built the first
time it is needed (most messages are never edited). Enter sends, Shift+Enter breaks the line,
Escape cancels."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QHBoxLayout, QPlainTextEdit, QPushButton, QVBoxLayout, QWidget

from app.common.i18n import tr


class MessageEditor(QObject):
    submitted = Signal(str)  # the edited text, to send again

    def __init__(
        self,
        outer: QVBoxLayout,
        before: QWidget,
        shown: QWidget,
        may_be_empty: Callable[[], bool],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        # Where the editor goes (above ``before`` in ``outer``) and what it stands in for.
        self._outer, self._before, self._shown = outer, before, shown
        self._may_be_empty = may_be_empty  # a message of images alone may lose its text
        self._editor: QPlainTextEdit | None = None
        self.edit_bar: QWidget | None = None

    @property
    def editor(self) -> QPlainTextEdit:
        if self._editor is None:
            self._build()
        assert self._editor is not None
        return self._editor

    def _build(self) -> None:
        editor = QPlainTextEdit()
        editor.setAccessibleName(tr("Message", "Edit message"))
        editor.installEventFilter(self)
        bar = QWidget()
        edit_row = QHBoxLayout(bar)
        edit_row.setContentsMargins(0, 4, 0, 0)
        edit_row.addStretch(1)
        cancel = QPushButton(tr("Message", "Cancel"))
        cancel.setObjectName("Secondary")
        send = QPushButton(tr("Message", "Save && send"))
        send.setAccessibleName(tr("Message", "Save and send"))
        send.setObjectName("Primary")
        cancel.clicked.connect(self.stop)
        send.clicked.connect(self._submit)
        edit_row.addWidget(cancel)
        edit_row.addWidget(send)
        index = self._outer.indexOf(self._before)
        self._outer.insertWidget(index, editor)
        self._outer.insertWidget(index + 1, bar)
        self._editor, self.edit_bar = editor, bar

    def start(self, text: str, height: int) -> None:
        """Edit ``text`` in place of the message, in a box about as tall as it was."""
        self.editor.setPlainText(text)
        self.editor.setMinimumHeight(min(240, max(80, height + 24)))
        self._shown.setVisible(False)
        self.editor.setVisible(True)
        assert self.edit_bar is not None
        self.edit_bar.setVisible(True)
        self.editor.setFocus()

    def stop(self) -> None:
        if self._editor is None or self.edit_bar is None:
            return
        self._editor.setVisible(False)
        self.edit_bar.setVisible(False)
        self._shown.setVisible(True)

    @property
    def editing(self) -> bool:
        return self._editor is not None and self._editor.isVisible()

    def _submit(self) -> None:
        text = self.editor.toPlainText().strip()
        if not text and not self._may_be_empty():
            return
        self.stop()
        self.submitted.emit(text)

    def eventFilter(self, watched: Any, event: QEvent) -> bool:
        if watched is self._editor and event.type() == QEvent.Type.KeyPress:
            assert isinstance(event, QKeyEvent)
            if event.key() == Qt.Key.Key_Escape:
                self.stop()
                return True
            enter = event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
            if enter and not event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
                self._submit()
                return True
        return super().eventFilter(watched, event)
