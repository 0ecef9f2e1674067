"""The left column: new chat, search across conversations, the conversation list, and the views."""

from __future__ import annotations

import html
from collections.abc import Sequence
from datetime import date, datetime
from typing import TYPE_CHECKING

from PySide6.QtCore import QPoint, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QIcon, QPainter, QPalette, QPixmap
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

if TYPE_CHECKING:
    from engine.store import Conversation, SearchHit

CONVERSATION_ROLE = Qt.ItemDataRole.UserRole
MESSAGE_ROLE = Qt.ItemDataRole.UserRole + 1
WEEK_DAYS = 7


def when_heading(day: date, today: date) -> str:
    """Which heading of the list a conversation last used on ``day`` goes under."""
    age = (today - day).days
    if age <= 0:
        return "Today"
    if age == 1:
        return "Yesterday"
    if age <= WEEK_DAYS:
        return "Previous 7 days"
    return "Older"


def _heading_item(text: str) -> QListWidgetItem:
    """A heading between conversations: read, never chosen."""
    item = QListWidgetItem(text)
    item.setFlags(Qt.ItemFlag.NoItemFlags)
    font = item.font()
    font.setBold(True)
    font.setPointSizeF(max(font.pointSizeF() * 0.85, 7.0))
    item.setFont(font)
    return item


SEARCH_DELAY_MS = 200


