"""The left column: new chat, search across conversations, the conversation list (pinned chats,
folders, and the rest under the day they were last used), and the views."""

from __future__ import annotations

import html
from collections.abc import Callable, Iterable, Sequence
from datetime import date
from typing import TYPE_CHECKING

from PySide6.QtCore import QPoint, QPointF, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QIcon, QPainter, QPalette, QPixmap, QPolygonF
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidgetItem,
    QMenu,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.common.i18n import tr
from app.shell.sidebar_list import (
    CONVERSATION_ROLE,
    COUNT_ROLE,
    EXPANDED_ROLE,
    FOLDER_ROLE,
    IN_FOLDER_ROLE,
    MESSAGE_ROLE,
    ConversationView,
)
from app.shell.sidebar_menu import chat_menu, folder_menu, list_menu
from app.shell.sidebar_rows import Row, arrange, new_folder_name
from app.shell.sidebar_rows import when_heading as when_heading

if TYPE_CHECKING:
    from engine.store import Conversation, Folder, SearchHit

__all__ = ["CONVERSATION_ROLE", "MESSAGE_ROLE", "Sidebar", "when_heading"]

SEARCH_DELAY_MS = 200
DESCRIPTION_ROLE = Qt.ItemDataRole.AccessibleDescriptionRole


def _heading_item(text: str) -> QListWidgetItem:
    """A heading between conversations: read, never chosen."""
    item = QListWidgetItem(text)
    item.setFlags(Qt.ItemFlag.NoItemFlags)
    font = item.font()
    font.setBold(True)
    font.setPointSizeF(max(font.pointSizeF() * 0.85, 7.0))
    item.setFont(font)
    return item


def _chat_count(count: int) -> str:
    if count == 1:
        return tr("Sidebar", "1 chat")
    return tr("Sidebar", "{count} chats").format(count=count)


