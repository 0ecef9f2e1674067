"""The conversation list's context menus: a chat's (rename, pin, move to a folder, export,
delete), a folder's (rename, delete) and the list's own (a new folder)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import SignalInstance
from PySide6.QtWidgets import QMenu, QWidget

from app.common.i18n import tr

if TYPE_CHECKING:
    from engine.store import Conversation, Folder


class Sidebar(Protocol):
    """What the menus ask of the sidebar (app/shell/sidebar.py): its signals and its edits."""

    folders: list[Folder]
    new_chat_requested: SignalInstance
    pin_requested: SignalInstance
    export_requested: SignalInstance
    delete_requested: SignalInstance
    move_requested: SignalInstance
    folder_delete_requested: SignalInstance

    def begin_rename(self, conversation_id: int) -> None: ...
    def begin_folder_rename(self, folder_id: int) -> None: ...
    def request_new_folder(self, conversation_id: int | None) -> None: ...
    def expand_folder(self, folder_id: int, expanded: bool) -> None: ...
    def window(self) -> QWidget: ...


def chat_menu(sidebar: Sidebar, conv_id: int, conv: Conversation | None, renamable: bool) -> QMenu:
    """``conv`` is None for a chat the sidebar has not been told about (a search's hit)."""
    menu = QMenu(sidebar.window())
    if renamable:
        menu.addAction(tr("Sidebar", "Rename"), lambda: sidebar.begin_rename(conv_id))
    pinned = conv is not None and conv.pinned
    pin_text = tr("Sidebar", "Unpin") if pinned else tr("Sidebar", "Pin")
    menu.addAction(pin_text, lambda: sidebar.pin_requested.emit(conv_id, not pinned))
    move_menu(menu, sidebar, conv_id, conv.folder_id if conv is not None else None)
    export = sidebar.export_requested
    menu.addSeparator()
    menu.addAction(tr("Sidebar", "Export as Markdown…"), lambda: export.emit(conv_id, "markdown"))
    menu.addAction(tr("Sidebar", "Export as JSON…"), lambda: export.emit(conv_id, "json"))
    menu.addSeparator()
    menu.addAction(tr("Sidebar", "Delete…"), lambda: sidebar.delete_requested.emit(conv_id))
    return menu


def move_menu(menu: QMenu, sidebar: Sidebar, conv_id: int, folder_id: int | None) -> QMenu:
    """ "Move to folder ▸": every folder (the chat's own checked), a new one, or none."""
    moves = menu.addMenu(tr("Sidebar", "Move to folder"))
    for folder in sidebar.folders:
        action = moves.addAction(folder.name, _mover(sidebar, conv_id, folder.id))
        action.setCheckable(True)
        action.setChecked(folder.id == folder_id)
        action.setEnabled(folder.id != folder_id)
    if sidebar.folders:
        moves.addSeparator()
    moves.addAction(tr("Sidebar", "New folder…"), lambda: sidebar.request_new_folder(conv_id))
    if folder_id is not None:
        moves.addAction(
            tr("Sidebar", "Remove from folder"),
            lambda: sidebar.move_requested.emit(conv_id, None),
        )
    return moves


def _mover(sidebar: Sidebar, conv_id: int, folder_id: int) -> Callable[[], None]:
    return lambda: sidebar.move_requested.emit(conv_id, folder_id)


def folder_menu(sidebar: Sidebar, folder_id: int, expanded: bool) -> QMenu:
    menu = QMenu(sidebar.window())
    toggle = tr("Sidebar", "Collapse") if expanded else tr("Sidebar", "Expand")
    menu.addAction(toggle, lambda: sidebar.expand_folder(folder_id, not expanded))
    menu.addAction(tr("Sidebar", "Rename folder"), lambda: sidebar.begin_folder_rename(folder_id))
    menu.addAction(tr("Sidebar", "New folder"), lambda: sidebar.request_new_folder(None))
    menu.addSeparator()
    menu.addAction(
        tr("Sidebar", "Delete folder (keeps its chats)"),
        lambda: sidebar.folder_delete_requested.emit(folder_id),
    )
    return menu


def list_menu(sidebar: Sidebar) -> QMenu:
    menu = QMenu(sidebar.window())
    menu.addAction(tr("Sidebar", "New chat"), sidebar.new_chat_requested.emit)
    menu.addAction(tr("Sidebar", "New folder"), lambda: sidebar.request_new_folder(None))
    return menu
