"""Files given to a chat, wired to the window: the composer hands them over, the chat's own
collection reads them, the composer shows them, and replies answer from them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject

from app.chat.chat_files import ChatFiles

if TYPE_CHECKING:
    from app.chat.composer import Composer
    from app.chat.controller import ChatController
    from engine.documents import Encoder, IndexDB
    from engine.store import Conversation


class ChatFilesSetup:
    def __init__(
        self,
        db: IndexDB,
        encoder: Callable[[], Encoder | None],
        controller: ChatController,
        composer: Composer,
        parent: QObject,
    ) -> None:
        self.controller, self.composer = controller, composer
        self.files = ChatFiles(db, encoder, parent)
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
        self.controller.ensure_conversation(
            paths[0].name, lambda conversation: self.files.add(conversation.id, paths)
        )

    def _current_id(self) -> int | None:
        current = self.controller.current
        return current.id if current is not None else None

    def _remove(self, path: str) -> None:
        conversation = self._current_id()
        if conversation is not None:
            self.files.remove(conversation, path)

    def _changed(self, conversation_id: int) -> None:
        if conversation_id == self._current_id():
            self.composer.set_files(self.files.files(conversation_id))

    def _opened(self, conversation: Conversation | None) -> None:
        self.composer.set_files(
            self.files.files(conversation.id) if conversation is not None else []
        )
