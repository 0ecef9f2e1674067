"""Cove's chat history: conversations, messages and settings in one SQLite file.

One ``Store`` is shared by the window's worker threads: it holds a single connection behind a lock,
so calls from different threads never interleave inside a transaction. The file is in WAL mode with
``synchronous=NORMAL``: every committed write survives the app or the engine being killed (only a
power cut can drop the last few), which is what lets a reply be saved as it streams and found again,
marked interrupted, after a crash.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal

from engine.errors import HistoryDamaged, HistoryDiskFull, StoreError
from engine.paths import db_path as default_db_path
from engine.paths import shown
from engine.store import export as store_export
from engine.store import folders as store_folders
from engine.store import repair as store_repair
from engine.store import schema as store_schema
from engine.store import tree as store_tree
from engine.store.backups import (
    Backup,
    Backups,
    Counts,
    Reason,
    copy_into,
    quick_check,
    sqlite_damaged,
    sqlite_full,
)
from engine.store.connection import hint, open_history
from engine.store.image_files import FOLDER as IMAGES_FOLDER
from engine.store.image_files import ImageFiles
from engine.store.importing import read_conversation
from engine.store.message_images import MessageImages
from engine.store.repair import Repair, write_mark
from engine.store.schema import (
    CONVERSATION_COLUMNS,
    MESSAGE_COLUMNS,
    conversation_from_row,
    dump_json,
    load_json_object,
    message_from_row,
)
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
    check_role,
    check_status,
)
from engine.types import Role


def _gone(kind: str, item_id: int) -> StoreError:
    return StoreError(f"{kind} {item_id} no longer exists; it may have been deleted.")


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
        self._path = Path(path).expanduser() if path is not None else default_db_path()
        self._clock = clock
        self._images = MessageImages(ImageFiles(images_folder or self._path.parent / IMAGES_FOLDER))
        self._lock = threading.RLock()
        self._repair = repair
        self.backups = Backups(self._path, images_folder=self._images.files.folder, clock=clock)
        # What was repaired at open or since (engine/store/repair.py): the window says so.
        self.repairs: list[Repair] = []
        self.on_repaired: Callable[[Repair], None] | None = None
        self._conn: sqlite3.Connection | None = None
        self._conn, self._fts = self._open()

    def _open(self) -> tuple[sqlite3.Connection, bool]:
        conn, fts, repaired = open_history(self._path, self.backups, repair=self._repair)
        if repaired is not None:
            self.repairs.append(repaired)
        return conn, fts

    @property
    def path(self) -> Path:
        return self._path

    @property
    def images_folder(self) -> Path:
        return self._images.files.folder

    @property
    def full_text_search(self) -> bool:
        """True when search uses SQLite FTS5; False when this SQLite lacks it and LIKE is used."""
        return self._fts

    def close(self) -> None:
        """Close the file. Safe to call twice; any later call raises ``StoreError``."""
        with self._lock:
            conn, self._conn = self._conn, None
            if conn is None:
                return
            with contextlib.suppress(sqlite3.Error):  # a planner hint only; closing matters more
                conn.execute("PRAGMA optimize")
                write_mark(self._path, Counts.of(conn))
            conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @contextmanager
    def _reading(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            if self._conn is None:
                raise StoreError("The chat history is closed; open the Store again to use it.")
            try:
                yield self._conn
            except sqlite3.Error as exc:
                raise self._failure(exc, "read") from exc

    @contextmanager
    def _writing(self) -> Iterator[sqlite3.Connection]:
        # BEGIN IMMEDIATE takes the write lock up front: a second process (the CLI, another window)
        # then waits on the busy timeout instead of failing mid-transaction with SQLITE_BUSY.
        with self._lock:
            conn = self._conn
            if conn is None:
                raise StoreError("The chat history is closed; open the Store again to use it.")
            try:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    yield conn
                except BaseException:
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                    raise
                conn.execute("COMMIT")
            except sqlite3.Error as exc:
                raise self._failure(exc, "save to") from exc

    def _failure(self, exc: sqlite3.Error, doing: str) -> StoreError:
        """The error for a failed read or write; a damaged file is repaired first (with the
        store's lock held, so no other call sees it half done)."""
        words = f"Cannot {doing} the chat history {self._path}: {exc}. {hint(exc)}"
        if sqlite_full(exc):
            return HistoryDiskFull(words)
        if not (self._repair and sqlite_damaged(exc)):
            return StoreError(words)
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()
        try:
            repaired = store_repair.repair(
                self._path, self.backups, store_repair.problem_words(exc)
            )
        except (OSError, sqlite3.Error) as failed:
            return StoreError(f"{words} Repairing it failed too: {failed}.")
        finally:
            self._conn, self._fts = self._open()
        self.repairs.append(repaired)
        if self.on_repaired is not None:
            self.on_repaired(repaired)
        return HistoryDamaged(
            f"The chat history was damaged and Cove rebuilt it; the damaged file is kept in "
            f"{shown(repaired.damaged_copy)}. Try again."
        )

    # Backups, the check, restoring (engine/store/backups.py)

    def backup(self, reason: Reason = "manual") -> Backup:
        """Back the history up now, from a connection of the backup's own: no call waits on it."""
        taken = self.backups.take(reason)
        write_mark(self._path, taken.counts)
        return taken

    def check(self) -> list[str]:
        """SQLite's full integrity check of the file: [] when it is whole."""
        with self._reading() as conn:
            return quick_check(conn, full=True)

    def restore(self, name: str | None = None) -> tuple[Backup, Backup | None]:
        """Put the backup ``name`` (the newest when None) in place of the history; the history as
        it was is backed up first (None when it could not be). Returns both."""
        chosen = self.backups.find(name)
        with self._lock:
            conn = self._conn
            if conn is None:
                raise StoreError("The chat history is closed; open the Store again to use it.")
            try:
                before: Backup | None = self.backups.take("before-restore", source=conn)
            except StoreError:
                before = None  # a damaged history is what a restore is for
            try:
                copy_into(chosen, conn)
                store_schema.migrate(conn)
                self._fts = store_schema.sync_search_index(conn)
                write_mark(self._path, Counts.of(conn))
            except sqlite3.Error as exc:
                raise self._failure(exc, "restore") from exc
        self.backups.restore_images(chosen)
        return chosen, before

    # Conversations

    def _fetch_conversation(self, conn: sqlite3.Connection, conv_id: int) -> Conversation | None:
        row = conn.execute(
            f"SELECT {CONVERSATION_COLUMNS} FROM conversations WHERE id = ?", (conv_id,)
        ).fetchone()
        return conversation_from_row(row) if row is not None else None

    def _require_conversation(self, conn: sqlite3.Connection, conv_id: int) -> Conversation:
        conversation = self._fetch_conversation(conn, conv_id)
        if conversation is None:
            raise _gone("Conversation", conv_id)
        return conversation

    def _touch(self, conn: sqlite3.Connection, conv_id: int) -> None:
        conn.execute(
            "UPDATE conversations SET updated_at = ? WHERE id = ?", (self._clock(), conv_id)
        )

    def create_conversation(
        self,
        title: str = "New chat",
        system_prompt: str = "",
        settings: ChatSettings | None = None,
        model: str | None = None,
    ) -> Conversation:
        with self._writing() as conn:
            return self._new_conversation(conn, title, system_prompt, settings, model)

    def _new_conversation(
        self,
        conn: sqlite3.Connection,
        title: str,
        system_prompt: str,
        settings: ChatSettings | None,
        model: str | None,
    ) -> Conversation:
        now = self._clock()
        settings_json = dump_json((settings or ChatSettings()).to_json())
        cursor = conn.execute(
            "INSERT INTO conversations "
            "(title, system_prompt, settings, model, created_at, updated_at) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (title, system_prompt, settings_json, model, now, now),
        )
        assert cursor.lastrowid is not None
        return self._require_conversation(conn, cursor.lastrowid)

    def get_conversation(self, conv_id: int) -> Conversation | None:
        with self._reading() as conn:
            return self._fetch_conversation(conn, conv_id)

    def list_conversations(self) -> list[Conversation]:
        """Every conversation, the most recently changed first."""
        with self._reading() as conn:
            rows = conn.execute(
                f"SELECT {CONVERSATION_COLUMNS} FROM conversations "
                "ORDER BY updated_at DESC, id DESC"
            ).fetchall()
            return [conversation_from_row(row) for row in rows]

    def _set_column(self, conv_id: int, column: str, value: object) -> Conversation:
        with self._writing() as conn:
            self._require_conversation(conn, conv_id)
            conn.execute(
                f"UPDATE conversations SET {column} = ?, updated_at = ? WHERE id = ?",
                (value, self._clock(), conv_id),
            )
            return self._require_conversation(conn, conv_id)

    def rename_conversation(self, conv_id: int, title: str) -> Conversation:
        return self._set_column(conv_id, "title", title)

    def set_system_prompt(self, conv_id: int, system_prompt: str) -> Conversation:
        return self._set_column(conv_id, "system_prompt", system_prompt)

    def set_model(self, conv_id: int, model: str | None) -> Conversation:
        return self._set_column(conv_id, "model", model)

    def set_settings(self, conv_id: int, settings: ChatSettings) -> Conversation:
        with self._writing() as conn:
            self._require_conversation(conn, conv_id)
            (stored,) = conn.execute(
                "SELECT settings FROM conversations WHERE id = ?", (conv_id,)
            ).fetchone()
            # Keep keys this version does not know: a newer Cove may have written them.
            merged = {**load_json_object(stored), **settings.to_json()}
            conn.execute(
                "UPDATE conversations SET settings = ?, updated_at = ? WHERE id = ?",
                (dump_json(merged), self._clock(), conv_id),
            )
            return self._require_conversation(conn, conv_id)

    def delete_conversation(self, conv_id: int) -> None:
        """Delete a conversation and all its messages, and the image files no other message
        shows. Deleting one that is gone is not an error."""
        with self._writing() as conn:
            conn.execute("DELETE FROM conversations WHERE id = ?", (conv_id,))
            self._images.drop_unused(conn)

    # Pins and folders (engine/store/folders.py): none of them changes when a chat was last used

    def pin(self, conv_id: int, on: bool = True) -> Conversation:
        """Pin a conversation to the top of the list; ``on=False`` unpins it."""
        with self._writing() as conn:
            self._require_conversation(conn, conv_id)
            store_folders.set_pinned(conn, conv_id, on)
            return self._require_conversation(conn, conv_id)

    def folders(self) -> list[Folder]:
        """Every folder, in the list's order."""
        with self._reading() as conn:
            return store_folders.list_folders(conn)

    def create_folder(self, name: str) -> int:
        """A new folder, after the others; returns its id. An empty name is a ``ValueError``."""
        with self._writing() as conn:
            return store_folders.insert_folder(conn, name, self._clock())

    def rename_folder(self, folder_id: int, name: str) -> Folder:
        with self._writing() as conn:
            if not store_folders.rename(conn, folder_id, name):
                raise _gone("Folder", folder_id)
            folder = store_folders.fetch_folder(conn, folder_id)
            assert folder is not None
            return folder

    def delete_folder(self, folder_id: int) -> None:
        """Delete a folder, keeping its conversations: they go back to the list's top level.
        Deleting one that is gone is not an error."""
        with self._writing() as conn:
            store_folders.remove(conn, folder_id)

    def move_to_folder(self, conv_id: int, folder_id: int | None) -> Conversation:
        """File a conversation in a folder; ``None`` takes it out of any folder."""
        with self._writing() as conn:
            self._require_conversation(conn, conv_id)
            if folder_id is not None and store_folders.fetch_folder(conn, folder_id) is None:
                raise _gone("Folder", folder_id)
            store_folders.file_in(conn, conv_id, folder_id)
            return self._require_conversation(conn, conv_id)

    # Images

    def image_bytes(self, image: StoredImage) -> bytes:
        """The file of a stored image, as the user gave it."""
        return self._images.read(image)

    # Messages

    def _fetch_message(self, conn: sqlite3.Connection, msg_id: int) -> Message | None:
        row = conn.execute(
            f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE id = ?", (msg_id,)
        ).fetchone()
        return self._images.attach(conn, message_from_row(row)) if row is not None else None

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
        """Add a message after ``parent`` (by default the end of the path shown; None: a first
        turn) and show it. A reply about to stream is added as ``status="streaming"``;
        ``images`` (a user's) are kept whole in the images folder, in order."""
        check_role(role)
        check_status(status)
        with self._writing() as conn:
            self._require_conversation(conn, conv_id)
            if parent == "leaf":
                _tree, path = store_tree.shown_path(conn, conv_id)
                parent = path[-1] if path else None
            elif parent is not None:
                self._require_message_of(conn, conv_id, parent)
            message = self._insert(conn, conv_id, role, content, status, meta, parent)
            stored = self._images.add(conn, message.id, images)
            return replace(message, images=stored)

    def _insert(
        self,
        conn: sqlite3.Connection,
        conv_id: int,
        role: Role,
        content: str,
        status: MessageStatus,
        meta: Mapping[str, Any] | None,
        parent: int | None,
        created_at: float | None = None,
    ) -> Message:
        now = self._clock()
        written = now if created_at is None else created_at
        (position,) = conn.execute(
            "SELECT COALESCE(MAX(position), -1) + 1 FROM messages WHERE conversation_id = ?",
            (conv_id,),
        ).fetchone()
        cursor = conn.execute(
            "INSERT INTO messages "
            "(conversation_id, position, role, content, status, created_at, meta, parent_id) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                conv_id,
                position,
                role,
                content,
                status,
                written,
                dump_json(dict(meta or {})),
                parent,
            ),
        )
        assert cursor.lastrowid is not None
        store_tree.set_leaf(conn, conv_id, cursor.lastrowid)
        conn.execute("UPDATE conversations SET updated_at = ? WHERE id = ?", (now, conv_id))
        return Message(
            cursor.lastrowid,
            conv_id,
            position,
            role,
            content,
            status,
            written,
            dict(meta or {}),
            (),
            parent,
        )

    def _require_message_of(self, conn: sqlite3.Connection, conv_id: int, msg_id: int) -> None:
        row = conn.execute(
            "SELECT conversation_id FROM messages WHERE id = ?", (msg_id,)
        ).fetchone()
        if row is None or row[0] != conv_id:
            raise _gone("Message", msg_id)

    def add_version(
        self,
        msg_id: int,
        content: str,
        status: MessageStatus = "complete",
        meta: Mapping[str, Any] | None = None,
    ) -> Message:
        """A new version of the turn ``msg_id`` is one of (a regenerated reply, an edited
        question), shown from now on. An edited question keeps its images. Every earlier version,
        and what followed it, stays."""
        check_status(status)
        with self._writing() as conn:
            old = self._fetch_message(conn, msg_id)
            if old is None:
                raise _gone("Message", msg_id)
            message = self._insert(
                conn, old.conversation_id, old.role, content, status, meta, old.parent_id
            )
            if old.images:
                self._images.share(conn, message.id, msg_id)
                message = replace(message, images=old.images)
            return message

    def show_version(self, msg_id: int) -> list[Message]:
        """Show the version ``msg_id`` and the newest path beneath it; returns the path shown."""
        with self._writing() as conn:
            message = self._fetch_message(conn, msg_id)
            if message is None:
                raise _gone("Message", msg_id)
            tree = store_tree.read_tree(conn, message.conversation_id)
            store_tree.set_leaf(conn, message.conversation_id, tree.newest_leaf(msg_id))
            return self._shown(conn, message.conversation_id)

    def get_message(self, msg_id: int) -> Message | None:
        with self._reading() as conn:
            return self._fetch_message(conn, msg_id)

    def messages(self, conv_id: int) -> list[Message]:
        """The path a conversation shows, in order, each message with its ``versions`` (empty if
        it has none or does not exist); ``versions`` is set where a turn has more than one. It is
        what the model is sent."""
        with self._reading() as conn:
            return self._shown(conn, conv_id)

    def _shown(self, conn: sqlite3.Connection, conv_id: int) -> list[Message]:
        tree, path = store_tree.shown_path(conn, conv_id)
        if not path:
            return []
        by_id = {m.id: m for m in self._rows(conn, "id IN (SELECT value FROM json_each(?))", path)}
        out: list[Message] = []
        for i in path:
            versions = tree.versions(i)
            out.append(replace(by_id[i], versions=versions) if len(versions) > 1 else by_id[i])
        return out

    def all_messages(self, conv_id: int) -> list[Message]:
        """Every message of a conversation, every version of every turn, in the order written."""
        with self._reading() as conn:
            return self._rows(conn, "conversation_id = ?", conv_id)

    def _rows(self, conn: sqlite3.Connection, where: str, arg: object) -> list[Message]:
        value = dump_json(arg) if isinstance(arg, list) else arg
        rows = conn.execute(
            f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE {where} ORDER BY position", (value,)
        ).fetchall()
        messages = [message_from_row(row) for row in rows]
        if not messages:
            return []
        images = self._images.of(
            conn,
            "mi.message_id IN (SELECT value FROM json_each(?))",
            (dump_json([m.id for m in messages]),),
        )
        return [replace(m, images=images[m.id]) if m.id in images else m for m in messages]

    def update_message_content(self, msg_id: int, content: str) -> bool:
        """Save the text so far of a streaming reply; meant to be called every fraction of a second.

        Returns False if the message is gone (its conversation was deleted while it streamed).
        Does not touch the conversation's ``updated_at``: ``finish_message`` does that once.
        """
        with self._writing() as conn:
            cursor = conn.execute("UPDATE messages SET content = ? WHERE id = ?", (content, msg_id))
            return cursor.rowcount > 0

    def finish_message(
        self,
        msg_id: int,
        content: str,
        status: MessageStatus = "complete",
        meta: Mapping[str, Any] | None = None,
    ) -> Message | None:
        """Store a reply's final text and outcome; ``meta=None`` keeps the metadata it had.

        Returns None if the message is gone (deleted while it streamed).
        """
        check_status(status)
        if status == "streaming":
            raise ValueError("finish_message needs a final status, not 'streaming'")
        with self._writing() as conn:
            message = self._fetch_message(conn, msg_id)
            if message is None:
                return None
            meta_json = dump_json(dict(meta)) if meta is not None else dump_json(message.meta)
            conn.execute(
                "UPDATE messages SET content = ?, status = ?, meta = ? WHERE id = ?",
                (content, status, meta_json, msg_id),
            )
            self._touch(conn, message.conversation_id)
            return self._fetch_message(conn, msg_id)

    def reopen_message(self, msg_id: int) -> Message | None:
        """Mark a finished reply as being written again (it is continued); None if it is gone.
        Its text stays; a crash meanwhile leaves it interrupted, with every word saved."""
        with self._writing() as conn:
            conn.execute("UPDATE messages SET status = 'streaming' WHERE id = ?", (msg_id,))
            return self._fetch_message(conn, msg_id)

    def edit_message(self, msg_id: int, content: str) -> Message:
        """Replace a message's text (the user edited it); its status and metadata stay."""
        with self._writing() as conn:
            message = self._fetch_message(conn, msg_id)
            if message is None:
                raise _gone("Message", msg_id)
            conn.execute("UPDATE messages SET content = ? WHERE id = ?", (content, msg_id))
            self._touch(conn, message.conversation_id)
            return replace(message, content=content)

    def delete_message(self, msg_id: int) -> None:
        """Delete one message. A version of a turn goes with what followed it, and a neighbouring
        version shows; a message without versions goes alone, and what followed it stays
        (engine/store/tree.py). Deleting one that is gone is not an error."""
        with self._writing() as conn:
            message = self._fetch_message(conn, msg_id)
            if message is None:
                return
            conv_id = message.conversation_id
            tree = store_tree.read_tree(conn, conv_id)
            plan = store_tree.delete_plan(
                tree, msg_id, tree.leaf(store_tree.stored_leaf(conn, conv_id))
            )
            conn.executemany(
                "UPDATE messages SET parent_id = ? WHERE id = ?",
                [(plan.adopter, follower) for follower in plan.followers],
            )
            conn.execute(
                "DELETE FROM messages WHERE id IN (SELECT value FROM json_each(?))",
                (dump_json(plan.doomed),),
            )
            store_tree.set_leaf(conn, conv_id, plan.leaf)
            self._touch(conn, conv_id)
            self._images.drop_unused(conn)

    def recover_interrupted(self) -> int:
        """Mark replies left streaming by a crash as interrupted; call once at start-up.

        Returns how many were marked. Their text, saved as it streamed, is kept.
        """
        with self._writing() as conn:
            cursor = conn.execute(
                "UPDATE messages SET status = 'interrupted' WHERE status = 'streaming'"
            )
            return cursor.rowcount

    # Search

    def search(self, query: str, limit: int = 50) -> list[SearchHit]:
        """Conversations whose title, and messages whose text, contain every word of ``query``.

        Any text is safe to pass: it is searched for as words, never parsed as query syntax.
        """
        with self._reading() as conn:
            if self._fts:
                return search_fts(conn, query, limit)
            return search_like(conn, query, limit)

    # App settings

    def get_setting(self, key: str, default: Any = None) -> Any:
        """An app-wide setting (theme, window geometry, first-run flag...), or ``default``."""
        with self._reading() as conn:
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
        with self._writing() as conn:
            conn.execute(
                "INSERT INTO app_settings (key, value) VALUES (?, ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (key, text),
            )

    # Export

    def _snapshot(self, conv_id: int) -> tuple[Conversation, list[Message]]:
        with self._reading() as conn:  # one lock hold: a delete cannot land between the reads
            return self._require_conversation(conn, conv_id), self._shown(conn, conv_id)

    def export_markdown(self, conv_id: int, images_folder: Path | None = None) -> str:
        """The chat as Markdown: the path shown. Its images are copied into ``images_folder`` and
        linked by a path relative to the folder the Markdown file is saved in (the folder's
        parent); without one they are embedded as data: URLs, so the text stands alone."""
        conversation, messages = self._snapshot(conv_id)
        if images_folder is None:
            return store_export.to_markdown(
                conversation, messages, lambda image: store_export.data_url(image, self.image_bytes)
            )
        links = store_export.copy_images(messages, images_folder, self.image_bytes)
        return store_export.to_markdown(conversation, messages, lambda i: links.get(i.sha256))

    def export_json(self, conv_id: int) -> dict[str, Any]:
        """The chat as JSON types: every version of every turn, which path shows, each image
        embedded as a data: URL. ``import_json`` brings it back whole."""
        with self._reading() as conn:
            conversation = self._require_conversation(conn, conv_id)
            _tree, path = store_tree.shown_path(conn, conv_id)
            messages = self._rows(conn, "conversation_id = ?", conv_id)
            folder = (
                store_folders.fetch_folder(conn, conversation.folder_id)
                if conversation.folder_id is not None
                else None
            )
        current = path[-1] if path else None
        data = store_export.to_json(conversation, messages, self.image_bytes, current)
        data["folder"] = folder.name if folder is not None else None
        return data

    # Branches and imports

    def branch(self, msg_id: int) -> Conversation:
        """A new conversation holding the path shown up to ``msg_id`` (copies: the two go their
        own ways), with the same system prompt, settings and model."""
        with self._writing() as conn:
            message = self._fetch_message(conn, msg_id)
            if message is None:
                raise _gone("Message", msg_id)
            source = self._require_conversation(conn, message.conversation_id)
            tree = store_tree.read_tree(conn, source.id)
            path = tree.path(msg_id)
            copy = self._new_conversation(
                conn,
                branch_title(source.title),
                source.system_prompt,
                source.settings,
                source.model,
            )
            parent: int | None = None
            for old in self._rows(conn, "id IN (SELECT value FROM json_each(?))", path):
                new = self._insert(
                    conn,
                    copy.id,
                    old.role,
                    old.content,
                    old.status,
                    old.meta,
                    parent,
                    old.created_at,
                )
                self._images.share(conn, new.id, old.id)
                parent = new.id
            return self._require_conversation(conn, copy.id)

    def import_json(self, data: object, fallback_title: str = "Imported chat") -> Conversation:
        """A conversation from parsed JSON (Cove's export, or an OpenAI-style ``messages``
        list), added whole as a new chat. ``ValueError`` says what is wrong with anything else;
        nothing is written then."""
        incoming = read_conversation(data, fallback_title)
        with self._writing() as conn:
            conversation = self._new_conversation(
                conn,
                incoming.title,
                incoming.system_prompt,
                incoming.settings,
                incoming.model,
            )
            ids: dict[str, int] = {}
            for item in incoming.messages:
                parent = ids[item.parent] if item.parent is not None else None
                message = self._insert(
                    conn,
                    conversation.id,
                    item.role,  # type: ignore[arg-type]  # checked by read_conversation
                    item.content,
                    item.status,
                    item.meta,
                    parent,
                    item.created_at,
                )
                self._images.add(conn, message.id, item.images)
                ids[item.key] = message.id
            leaf = ids.get(incoming.leaf) if incoming.leaf is not None else None
            store_tree.set_leaf(conn, conversation.id, leaf)
            return self._require_conversation(conn, conversation.id)


def branch_title(title: str) -> str:
    return title if title.endswith(" (branch)") else f"{title} (branch)"