class Sidebar(QWidget):
    new_chat_requested = Signal()
    conversation_selected = Signal(int, object)  # (conversation id, message id to show or None)
    rename_requested = Signal(int, str)
    delete_requested = Signal(int)
    export_requested = Signal(int, str)  # (conversation id, "markdown" | "json")
    search_changed = Signal(str)
    view_requested = Signal(str)  # "chat" | "models" | "hardware" | "documents"

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("Sidebar")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.setMinimumWidth(220)
        self.setMaximumWidth(360)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 12, 10, 10)
        layout.setSpacing(8)

        title = QLabel("<b style='font-size:13pt'>Cove</b>")
        self.new_button = QPushButton("New chat")
        self.new_button.setObjectName("Primary")
        self.new_button.setToolTip("Start a new conversation (Ctrl+N)")
        self.new_button.clicked.connect(self.new_chat_requested)
        top = QHBoxLayout()
        top.addWidget(title)
        top.addStretch(1)
        top.addWidget(self.new_button)
        layout.addLayout(top)

        self.search = QLineEdit()
        self.search.setObjectName("Search")
        self.search.setPlaceholderText("Search conversations")
        self.search.setAccessibleName("Search conversations")
        self.search.setClearButtonEnabled(True)
        self._search_timer = QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(SEARCH_DELAY_MS)
        self._search_timer.timeout.connect(lambda: self.search_changed.emit(self.query))
        self.search.textChanged.connect(lambda _t: self._search_timer.start())
        layout.addWidget(self.search)

        self.list = QListWidget()
        self.list.setObjectName("ConversationList")
        self.list.setWordWrap(False)
        self.list.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.list.customContextMenuRequested.connect(self._context_menu)
        self.list.itemClicked.connect(self._item_clicked)
        self.list.itemActivated.connect(self._item_clicked)
        self.list.itemChanged.connect(self._item_changed)
        layout.addWidget(self.list, 1)

        self.empty = QLabel("No conversations yet.")
        self.empty.setProperty("muted", True)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setVisible(False)
        layout.addWidget(self.empty)

        self.models_button = QPushButton("Models")
        self.models_button.setObjectName("Secondary")
        self.models_button.setToolTip("Installed models and whether they fit here")
        self.hardware_button = QPushButton("Hardware")
        self.hardware_button.setObjectName("Secondary")
        self.hardware_button.setToolTip("What this computer has and what Cove uses")
        self.documents_button = QPushButton("Documents")
        self.documents_button.setObjectName("Secondary")
        self.documents_button.setToolTip("Your files, indexed to ask questions about")
        self.models_button.clicked.connect(lambda: self.view_requested.emit("models"))
        self.hardware_button.clicked.connect(lambda: self.view_requested.emit("hardware"))
        self.documents_button.clicked.connect(lambda: self.view_requested.emit("documents"))
        layout.addWidget(self.documents_button)
        bottom = QHBoxLayout()
        bottom.addWidget(self.models_button)
        bottom.addWidget(self.hardware_button)
        layout.addLayout(bottom)
        self._current: int | None = None
        self._filling = False
        self._answering: frozenset[int] = frozenset()  # conversations with a reply streaming

    @property
    def query(self) -> str:
        return self.search.text().strip()

    def set_conversations(self, conversations: Sequence[Conversation]) -> None:
        """The conversations, newest first, under the day they were last used: Today,
        Yesterday, Previous 7 days, Older."""
        self._filling = True
        self.list.clear()
        today = date.today()
        heading = None
        for conv in conversations:
            when = when_heading(datetime.fromtimestamp(conv.updated_at).date(), today)
            if when != heading:
                heading = when
                self.list.addItem(_heading_item(when))
            item = QListWidgetItem(conv.title or "Untitled")
            item.setData(CONVERSATION_ROLE, conv.id)
            item.setToolTip(conv.title)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsEditable)
            self._mark(item)
            self.list.addItem(item)
            if conv.id == self._current:
                item.setSelected(True)
                self.list.setCurrentItem(item)
        self._filling = False
        self.empty.setVisible(not conversations)
        self.empty.setText("No conversations yet.")

    def set_search_results(self, hits: Sequence[SearchHit]) -> None:
        self._filling = True
        self.list.clear()
        for hit in hits:
            text = hit.title if hit.message_id is None else f"{hit.title}\n{hit.snippet}"
            item = QListWidgetItem(text)
            item.setData(CONVERSATION_ROLE, hit.conversation_id)
            item.setData(MESSAGE_ROLE, hit.message_id)
            item.setToolTip(html.escape(hit.snippet or hit.title))
            self.list.addItem(item)
        self._filling = False
        self.empty.setVisible(not hits)
        self.empty.setText("Nothing found.")

    def conversation_items(self) -> list[QListWidgetItem]:
        """The list's conversations (its headings left out), in order."""
        items = (self.list.item(row) for row in range(self.list.count()))
        return [item for item in items if item.data(CONVERSATION_ROLE) is not None]

    def set_answering(self, conversation_ids: frozenset[int]) -> None:
        """Mark the conversations whose reply is being written (a dot before the title)."""
        self._answering = conversation_ids
        self._filling = True
        for row in range(self.list.count()):
            item = self.list.item(row)
            if item.data(MESSAGE_ROLE) is None and item.data(CONVERSATION_ROLE) is not None:
                self._mark(item)
        self._filling = False

    def _mark(self, item: QListWidgetItem) -> None:
        answering = item.data(CONVERSATION_ROLE) in self._answering
        link = self.palette().color(QPalette.ColorRole.Link)
        item.setIcon(_answering_dot(link) if answering else QIcon())
        title = item.text()
        item.setToolTip(f"{title}\nCove is answering here" if answering else title)

    def set_current(self, conversation_id: int | None) -> None:
        self._current = conversation_id
        self.list.clearSelection()
        for row in range(self.list.count()):
            item = self.list.item(row)
            if item.data(CONVERSATION_ROLE) == conversation_id and item.data(MESSAGE_ROLE) is None:
                self.list.setCurrentItem(item)
                item.setSelected(True)
                return

    def begin_rename(self, conversation_id: int) -> None:
        for row in range(self.list.count()):
            item = self.list.item(row)
            if item.data(CONVERSATION_ROLE) == conversation_id:
                self.list.editItem(item)
                return

    def _item_clicked(self, item: QListWidgetItem) -> None:
        conv_id = item.data(CONVERSATION_ROLE)
        if conv_id is not None:
            self.conversation_selected.emit(int(conv_id), item.data(MESSAGE_ROLE))

    def _item_changed(self, item: QListWidgetItem) -> None:
        if self._filling or self.query:
            return
        conv_id = item.data(CONVERSATION_ROLE)
        title = item.text().strip()
        if conv_id is not None and title:
            self.rename_requested.emit(int(conv_id), title)

    def _context_menu(self, pos: QPoint) -> None:
        item = self.list.itemAt(pos)
        if item is None:
            return
        conv_id = int(item.data(CONVERSATION_ROLE))
        menu = QMenu(self)
        menu.addAction("Rename", lambda: self.begin_rename(conv_id))
        export = self.export_requested
        menu.addAction("Export as Markdown…", lambda: export.emit(conv_id, "markdown"))
        menu.addAction("Export as JSON…", lambda: export.emit(conv_id, "json"))
        menu.addSeparator()
        menu.addAction("Delete…", lambda: self.delete_requested.emit(conv_id))
        menu.exec(self.list.viewport().mapToGlobal(pos))


def _answering_dot(color: QColor) -> QIcon:
    """A small filled circle in the accent colour: this conversation's reply is streaming."""
    size = 16
    pixmap = QPixmap(size, size)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(color)
    painter.drawEllipse(4, 4, 8, 8)
    painter.end()
    return QIcon(pixmap)
