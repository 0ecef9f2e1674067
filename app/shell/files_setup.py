"""Files given to a chat, wired to the window: the composer hands them over, the chat's own
collection reads them, the composer shows them, and replies answer from them."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from app.chat.chat_files import ChatFiles

if TYPE_CHECKING:
    from app.shell.main_window import MainWindow
    from engine.store import Conversation


class ChatFilesSetup:
    def __init__(self, window: MainWindow) -> None:
        self.window = window
        self.files = ChatFiles(window.documents_view.db, window.document_encoder, window)
        controller, composer = window.controller, window.composer
        controller.chat_collection = self.files.collection
        composer.documents_given.connect(self.give)
        composer.file_remove_requested.connect(self._remove)
        self.files.changed.connect(self._changed)
        controller.conversation_opened.connect(self._opened)
        controller.conversation_deleted.connect(self.files.forget)

    def give(self, paths: list[Path]) -> None:
        """Read ``paths`` into the open chat's collection (the chat is saved first if new)."""
        if not paths:
            return
        self.window.controller.ensure_conversation(
            paths[0].name, lambda conversation: self.files.add(conversation.id, paths)
        )

    def _current_id(self) -> int | None:
        current = self.window.controller.current
        return current.id if current is not None else None

    def _remove(self, path: str) -> None:
        conversation = self._current_id()
        if conversation is not None:
            self.files.remove(conversation, path)

    def _changed(self, conversation_id: int) -> None:
        if conversation_id == self._current_id():
            self.window.composer.set_files(self.files.files(conversation_id))

    def _opened(self, conversation: Conversation | None) -> None:
        self.window.composer.set_files(
            self.files.files(conversation.id) if conversation is not None else []
        )
