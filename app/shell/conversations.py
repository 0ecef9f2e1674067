"""The sidebar's list of conversations kept in step with the chat: choosing, starting, renaming,
deleting (after asking) and exporting a conversation, pinning it and filing it in folders, and
the sidebar, the chat page's title and its settings following whichever conversation is open."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from app.common.i18n import tr

if TYPE_CHECKING:
    from app.chat.controller import ChatController
    from app.chat.page import ChatPage
    from app.chat.settings import SettingsPanel
    from app.shell.sidebar import Sidebar
    from engine.store import Conversation, Folder, Store

T = TypeVar("T")
CLOSED_FOLDERS = "sidebar_closed_folders"  # the app setting: folders left closed


class ConversationList(QObject):
    def __init__(
        self,
        window: QWidget,
        sidebar: Sidebar,
        controller: ChatController,
        page: ChatPage,
        settings: SettingsPanel,
        *,
        show_chat: Callable[[], None],
        notify: Callable[[str], None],
    ) -> None:
        super().__init__(window)
        self.window = window  # the parent of its dialogs
        self.sidebar = sidebar
        self.controller = controller
        self.page = page
        self.settings = settings
        self.show_chat = show_chat
        self.notify = notify
        controller.conversations_listed.connect(self._listed)
        controller.conversation_opened.connect(self._opened)
        sidebar.new_chat_requested.connect(self.new_chat)
        sidebar.conversation_selected.connect(self.select)
        sidebar.rename_requested.connect(controller.rename)
        sidebar.delete_requested.connect(self.confirm_delete)
        sidebar.export_requested.connect(self.export)
        sidebar.search_changed.connect(controller.search)
        controller.search_found.connect(sidebar.set_search_results)
        controller.store_opened.connect(self._read_folders)
        controller.history_reloaded.connect(self._read_folders)
        sidebar.pin_requested.connect(self.pin)
        sidebar.move_requested.connect(self.move)
        sidebar.folder_create_requested.connect(self.create_folder)
        sidebar.folder_rename_requested.connect(self.rename_folder)
        sidebar.folder_delete_requested.connect(self.delete_folder)
        sidebar.collapsed_changed.connect(self._save_closed)
        self._folder_ids: set[int] | None = None  # the folders shown; None: not read
        self._reading_folders = False

    def new_chat(self) -> None:
        self.settings.flush()
        self.controller.new_chat()
        self.show_chat()

    def select(self, conv_id: int, message_id: int | None) -> None:
        self.settings.flush()
        self.controller.open_conversation(conv_id, message_id)
        self.show_chat()

    def confirm_delete(self, conv_id: int) -> None:
        answer = QMessageBox.question(
            self.window,
            tr("Sidebar", "Delete chat"),
            tr("Sidebar", "Delete this conversation and all its messages? This cannot be undone."),
        )
        if answer == QMessageBox.StandardButton.Yes:
            self.controller.delete_conversation(conv_id)

    def delete_current(self) -> None:
        if self.controller.current is not None:
            self.confirm_delete(self.controller.current.id)

    def rename_current(self) -> None:
        if self.controller.current is not None:
            self.sidebar.begin_rename(self.controller.current.id)

    def export_current(self, fmt: str) -> None:
        if self.controller.current is not None:
            self.export(self.controller.current.id, fmt)
        else:
            self.notify(tr("Sidebar", "Nothing to export yet: send a message first."))

    def export(self, conv_id: int, fmt: str) -> None:
        suffix = "json" if fmt == "json" else "md"
        path, _filter = QFileDialog.getSaveFileName(
            self.window,
            tr("Sidebar", "Export chat"),
            str(Path.home() / f"cove-chat-{conv_id}.{suffix}"),
        )
        if path:
            self.controller.export(conv_id, fmt, Path(path))

    def import_chat(self) -> None:
        """A chat from a JSON file: Cove's own export (every version) or an OpenAI-style
        ``messages`` list."""
        path, _filter = QFileDialog.getOpenFileName(
            self.window,
            tr("Sidebar", "Import chat"),
            str(Path.home()),
            tr("Sidebar", "JSON files (*.json);;All files (*)"),
        )
        if path:
            self.controller.import_file(Path(path))

    # Pins and folders

    def _job(self, fn: Callable[[Store], T], done: Callable[[T], Any] | None = None) -> None:
        """Run ``fn(store)`` on the history's worker, in order with the chat's own reads and
        writes; an error becomes a notice."""
        store = self.controller.store
        if store is None:
            self.notify(tr("Sidebar", "The chat history is still opening; try again in a moment."))
            return
        self.controller.io.submit(lambda: fn(store), done, lambda exc: self.notify(str(exc)))

    def pin(self, conv_id: int, on: bool) -> None:
        self._job(lambda s: s.pin(conv_id, on), lambda _c: self._reload())

    def move(self, conv_id: int, folder_id: int | None) -> None:
        """File a chat in a folder (None: take it out of its folder), and say where it went."""
        names = {folder.id: folder.name for folder in self.sidebar.folders}

        def moved(_conversation: Conversation) -> None:
            if folder_id is None:
                self.notify(tr("Sidebar", "Moved out of the folder"))
            else:
                name = names.get(folder_id, "")
                self.notify(tr("Sidebar", "Moved to {folder}").format(folder=name))
            self._reload()

        self._job(lambda s: s.move_to_folder(conv_id, folder_id), moved)

    def create_folder(self, name: str, conv_id: int | None) -> None:
        """A new folder, ``conv_id`` filed in it; its name is then edited in place."""

        def job(store: Store) -> int:
            folder_id = store.create_folder(name)
            if conv_id is not None:
                store.move_to_folder(conv_id, folder_id)
            return folder_id

        def created(folder_id: int) -> None:
            self.sidebar.rename_folder_when_shown(folder_id)
            self._reload()

        self._job(job, created)

    def rename_folder(self, folder_id: int, name: str) -> None:
        self._job(lambda s: s.rename_folder(folder_id, name), lambda _f: self._reload())

    def delete_folder(self, folder_id: int) -> None:
        """Delete a folder; its chats stay, back in the list."""

        def deleted(_result: None) -> None:
            self.notify(tr("Sidebar", "Folder deleted; its chats are back in the list"))
            self._reload()

        self._job(lambda s: s.delete_folder(folder_id), deleted)

    def _reload(self) -> None:
        """The folders and the list again, read together, after a pin or a folder changed."""
        self._job(lambda s: (s.folders(), s.list_conversations()), self._reloaded)

    def _reloaded(self, result: tuple[list[Folder], list[Conversation]]) -> None:
        folders, conversations = result
        self._folder_ids = {folder.id for folder in folders}
        self.sidebar.set_folders(folders)
        self._listed(conversations)

    def _read_folders(self) -> None:
        """The folders, and which were left closed (when the history opens, or when a chat is
        filed in a folder this window has not read yet)."""
        if self._reading_folders:
            return
        self._reading_folders = True
        self._job(lambda s: (s.folders(), s.get_setting(CLOSED_FOLDERS, [])), self._folders_read)

    def _folders_read(self, result: tuple[list[Folder], object]) -> None:
        self._reading_folders = False
        folders, closed = result
        self._folder_ids = {folder.id for folder in folders}
        if isinstance(closed, list):
            self.sidebar.set_collapsed(i for i in closed if isinstance(i, int))
        self.sidebar.set_folders(folders)
        self._show_current()

    def _save_closed(self, folder_ids: Iterable[int]) -> None:
        closed = sorted(folder_ids)
        self._job(lambda s: s.set_setting(CLOSED_FOLDERS, closed))

    # Following the chat

    def _listed(self, conversations: list[Conversation]) -> None:
        self.sidebar.set_conversations(conversations)  # shown once a search ends
        if self.sidebar.query:
            self.controller.search(self.sidebar.query)
        known = self._folder_ids
        if known is None or any(c.folder_id not in known for c in conversations if c.folder_id):
            self._read_folders()
        self._show_current()

    def _show_current(self) -> None:
        current = self.controller.current
        self.sidebar.set_current(current.id if current is not None else None)

    def _opened(self, conversation: Conversation | None) -> None:
        self.sidebar.set_current(conversation.id if conversation is not None else None)
        untitled = tr("Sidebar", "New chat")
        self.page.set_title(conversation.title if conversation is not None else untitled)
        self.settings.show_settings(self.controller.system_prompt(), self.controller.settings())
