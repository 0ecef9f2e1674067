"""The conversation list: chats with their titles, prompts, settings and models, their pins, and
the folders they are filed in. The row helpers run inside the caller's transaction; the
``Conversations`` methods each take the history's lock for one read or one write."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from engine.store import folders as store_folders
from engine.store.history_file import HistoryFile, gone
from engine.store.schema import (
    CONVERSATION_COLUMNS,
    conversation_from_row,
    dump_json,
    load_json_object,
)
from engine.store.types import ChatSettings, Conversation, Folder


def fetch_conversation(conn: sqlite3.Connection, conv_id: int) -> Conversation | None:
    row = conn.execute(
        f"SELECT {CONVERSATION_COLUMNS} FROM conversations WHERE id = ?", (conv_id,)
    ).fetchone()
    return conversation_from_row(row) if row is not None else None


def require_conversation(conn: sqlite3.Connection, conv_id: int) -> Conversation:
    conversation = fetch_conversation(conn, conv_id)
    if conversation is None:
        raise gone("Conversation", conv_id)
    return conversation


def touch(conn: sqlite3.Connection, conv_id: int, now: float) -> None:
    conn.execute("UPDATE conversations SET updated_at = ? WHERE id = ?", (now, conv_id))


def new_conversation(
    conn: sqlite3.Connection,
    now: float,
    title: str,
    system_prompt: str,
    settings: ChatSettings | None,
    model: str | None,
) -> Conversation:
    settings_json = dump_json((settings or ChatSettings()).to_json())
    cursor = conn.execute(
        "INSERT INTO conversations "
        "(title, system_prompt, settings, model, created_at, updated_at) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        (title, system_prompt, settings_json, model, now, now),
    )
    assert cursor.lastrowid is not None
    return require_conversation(conn, cursor.lastrowid)


class Conversations:
    """Chats as the list shows them, and the list's pins and folders (engine/store/folders.py):
    neither pinning nor filing changes when a chat was last used."""

    def __init__(self, file: HistoryFile) -> None:
        self._file = file

    @property
    def _clock(self) -> Callable[[], float]:
        return self._file.clock

    def create(
        self,
        title: str = "New chat",
        system_prompt: str = "",
        settings: ChatSettings | None = None,
        model: str | None = None,
    ) -> Conversation:
        with self._file.writing() as conn:
            return new_conversation(conn, self._clock(), title, system_prompt, settings, model)

    def get(self, conv_id: int) -> Conversation | None:
        with self._file.reading() as conn:
            return fetch_conversation(conn, conv_id)

    def newest_first(self) -> list[Conversation]:
        """Every conversation, the most recently changed first."""
        with self._file.reading() as conn:
            rows = conn.execute(
                f"SELECT {CONVERSATION_COLUMNS} FROM conversations "
                "ORDER BY updated_at DESC, id DESC"
            ).fetchall()
            return [conversation_from_row(row) for row in rows]

    def set_column(self, conv_id: int, column: str, value: object) -> Conversation:
        """Change one of a conversation's own columns (its title, prompt or model)."""
        with self._file.writing() as conn:
            require_conversation(conn, conv_id)
            conn.execute(
                f"UPDATE conversations SET {column} = ?, updated_at = ? WHERE id = ?",
                (value, self._clock(), conv_id),
            )
            return require_conversation(conn, conv_id)

    def set_settings(self, conv_id: int, settings: ChatSettings) -> Conversation:
        with self._file.writing() as conn:
            require_conversation(conn, conv_id)
            (stored,) = conn.execute(
                "SELECT settings FROM conversations WHERE id = ?", (conv_id,)
            ).fetchone()
            # Keep keys this version does not know: a newer Cove may have written them.
            merged = {**load_json_object(stored), **settings.to_json()}
            conn.execute(
                "UPDATE conversations SET settings = ?, updated_at = ? WHERE id = ?",
                (dump_json(merged), self._clock(), conv_id),
            )
            return require_conversation(conn, conv_id)

    def delete(self, conv_id: int) -> None:
        """Delete a conversation and all its messages, and the image files no other message
        shows. Deleting one that is gone is not an error."""
        with self._file.writing() as conn:
            conn.execute("DELETE FROM conversations WHERE id = ?", (conv_id,))
            self._file.images.drop_unused(conn)

    def pin(self, conv_id: int, on: bool = True) -> Conversation:
        """Pin a conversation to the top of the list; ``on=False`` unpins it."""
        with self._file.writing() as conn:
            require_conversation(conn, conv_id)
            store_folders.set_pinned(conn, conv_id, on)
            return require_conversation(conn, conv_id)

    def folders(self) -> list[Folder]:
        """Every folder, in the list's order."""
        with self._file.reading() as conn:
            return store_folders.list_folders(conn)

    def create_folder(self, name: str) -> int:
        """A new folder, after the others; returns its id. An empty name is a ``ValueError``."""
        with self._file.writing() as conn:
            return store_folders.insert_folder(conn, name, self._clock())

    def rename_folder(self, folder_id: int, name: str) -> Folder:
        with self._file.writing() as conn:
            if not store_folders.rename(conn, folder_id, name):
                raise gone("Folder", folder_id)
            folder = store_folders.fetch_folder(conn, folder_id)
            assert folder is not None
            return folder

    def delete_folder(self, folder_id: int) -> None:
        """Delete a folder, keeping its conversations: they go back to the list's top level.
        Deleting one that is gone is not an error."""
        with self._file.writing() as conn:
            store_folders.remove(conn, folder_id)

    def move_to_folder(self, conv_id: int, folder_id: int | None) -> Conversation:
        """File a conversation in a folder; ``None`` takes it out of any folder."""
        with self._file.writing() as conn:
            require_conversation(conn, conv_id)
            if folder_id is not None and store_folders.fetch_folder(conn, folder_id) is None:
                raise gone("Folder", folder_id)
            store_folders.file_in(conn, conv_id, folder_id)
            return require_conversation(conn, conv_id)