class Sidebar(QWidget):
    new_chat_requested = Signal()
    conversation_selected = Signal(int, object)  # (conversation id, message id to show or None)
    rename_requested = Signal(int, str)
    delete_requested = Signal(int)
    export_requested = Signal(int, str)  # (conversation id, "markdown" | "json")
    search_changed = Signal(str)
    view_requested = Signal(str)  # "chat" | "models" | "hardware" | "documents" | "settings"
    pin_requested = Signal(int, bool)  # (conversation id, pinned)
    move_requested = Signal(int, object)  # (conversation id, folder id or None: out of folders)
    folder_create_requested = Signal(str, object)  # (name, a conversation to file in it or None)
    folder_rename_requested = Signal(int, str)
    folder_delete_requested = Signal(int)
    collapsed_changed = Signal(object)  # frozenset of the ids of the folders shown closed

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
        self.new_button = QPushButton(tr("Sidebar", "New chat"))
        self.new_button.setObjectName("Primary")
        self.new_button.setToolTip(tr("Sidebar", "Start a new conversation (Ctrl+N)"))
        self.new_button.clicked.connect(self.new_chat_requested)
        top = QHBoxLayout()
        top.addWidget(title)
        top.addStretch(1)
        top.addWidget(self.new_button)
        layout.addLayout(top)

        self.search = QLineEdit()
        self.search.setObjectName("Search")
        self.search.setPlaceholderText(tr("Sidebar", "Search conversations"))
        self.search.setAccessibleName(tr("Sidebar", "Search conversations"))
        self.search.setClearButtonEnabled(True)
        self._search_timer = QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(SEARCH_DELAY_MS)
        self._search_timer.timeout.connect(lambda: self.search_changed.emit(self.query))
        self.search.textChanged.connect(lambda _t: self._search_timer.start())
        layout.addWidget(self.search)

        self.new_folder_button = QPushButton(tr("Sidebar", "New folder"))
        self.new_folder_button.setObjectName("Secondary")
        self.new_folder_button.setAccessibleName(tr("Sidebar", "New folder"))
        self.new_folder_button.setToolTip(tr("Sidebar", "A folder to drag chats into"))
        self.new_folder_button.clicked.connect(lambda: self.request_new_folder(None))
        self.pin_button = QPushButton(tr("Sidebar", "Pin"))
        self.pin_button.setObjectName("Secondary")
        self.pin_button.setToolTip(tr("Sidebar", "Keep the selected chat at the top of the list"))
        self.pin_button.clicked.connect(self._pin_clicked)
        actions = QHBoxLayout()
        actions.addWidget(self.new_folder_button)
        actions.addWidget(self.pin_button)
        actions.addStretch(1)
        layout.addLayout(actions)

        self.list = ConversationView()
        self.list.setObjectName("ConversationList")
        self.list.setAccessibleName(tr("Sidebar", "Conversations"))
        self.list.setWordWrap(False)
        self.list.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.menu_requested.connect(self._show_menu)
        self.list.chat_dropped.connect(self._dropped)
        self.list.folder_toggled.connect(self.expand_folder)
        self.list.delete_pressed.connect(self._delete_pressed)
        self.list.itemClicked.connect(self._item_clicked)
        self.list.itemActivated.connect(self._item_activated)
        self.list.itemChanged.connect(self._item_changed)
        self.list.currentItemChanged.connect(lambda *_a: self._update_pin_button())
        self.list.itemDelegate().closeEditor.connect(
            lambda *_a: QTimer.singleShot(0, self._render_if_stale)
        )
        layout.addWidget(self.list, 1)

        self.empty = QLabel(tr("Sidebar", "No conversations yet."))
        self.empty.setProperty("muted", True)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setVisible(False)
        layout.addWidget(self.empty)

        self.models_button = QPushButton(tr("Sidebar", "Models"))
        self.models_button.setObjectName("Secondary")
        self.models_button.setToolTip(tr("Sidebar", "Installed models and whether they fit here"))
        self.hardware_button = QPushButton(tr("Sidebar", "Hardware"))
        self.hardware_button.setObjectName("Secondary")
        self.hardware_button.setToolTip(tr("Sidebar", "What this computer has and what Cove uses"))
        self.documents_button = QPushButton(tr("Sidebar", "Documents"))
        self.documents_button.setObjectName("Secondary")
        self.documents_button.setToolTip(
            tr("Sidebar", "Your files, indexed to ask questions about")
        )
        self.settings_button = QPushButton(tr("Sidebar", "Settings"))
        self.settings_button.setObjectName("Secondary")
        self.settings_button.setToolTip(
            tr("Sidebar", "Appearance, language, engine, MCP servers, privacy (Ctrl+,)")
        )
        self.settings_button.clicked.connect(lambda: self.view_requested.emit("settings"))
        self.models_button.clicked.connect(lambda: self.view_requested.emit("models"))
        self.hardware_button.clicked.connect(lambda: self.view_requested.emit("hardware"))
        self.documents_button.clicked.connect(lambda: self.view_requested.emit("documents"))
        top = QHBoxLayout()
        top.addWidget(self.documents_button)
        top.addWidget(self.settings_button)
        layout.addLayout(top)
        bottom = QHBoxLayout()
        bottom.addWidget(self.models_button)
        bottom.addWidget(self.hardware_button)
        layout.addLayout(bottom)
        self.folders: list[Folder] = []
        self._conversations: list[Conversation] = []
        self._by_id: dict[int, Conversation] = {}
        self._collapsed: set[int] = set()
        self._current: int | None = None
        self._filling = False
        self._stale = False  # a list arrived while a name was being edited
        self._rename_folder: int | None = None  # a new folder, renamed once it is shown
        self._answering: frozenset[int] = frozenset()  # conversations with a reply streaming
        self._update_pin_button()

    @property
    def query(self) -> str:
        return self.search.text().strip()

    # Filling the list

    def set_conversations(
        self, conversations: Sequence[Conversation], folders: Sequence[Folder] | None = None
    ) -> None:
        """The conversations, newest first: the pinned ones, the folders (``None``: the ones
        known already) with the chats filed in them, and the rest under the day they were last
        used: Today, Yesterday, Previous 7 days, Older."""
        if folders is not None:
            self.folders = list(folders)
        self._conversations = list(conversations)
        self._by_id = {conv.id: conv for conv in conversations}
        if self.query or self.list.state() == QAbstractItemView.State.EditingState:
            self._stale = True  # shown once the search ends, or the name is saved or given up
            return
        self._render()

    def set_folders(self, folders: Sequence[Folder]) -> None:
        self.set_conversations(self._conversations, folders)

    def set_collapsed(self, folder_ids: Iterable[int]) -> None:
        """The folders to show closed (as they were left)."""
        self._collapsed = set(folder_ids)
        if not self.query and self.list.state() != QAbstractItemView.State.EditingState:
            self._render()

    def _render_if_stale(self) -> None:
        if self._stale and not self.query:
            self._render()

    def _render(self) -> None:
        self._stale = False
        kept = self._row_key(self.list.currentItem())
        self._filling = True
        self.list.clear()
        restore: QListWidgetItem | None = None
        for row in arrange(self._conversations, self.folders, date.today()):
            item = self._item(row)
            self.list.addItem(item)
            if row.in_folder in self._collapsed:
                item.setHidden(True)
            if row.conversation is not None and row.conversation.id == self._current:
                item.setSelected(True)
                self.list.setCurrentItem(item)
            if kept is not None and self._row_key(item) == kept and not item.isHidden():
                restore = item
        if restore is not None:
            self.list.setCurrentItem(restore)
        self._filling = False
        self.empty.setVisible(not self._conversations and not self.folders)
        self.empty.setText(tr("Sidebar", "No conversations yet."))
        self._update_pin_button()
        if self._rename_folder is not None:
            self.begin_folder_rename(self._rename_folder)

    def _item(self, row: Row) -> QListWidgetItem:
        if row.kind == "heading":
            return _heading_item(row.text)
        item = QListWidgetItem(row.text)
        item.setData(IN_FOLDER_ROLE, row.in_folder)
        if row.kind == "empty":
            item.setFlags(Qt.ItemFlag.ItemIsDropEnabled)
            font = item.font()
            font.setItalic(True)
            item.setFont(font)
        elif row.folder is not None:
            item.setData(FOLDER_ROLE, row.folder.id)
            item.setData(EXPANDED_ROLE, row.folder.id not in self._collapsed)
            item.setFlags(
                Qt.ItemFlag.ItemIsSelectable
                | Qt.ItemFlag.ItemIsEnabled
                | Qt.ItemFlag.ItemIsEditable
                | Qt.ItemFlag.ItemIsDropEnabled
            )
            self._mark_folder(item, row.count)
        elif row.conversation is not None:
            item.setData(CONVERSATION_ROLE, row.conversation.id)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsEditable | Qt.ItemFlag.ItemIsDragEnabled)
            self._mark(item)
        return item

    def _mark_folder(self, item: QListWidgetItem, count: int) -> None:
        """A folder's arrow, and what a screen reader says of it: how many chats, open or not."""
        opened = bool(item.data(EXPANDED_ROLE))
        item.setData(COUNT_ROLE, count)
        color = self.palette().color(QPalette.ColorRole.Text)
        item.setIcon(_arrow(color, opened))
        state = tr("Sidebar", "open") if opened else tr("Sidebar", "closed")
        description = tr("Sidebar", "Folder, {chats}, {state}").format(
            chats=_chat_count(count), state=state
        )
        item.setData(DESCRIPTION_ROLE, description)
        item.setToolTip(f"{item.text()}\n{_chat_count(count)}")

    def set_search_results(self, hits: Sequence[SearchHit]) -> None:
        """Every chat that matches, whichever folder it is in (the folder is named with it)."""
        self._filling = True
        self.list.clear()
        names = {folder.id: folder.name for folder in self.folders}
        for hit in hits:
            text = hit.title if hit.message_id is None else f"{hit.title}\n{hit.snippet}"
            item = QListWidgetItem(text)
            item.setData(CONVERSATION_ROLE, hit.conversation_id)
            item.setData(MESSAGE_ROLE, hit.message_id)
            item.setFlags(Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsEnabled)
            tip = html.escape(hit.snippet or hit.title)
            conv = self._by_id.get(hit.conversation_id)
            folder = names.get(conv.folder_id) if conv is not None and conv.folder_id else None
            if folder is not None:
                where = tr("Sidebar", "In the folder {name}").format(name=folder)
                tip = f"{tip}<br>{html.escape(where)}"
                item.setData(DESCRIPTION_ROLE, where)
            item.setToolTip(tip)
            self.list.addItem(item)
        self._filling = False
        self.empty.setVisible(not hits)
        self.empty.setText(tr("Sidebar", "Nothing found."))
        self._update_pin_button()

    def conversation_items(self) -> list[QListWidgetItem]:
        """The list's conversations (its headings and folders left out), in order; a closed
        folder's chats too."""
        items = (self.list.item(row) for row in range(self.list.count()))
        return [item for item in items if item.data(CONVERSATION_ROLE) is not None]

    def folder_items(self) -> list[QListWidgetItem]:
        items = (self.list.item(row) for row in range(self.list.count()))
        return [item for item in items if item.data(FOLDER_ROLE) is not None]

    def _find(self, role: int, value: int) -> QListWidgetItem | None:
        for row in range(self.list.count()):
            item = self.list.item(row)
            if item.data(role) == value and item.data(MESSAGE_ROLE) is None:
                return item
        return None

    @staticmethod
    def _row_key(item: QListWidgetItem | None) -> tuple[str, int] | None:
        if item is None or item.data(MESSAGE_ROLE) is not None:
            return None
        for kind, role in (("chat", CONVERSATION_ROLE), ("folder", FOLDER_ROLE)):
            value = item.data(role)
            if value is not None:
                return kind, int(value)
        return None

    # Replies streaming, the open chat

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
        here = tr("Sidebar", "Cove is answering here")
        item.setToolTip(f"{title}\n{here}" if answering else title)

    def set_current(self, conversation_id: int | None) -> None:
        """Show ``conversation_id`` chosen; a chat just opened in a closed folder opens it."""
        opened = conversation_id != self._current
        self._current = conversation_id
        if not opened and self._row_key(self.list.currentItem()) is not None:
            return  # the same chat: the row the keyboard is on stays
        self.list.clearSelection()
        item = self._find(CONVERSATION_ROLE, conversation_id) if conversation_id else None
        if item is None:
            return
        folder = item.data(IN_FOLDER_ROLE)
        if item.isHidden() and folder is not None:
            self.expand_folder(int(folder), True)
        self.list.setCurrentItem(item)
        item.setSelected(True)

    # Pins, folders, names

    def _chosen_chat(self) -> int | None:
        item = self.list.currentItem()
        conv_id = item.data(CONVERSATION_ROLE) if item is not None else None
        return int(conv_id) if conv_id is not None else None

    def _update_pin_button(self) -> None:
        conv_id = self._chosen_chat()
        conv = self._by_id.get(conv_id) if conv_id is not None else None
        text = tr("Sidebar", "Unpin") if conv is not None and conv.pinned else tr("Sidebar", "Pin")
        self.pin_button.setText(text)
        self.pin_button.setAccessibleName(text)
        self.pin_button.setEnabled(conv is not None)

    def _pin_clicked(self) -> None:
        conv_id = self._chosen_chat()
        conv = self._by_id.get(conv_id) if conv_id is not None else None
        if conv is not None:
            self.pin_requested.emit(conv.id, not conv.pinned)

    def request_new_folder(self, conversation_id: int | None) -> None:
        """Ask for a new folder (named in place once it is shown), ``conversation_id`` filed in
        it. A search is ended first: the folder is shown in the whole list."""
        if self.query:
            self.search.clear()
        name = new_folder_name([folder.name for folder in self.folders])
        self.folder_create_requested.emit(name, conversation_id)

    def rename_folder_when_shown(self, folder_id: int) -> None:
        self._rename_folder = folder_id

    def expand_folder(self, folder_id: int, opened: bool) -> None:
        """Show or hide a folder's chats."""
        if opened:
            self._collapsed.discard(folder_id)
        else:
            self._collapsed.add(folder_id)
        self._filling = True
        for row in range(self.list.count()):
            item = self.list.item(row)
            if item.data(FOLDER_ROLE) == folder_id:
                item.setData(EXPANDED_ROLE, opened)
                self._mark_folder(item, int(item.data(COUNT_ROLE) or 0))
            elif item.data(IN_FOLDER_ROLE) == folder_id:
                item.setHidden(not opened)
        self._filling = False
        self.collapsed_changed.emit(frozenset(self._collapsed))

    def begin_rename(self, conversation_id: int) -> None:
        """Edit a chat's title in place: Enter saves it, Esc gives up, an empty one is refused."""
        item = self._find(CONVERSATION_ROLE, conversation_id)
        if item is None:
            return
        folder = item.data(IN_FOLDER_ROLE)
        if item.isHidden() and folder is not None:
            self.expand_folder(int(folder), True)
        self.list.setCurrentItem(item)
        self.list.editItem(item)

    def begin_folder_rename(self, folder_id: int) -> None:
        item = self._find(FOLDER_ROLE, folder_id)
        if item is None:
            return
        self._rename_folder = None
        self.list.setFocus()
        self.list.setCurrentItem(item)
        self.list.editItem(item)

    def _dropped(self, conversation_id: int, folder_id: int | None) -> None:
        conv = self._by_id.get(conversation_id)
        if conv is None or conv.folder_id != folder_id:
            self.move_requested.emit(conversation_id, folder_id)

    def _delete_pressed(self, item: QListWidgetItem) -> None:
        folder = item.data(FOLDER_ROLE)
        conv_id = item.data(CONVERSATION_ROLE)
        if folder is not None:
            self.folder_delete_requested.emit(int(folder))
        elif conv_id is not None:
            self.delete_requested.emit(int(conv_id))

    def _item_clicked(self, item: QListWidgetItem) -> None:
        folder = item.data(FOLDER_ROLE)
        if folder is not None:
            self.expand_folder(int(folder), not item.data(EXPANDED_ROLE))
        else:
            self._item_activated(item)

    def _item_activated(self, item: QListWidgetItem) -> None:
        conv_id = item.data(CONVERSATION_ROLE)
        if conv_id is not None:
            self.conversation_selected.emit(int(conv_id), item.data(MESSAGE_ROLE))

    def _item_changed(self, item: QListWidgetItem) -> None:
        if self._filling or self.query:
            return
        name = item.text().strip()
        if not name:
            return
        folder = item.data(FOLDER_ROLE)
        conv_id = item.data(CONVERSATION_ROLE)
        if folder is not None:
            self.folder_rename_requested.emit(int(folder), name)
        elif conv_id is not None:
            self.rename_requested.emit(int(conv_id), name)

    # The context menu

    def menu_for(self, item: QListWidgetItem | None) -> QMenu:
        """The context menu of a row (None: of the list itself)."""
        folder = item.data(FOLDER_ROLE) if item is not None else None
        conv_id = item.data(CONVERSATION_ROLE) if item is not None else None
        if item is not None and folder is not None:
            return folder_menu(self, int(folder), bool(item.data(EXPANDED_ROLE)))
        if item is not None and conv_id is not None:
            renamable = bool(item.flags() & Qt.ItemFlag.ItemIsEditable)
            return chat_menu(self, int(conv_id), self._by_id.get(int(conv_id)), renamable)
        return list_menu(self)

    def _show_menu(self, item: QListWidgetItem | None, where: QPoint) -> None:
        self.menu_for(item).exec(where)


def _answering_dot(color: QColor) -> QIcon:
    """A small filled circle in the accent colour: this conversation's reply is streaming."""
    return _icon(color, lambda painter: painter.drawEllipse(4, 4, 8, 8))


def _arrow(color: QColor, opened: bool) -> QIcon:
    """A folder's small triangle: pointing down while its chats show, right while they are
    hidden."""
    if opened:
        points = [QPointF(4, 6), QPointF(12, 6), QPointF(8, 11)]
    else:
        points = [QPointF(6, 4), QPointF(11, 8), QPointF(6, 12)]
    return _icon(color, lambda painter: painter.drawPolygon(QPolygonF(points)))


def _icon(color: QColor, draw: Callable[[QPainter], None]) -> QIcon:
    """A 16-pixel icon, ``draw`` filling its shape in ``color`` on a clear ground."""
    pixmap = QPixmap(16, 16)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(color)
    draw(painter)
    painter.end()
    return QIcon(pixmap)
