"""Find in the open chat (Ctrl+F): every match of the words marked in the messages shown, the
current one selected and scrolled to; Enter goes to the next, Shift+Enter to the previous, Esc
closes. The sidebar's search stays the way to look through every chat."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QColor, QKeyEvent, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QLineEdit, QTextEdit, QToolButton
from shiboken6 import isValid

from app.common.i18n import tr

if TYPE_CHECKING:
    from app.chat.message.body import MessageBody
    from app.chat.view import ChatView


@dataclass(frozen=True, slots=True)
class Match:
    body: MessageBody
    cursor: QTextCursor


class FindBar(QFrame):
    def __init__(self, view: ChatView) -> None:
        super().__init__()
        self.setObjectName("Notice")
        self.view = view
        self.matches: list[Match] = []
        self.at = -1
        row = QHBoxLayout(self)
        row.setContentsMargins(10, 4, 6, 4)
        self.field = QLineEdit()
        self.field.setPlaceholderText(tr("Find in chat", "Find in this chat"))
        self.field.setAccessibleName(tr("Find in chat", "Find in chat"))
        self.field.setClearButtonEnabled(True)
        self.field.textChanged.connect(self.find_text)
        self.field.installEventFilter(self)
        self.count = QLabel("")
        self.count.setProperty("muted", True)
        self.previous = self._button(tr("Find in chat", "Previous match"), "↑")
        self.next = self._button(tr("Find in chat", "Next match"), "↓")
        self.close_button = self._button(tr("Find in chat", "Close find"), "✕")
        self.previous.clicked.connect(lambda: self.step(-1))
        self.next.clicked.connect(lambda: self.step(1))
        self.close_button.clicked.connect(self.close_bar)
        for widget in (self.field, self.count, self.previous, self.next, self.close_button):
            row.addWidget(widget, 1 if widget is self.field else 0)
        self.setVisible(False)

    def _button(self, name: str, symbol: str) -> QToolButton:
        button = QToolButton()
        button.setText(symbol)
        button.setToolTip(name)
        button.setAccessibleName(name)
        button.setAutoRaise(True)
        return button

    def open_bar(self) -> None:
        self.setVisible(True)
        self.field.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.field.selectAll()
        self.find_text(self.field.text())

    def close_bar(self) -> None:
        self._mark([])
        self.setVisible(False)
        self.view.setFocus(Qt.FocusReason.OtherFocusReason)

    def find_text(self, text: str) -> None:
        """Mark every match of ``text`` (any case) in the messages shown; select the first."""
        found: list[Match] = []
        words = text.strip()
        if words:
            for widget in self.view.messages:
                if widget.hidden_for_undo:
                    continue
                for body in widget.bodies:
                    cursor = body.document().find(words)
                    while not cursor.isNull():
                        found.append(Match(body, cursor))
                        cursor = body.document().find(words, cursor)
        self._mark(found)
        self.at = -1
        self.step(1)

    def step(self, by: int) -> None:
        """Select the next (``by`` 1) or previous (-1) match, and bring it into view."""
        if not self.matches:
            none = tr("Find in chat", "No matches") if self.field.text().strip() else ""
            self.count.setText(none)
            return
        self.at = (self.at + by) % len(self.matches)
        match = self.matches[self.at]
        match.body.setTextCursor(match.cursor)
        self.view.ensureWidgetVisible(match.body, 0, 80)
        self.count.setText(
            tr("Find in chat", "{at} of {total}").format(at=self.at + 1, total=len(self.matches))
        )

    def _mark(self, found: list[Match]) -> None:
        marked = QTextCharFormat()
        marked.setBackground(QColor(255, 214, 0, 110))
        by_body: dict[int, tuple[MessageBody, list[QTextEdit.ExtraSelection]]] = {}
        for old in self.matches:
            by_body.setdefault(id(old.body), (old.body, []))
        for match in found:
            selection = QTextEdit.ExtraSelection()
            selection.cursor = match.cursor
            selection.format = marked
            by_body.setdefault(id(match.body), (match.body, []))[1].append(selection)
        for body, selections in by_body.values():
            if isValid(body):  # a message of a chat closed since is gone
                body.setExtraSelections(selections)
        self.matches = found

    def forget(self) -> None:
        """Another chat opened: its messages are other widgets; the bar closes."""
        self.matches, self.at = [], -1
        self.count.setText("")
        self.setVisible(False)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.field and event.type() == QEvent.Type.KeyPress:
            assert isinstance(event, QKeyEvent)
            if event.key() == Qt.Key.Key_Escape:
                self.close_bar()
                return True
            if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                back = bool(event.modifiers() & Qt.KeyboardModifier.ShiftModifier)
                self.step(-1 if back else 1)
                return True
        return super().eventFilter(watched, event)
