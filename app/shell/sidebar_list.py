"""The conversation list as a widget: chats dragged onto folders, titles edited in place, folders
opened and closed from the keyboard, and the context menu from the keyboard too."""

from __future__ import annotations

from PySide6.QtCore import (
    QAbstractItemModel,
    QByteArray,
    QMimeData,
    QModelIndex,
    QPersistentModelIndex,
    QPoint,
    Qt,
    Signal,
)
from PySide6.QtGui import (
    QColor,
    QContextMenuEvent,
    QDrag,
    QDragEnterEvent,
    QDragLeaveEvent,
    QDragMoveEvent,
    QDropEvent,
    QKeyEvent,
    QPainter,
    QPalette,
    QPen,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QWidget,
)

from app.common.i18n import tr

CONVERSATION_ROLE = Qt.ItemDataRole.UserRole
MESSAGE_ROLE = Qt.ItemDataRole.UserRole + 1
FOLDER_ROLE = Qt.ItemDataRole.UserRole + 2  # a folder's row: the folder's id
IN_FOLDER_ROLE = Qt.ItemDataRole.UserRole + 3  # a row shown inside a folder: that folder's id
EXPANDED_ROLE = Qt.ItemDataRole.UserRole + 4  # a folder's row: whether its chats are shown
COUNT_ROLE = Qt.ItemDataRole.UserRole + 5  # a folder's row: how many chats it shows

CHAT_MIME = "application/x-cove-conversation"
INDENT = 18  # how far a folder's chats are set in


def chat_mime(conversation_id: int) -> QMimeData:
    """What a dragged chat carries: its id."""
    data = QMimeData()
    data.setData(CHAT_MIME, QByteArray(str(conversation_id).encode("ascii")))
    return data


def dragged_chat(data: QMimeData | None) -> int | None:
    if data is None or not data.hasFormat(CHAT_MIME):
        return None
    text = bytes(data.data(CHAT_MIME).data()).decode("ascii", "replace")
    return int(text) if text.isdigit() else None


Index = QModelIndex | QPersistentModelIndex


class RowDelegate(QStyledItemDelegate):
    """Sets a folder's chats in, outlines the folder a chat is dragged over, and never saves an
    empty title."""

    def __init__(self, view: ConversationView) -> None:
        super().__init__(view)
        self.view = view

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: Index) -> None:
        inset = QStyleOptionViewItem(option)
        if index.data(IN_FOLDER_ROLE) is not None:
            inset.rect = option.rect.adjusted(INDENT, 0, 0, 0)
        super().paint(painter, inset, index)
        folder = index.data(FOLDER_ROLE)
        if folder is not None and folder == self.view.drop_folder:
            painter.save()
            color = option.palette.color(QPalette.ColorRole.Highlight)
            painter.setPen(QPen(color, 2))
            painter.setBrush(QColor(0, 0, 0, 0))
            painter.drawRoundedRect(option.rect.adjusted(3, 1, -3, -1), 8, 8)
            painter.restore()

    def createEditor(self, parent: QWidget, option: QStyleOptionViewItem, index: Index) -> QWidget:
        editor = super().createEditor(parent, option, index)
        if isinstance(editor, QLineEdit):
            folder = index.data(FOLDER_ROLE) is not None
            name = tr("Sidebar", "Folder name") if folder else tr("Sidebar", "Chat title")
            editor.setAccessibleName(name)
        return editor

    def updateEditorGeometry(
        self, editor: QWidget, option: QStyleOptionViewItem, index: Index
    ) -> None:
        super().updateEditorGeometry(editor, option, index)
        if index.data(IN_FOLDER_ROLE) is not None:
            editor.setGeometry(editor.geometry().adjusted(INDENT, 0, 0, 0))

    def setModelData(self, editor: QWidget, model: QAbstractItemModel, index: Index) -> None:
        if isinstance(editor, QLineEdit) and not editor.text().strip():
            return  # an empty name is refused: the old one stays
        super().setModelData(editor, model, index)


