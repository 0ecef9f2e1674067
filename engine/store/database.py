"""Cove's chat history: conversations, messages and settings in one SQLite file.

One ``Store`` is shared by the window's worker threads: it holds a single connection behind a lock,
so calls from different threads never interleave inside a transaction. The file is in WAL mode with
``synchronous=NORMAL``: every committed write survives the app or the engine being killed (only a
power cut can drop the last few), which is what lets a reply be saved as it streams and found again,
marked interrupted, after a crash.

The ``Store`` is the one door to the history; behind it each part has its module: the file, its
lock and its repair (``history_file``), the conversation list (``conversations``), what the chats
say (``messages``), and chats copied in and out (``copies``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from engine.paths import db_path as default_db_path
from engine.store.backups import Backup, Backups, Reason
from engine.store.conversations import Conversations
from engine.store.copies import Copies
from engine.store.history_file import HistoryFile
from engine.store.image_files import FOLDER as IMAGES_FOLDER
from engine.store.image_files import ImageFiles
from engine.store.message_images import MessageImages
from engine.store.messages import Messages
from engine.store.repair import Repair
from engine.store.schema import dump_json
from engine.store.search import search_fts, search_like
from engine.store.types import (
    ChatSettings,
    Conversation,
    Folder,
    Message,
    MessageStatus,
    NewImage,
    SearchHit,
    StoredImage,
)
from engine.types import Role


class Store:
    """The chat history in one SQLite file; safe to share between threads. Call ``close()``.

    Images sent with messages are files in ``images/`` beside it (engine/store/image_files.py),
    deleted with the last message that shows them."""

    def __init__(
        self,
        path: Path | str | None = None,
        *,
        clock: Callable[[], float] = time.time,
        images_folder: Path | None = None,
        repair: bool = True,
    ) -> None:
        path = Path(path).expanduser() if path is not None else default_db_path()
        images = MessageImages(ImageFiles(images_folder or path.parent / IMAGES_FOLDER))
        self.backups = Backups(path, images_folder=images.files.folder, clock=clock)
        self.file = HistoryFile(path, self.backups, images, clock, repair=repair)
        # What was repaired at open or since (engine/store/repair.py): the window says so.
        self.repairs: list[Repair] = self.file.repairs
        self.conversations = Conversations(self.file)
        self.turns = Messages(self.file)
        self.copies = Copies(self.file)

    @property
    def on_repaired(self) -> Callable[[Repair], None] | None:
        """Called (on the thread that found the damage) with each repair made after opening."""
        return self.file.on_repaired

    @on_repaired.setter
    def on_repaired(self, call: Callable[[Repair], None] | None) -> None:
        self.file.on_repaired = call

    @property
    def path(self) -> Path:
        return self.file.path

    @property
    def images_folder(self) -> Path:
        return self.file.images.files.folder

    @property
    def full_text_search(self) -> bool:
        """True when search uses SQLite FTS5; False when this SQLite lacks it and LIKE is used."""
        return self.file.fts

    def close(self) -> None:
        """Close the file. Safe to call twice; any later call raises ``StoreError``."""
        self.file.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # Backups, the check, restoring (engine/store/history_file.py)

    def backup(self, reason: Reason = "manual") -> Backup:
        return self.file.backup(reason)

    def check(self) -> list[str]:
        return self.file.check()

    def restore(self, name: str | None = None) -> tuple[Backup, Backup | None]:
        return self.file.restore(name)

    # Conversations, pins and folders (engine/store/conversations.py)

    def create_conversation(
        self,
        title: str = "New chat",
        system_prompt: str = "",
        settings: ChatSettings | None = None,
        model: str | None = None,
    ) -> Conversation:
        return self.conversations.create(title, system_prompt, settings, model)

    def get_conversation(self, conv_id: int) -> Conversation | None:
        return self.conversations.get(conv_id)

    def list_conversations(self) -> list[Conversation]:
        return self.conversations.newest_first()

    def rename_conversation(self, conv_id: int, title: str) -> Conversation:
        return self.conversations.set_column(conv_id, "title", title)

    def set_system_prompt(self, conv_id: int, system_prompt: str) -> Conversation:
        return self.conversations.set_column(conv_id, "system_prompt", system_prompt)

    def set_model(self, conv_id: int, model: str | None) -> Conversation:
        return self.conversations.set_column(conv_id, "model", model)

    def set_settings(self, conv_id: int, settings: ChatSettings) -> Conversation:
        return self.conversations.set_settings(conv_id, settings)

    def delete_conversation(self, conv_id: int) -> None:
        self.conversations.delete(conv_id)

    def pin(self, conv_id: int, on: bool = True) -> Conversation:
        return self.conversations.pin(conv_id, on)

    def folders(self) -> list[Folder]:
        return self.conversations.folders()

    def create_folder(self, name: str) -> int:
        return self.conversations.create_folder(name)

    def rename_folder(self, folder_id: int, name: str) -> Folder:
        return self.conversations.rename_folder(folder_id, name)

    def delete_folder(self, folder_id: int) -> None:
        self.conversations.delete_folder(folder_id)

    def move_to_folder(self, conv_id: int, folder_id: int | None) -> Conversation:
        return self.conversations.move_to_folder(conv_id, folder_id)

    # Messages and their versions (engine/store/messages.py)

    def image_bytes(self, image: StoredImage) -> bytes:
        """The file of a stored image, as the user gave it."""
        return self.file.images.read(image)

    def add_message(
        self,
        conv_id: int,
        role: Role,
        content: str,
        status: MessageStatus = "complete",
        meta: Mapping[str, Any] | None = None,
        images: Sequence[NewImage] = (),
        *,
        parent: int | Literal["leaf"] | None = "leaf",
    ) -> Message:
        return self.turns.add(conv_id, role, content, status, meta, images, parent=parent)

    def add_version(
        self,
        msg_id: int,
        content: str,
        status: MessageStatus = "complete",
        meta: Mapping[str, Any] | None = None,
    ) -> Message:
        return self.turns.add_version(msg_id, content, status, meta)

    def show_version(self, msg_id: int) -> list[Message]:
        return self.turns.show_version(msg_id)

    def get_message(self, msg_id: int) -> Message | None:
        return self.turns.get(msg_id)

    def messages(self, conv_id: int) -> list[Message]:
        return self.turns.shown(conv_id)

    def all_messages(self, conv_id: int) -> list[Message]:
        return self.turns.every(conv_id)

    def update_message_content(self, msg_id: int, content: str) -> bool:
        return self.turns.update_content(msg_id, content)

    def finish_message(
        self,
        msg_id: int,
        content: str,
        status: MessageStatus = "complete",
        meta: Mapping[str, Any] | None = None,
    ) -> Message | None:
        return self.turns.finish(msg_id, content, status, meta)

    def reopen_message(self, msg_id: int) -> Message | None:
        return self.turns.reopen(msg_id)

    def edit_message(self, msg_id: int, content: str) -> Message:
        return self.turns.edit(msg_id, content)

    def delete_message(self, msg_id: int) -> None:
        self.turns.delete(msg_id)

    def recover_interrupted(self) -> int:
        return self.turns.recover_interrupted()

    # Search and app settings

    def search(self, query: str, limit: int = 50) -> list[SearchHit]:
        """Conversations whose title, and messages whose text, contain every word of ``query``.

        Any text is safe to pass: it is searched for as words, never parsed as query syntax.
        """
        with self.file.reading() as conn:
            if self.file.fts:
                return search_fts(conn, query, limit)
            return search_like(conn, query, limit)

    def get_setting(self, key: str, default: Any = None) -> Any:
        """An app-wide setting (theme, window geometry, first-run flag...), or ``default``."""
        with self.file.reading() as conn:
            row = conn.execute("SELECT value FROM app_settings WHERE key = ?", (key,)).fetchone()
        if row is None:
            return default
        try:
            return json.loads(row[0])
        except ValueError:
            return default

    def set_setting(self, key: str, value: Any) -> None:
        """Store a JSON value; what ``json`` cannot write raises TypeError (NaN: ValueError)."""
        text = dump_json(value)
        with self.file.writing() as conn:
            conn.execute(
                "INSERT INTO app_settings (key, value) VALUES (?, ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (key, text),
            )

    # Branches, imports and exports (engine/store/copies.py)

    def export_markdown(self, conv_id: int, images_folder: Path | None = None) -> str:
        return self.copies.export_markdown(conv_id, images_folder)

    def export_json(self, conv_id: int) -> dict[str, Any]:
        return self.copies.export_json(conv_id)

    def branch(self, msg_id: int) -> Conversation:
        return self.copies.branch(msg_id)

    def import_json(self, data: object, fallback_title: str = "Imported chat") -> Conversation:
        return self.copies.import_json(data, fallback_title)
