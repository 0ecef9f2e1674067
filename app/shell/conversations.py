"""The sidebar's list of conversations kept in step with the chat: choosing, starting, renaming,
deleting (after asking) and exporting a conversation, and the sidebar, the chat page's title and
its settings following whichever conversation is open."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

if TYPE_CHECKING:
    from app.chat.controller import ChatController
    from app.chat.page import ChatPage
    from app.chat.settings import SettingsPanel
    from app.shell.sidebar import Sidebar
    from engine.store import Conversation


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
            "Delete chat",
            "Delete this conversation and all its messages? This cannot be undone.",
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
            self.notify("Nothing to export yet: send a message first.")

    def export(self, conv_id: int, fmt: str) -> None:
        suffix = "json" if fmt == "json" else "md"
        path, _filter = QFileDialog.getSaveFileName(
            self.window, "Export chat", str(Path.home() / f"cove-chat-{conv_id}.{suffix}")
        )
        if path:
            self.controller.export(conv_id, fmt, Path(path))

    def import_chat(self) -> None:
        """A chat from a JSON file: Cove's own export (every version) or an OpenAI-style
        ``messages`` list."""
        path, _filter = QFileDialog.getOpenFileName(
            self.window, "Import chat", str(Path.home()), "JSON files (*.json);;All files (*)"
        )
        if path:
            self.controller.import_file(Path(path))

    def _listed(self, conversations: list[Conversation]) -> None:
        if self.sidebar.query:
            self.controller.search(self.sidebar.query)
        else:
            self.sidebar.set_conversations(conversations)
        current = self.controller.current
        self.sidebar.set_current(current.id if current is not None else None)

    def _opened(self, conversation: Conversation | None) -> None:
        self.sidebar.set_current(conversation.id if conversation is not None else None)
        self.page.set_title(conversation.title if conversation is not None else "New chat")
        self.settings.show_settings(self.controller.system_prompt(), self.controller.settings())