class ConversationView(QListWidget):
    """The list of headings, folders and chats (app/shell/sidebar.py fills it)."""

    chat_dropped = Signal(int, object)  # (conversation id, folder id or None: the top level)
    menu_requested = Signal(object, QPoint)  # (the row or None, where: global position)
    folder_toggled = Signal(int, bool)  # (folder id, open)
    delete_pressed = Signal(object)  # the row

    def __init__(self) -> None:
        super().__init__()
        self.drop_folder: int | None = None  # the folder a chat is dragged over
        self.setItemDelegate(RowDelegate(self))
        self.setDragEnabled(True)
        self.setAcceptDrops(True)
        self.setDragDropMode(QAbstractItemView.DragDropMode.DragDrop)
        self.setDefaultDropAction(Qt.DropAction.MoveAction)
        self.setDropIndicatorShown(False)
        self.setEditTriggers(
            QAbstractItemView.EditTrigger.DoubleClicked
            | QAbstractItemView.EditTrigger.EditKeyPressed
        )

    # Dragging a chat

    def mime_for(self, item: QListWidgetItem) -> QMimeData | None:
        conv_id = item.data(CONVERSATION_ROLE)
        if conv_id is None or not item.flags() & Qt.ItemFlag.ItemIsDragEnabled:
            return None
        return chat_mime(int(conv_id))

    def startDrag(self, supportedActions: Qt.DropAction) -> None:
        item = self.currentItem()
        data = self.mime_for(item) if item is not None else None
        if data is None:
            return
        drag = QDrag(self)
        drag.setMimeData(data)
        # The list is rebuilt from the history once the move is saved: nothing is removed here.
        drag.exec(Qt.DropAction.MoveAction)

    def folder_at(self, pos: QPoint) -> int | None:
        """The folder a chat dropped at ``pos`` (viewport coordinates) goes into: the folder
        under it, or the one whose chat is under it; None for the top level."""
        item = self.itemAt(pos)
        if item is None:
            return None
        folder = item.data(FOLDER_ROLE)
        if folder is None:
            folder = item.data(IN_FOLDER_ROLE)
        return int(folder) if folder is not None else None

    def _show_target(self, folder: int | None) -> None:
        if folder != self.drop_folder:
            self.drop_folder = folder
            self.viewport().update()

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if dragged_chat(event.mimeData()) is None:
            event.ignore()
            return
        self.setState(QAbstractItemView.State.DraggingState)
        event.setDropAction(Qt.DropAction.MoveAction)
        event.accept()

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:
        if dragged_chat(event.mimeData()) is None:
            event.ignore()
            return
        super().dragMoveEvent(event)  # scrolls the list near its edges
        self._show_target(self.folder_at(event.position().toPoint()))
        event.setDropAction(Qt.DropAction.MoveAction)
        event.accept()

    def dragLeaveEvent(self, event: QDragLeaveEvent) -> None:
        self._show_target(None)
        super().dragLeaveEvent(event)

    def dropEvent(self, event: QDropEvent) -> None:
        conv_id = dragged_chat(event.mimeData())
        self._show_target(None)
        self.stopAutoScroll()
        self.setState(QAbstractItemView.State.NoState)
        if conv_id is None:
            event.ignore()
            return
        event.setDropAction(Qt.DropAction.MoveAction)
        event.accept()
        self.chat_dropped.emit(conv_id, self.folder_at(event.position().toPoint()))

    # Keys and the context menu

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        if event.reason() == QContextMenuEvent.Reason.Mouse:
            pos = event.pos()  # a scroll area is handed its viewport's events as they are
            self.menu_requested.emit(self.itemAt(pos), self.viewport().mapToGlobal(pos))
        else:
            self.open_menu()
        event.accept()

    def open_menu(self) -> None:
        """The context menu of the current row, beside it (the menu key, Shift+F10)."""
        item: QListWidgetItem | None = self.currentItem()
        pos = QPoint(0, 0)
        if item is not None and not item.isHidden():
            rect = self.visualItemRect(item)
            pos = QPoint(rect.left() + INDENT, rect.bottom())
        else:
            item = None
        self.menu_requested.emit(item, self.viewport().mapToGlobal(pos))

    def keyPressEvent(self, event: QKeyEvent) -> None:
        key = event.key()
        shift = event.modifiers() & Qt.KeyboardModifier.ShiftModifier
        if key == Qt.Key.Key_Menu or (key == Qt.Key.Key_F10 and shift):
            self.open_menu()
            event.accept()
            return
        item = self.currentItem()
        if item is not None and self.state() != QAbstractItemView.State.EditingState:
            if key == Qt.Key.Key_Delete:
                self.delete_pressed.emit(item)
                event.accept()
                return
            if self._folder_key(item, key):
                event.accept()
                return
        super().keyPressEvent(event)

    def _folder_key(self, item: QListWidgetItem, key: int) -> bool:
        """Enter and Space open or close a folder, Right opens it, Left closes it; Left on a
        chat in a folder goes to the folder."""
        folder = item.data(FOLDER_ROLE)
        if folder is None:
            inside = item.data(IN_FOLDER_ROLE)
            if key != Qt.Key.Key_Left or inside is None:
                return False
            for row in range(self.count()):
                if self.item(row).data(FOLDER_ROLE) == inside:
                    self.setCurrentItem(self.item(row))
            return True
        folder, expanded = int(folder), bool(item.data(EXPANDED_ROLE))
        return self._toggle_key(folder, expanded, key)

    def _toggle_key(self, folder: int, expanded: bool, key: int) -> bool:
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space):
            self.folder_toggled.emit(folder, not expanded)
            return True
        if key == Qt.Key.Key_Right and not expanded:
            self.folder_toggled.emit(folder, True)
            return True
        if key == Qt.Key.Key_Left and expanded:
            self.folder_toggled.emit(folder, False)
            return True
        return False
