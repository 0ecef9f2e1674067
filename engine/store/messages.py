"""The messages of a chat: every version of every turn, the path shown, and a reply saved as it
streams. A turn's versions are the messages that share its parent (engine/store/tree.py); the
leaf a conversation keeps says which path shows. The row helpers run inside the caller's
transaction; the ``Messages`` methods each take the history's lock for one read or one write."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, Literal

from engine.store import tree as store_tree
from engine.store.conversations import require_conversation, touch
from engine.store.history_file import HistoryFile, gone
from engine.store.message_images import MessageImages
from engine.store.schema import MESSAGE_COLUMNS, dump_json, message_from_row
from engine.store.types import Message, MessageStatus, NewImage, check_role, check_status
from engine.types import Role


def fetch_message(conn: sqlite3.Connection, images: MessageImages, msg_id: int) -> Message | None:
    row = conn.execute(f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE id = ?", (msg_id,)).fetchone()
    return images.attach(conn, message_from_row(row)) if row is not None else None


def insert_message(
    conn: sqlite3.Connection,
    now: float,
    conv_id: int,
    role: Role,
    content: str,
    status: MessageStatus,
    meta: Mapping[str, Any] | None,
    parent: int | None,
    created_at: float | None = None,
) -> Message:
    """A new message after ``parent``, shown from now on (without images: the caller adds them)."""
    written = now if created_at is None else created_at
    (position,) = conn.execute(
        "SELECT COALESCE(MAX(position), -1) + 1 FROM messages WHERE conversation_id = ?",
        (conv_id,),
    ).fetchone()
    cursor = conn.execute(
        "INSERT INTO messages "
        "(conversation_id, position, role, content, status, created_at, meta, parent_id) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (conv_id, position, role, content, status, written, dump_json(dict(meta or {})), parent),
    )
    assert cursor.lastrowid is not None
    store_tree.set_leaf(conn, conv_id, cursor.lastrowid)
    touch(conn, conv_id, now)
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


def message_rows(
    conn: sqlite3.Connection, images: MessageImages, where: str, arg: object
) -> list[Message]:
    """The messages ``where`` selects (a list ``arg`` goes as JSON), in the order written, with
    their images."""
    value = dump_json(arg) if isinstance(arg, list) else arg
    rows = conn.execute(
        f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE {where} ORDER BY position", (value,)
    ).fetchall()
    messages = [message_from_row(row) for row in rows]
    if not messages:
        return []
    found = images.of(
        conn,
        "mi.message_id IN (SELECT value FROM json_each(?))",
        (dump_json([m.id for m in messages]),),
    )
    return [replace(m, images=found[m.id]) if m.id in found else m for m in messages]


def shown_messages(conn: sqlite3.Connection, images: MessageImages, conv_id: int) -> list[Message]:
    """The path a conversation shows, each message with its ``versions`` where it has several."""
    tree, path = store_tree.shown_path(conn, conv_id)
    if not path:
        return []
    listed = message_rows(conn, images, "id IN (SELECT value FROM json_each(?))", path)
    by_id = {m.id: m for m in listed}
    out: list[Message] = []
    for i in path:
        versions = tree.versions(i)
        out.append(replace(by_id[i], versions=versions) if len(versions) > 1 else by_id[i])
    return out


class Messages:
    """What a chat says, turn by turn, with the versions of each turn."""

    def __init__(self, file: HistoryFile) -> None:
        self._file = file
        self._images = file.images

    def _fetch(self, conn: sqlite3.Connection, msg_id: int) -> Message | None:
        return fetch_message(conn, self._images, msg_id)

    def add(
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
        with self._file.writing() as conn:
            require_conversation(conn, conv_id)
            if parent == "leaf":
                _tree, path = store_tree.shown_path(conn, conv_id)
                parent = path[-1] if path else None
            elif parent is not None:
                row = conn.execute(
                    "SELECT conversation_id FROM messages WHERE id = ?", (parent,)
                ).fetchone()
                if row is None or row[0] != conv_id:
                    raise gone("Message", parent)
            message = insert_message(
                conn, self._file.clock(), conv_id, role, content, status, meta, parent
            )
            stored = self._images.add(conn, message.id, images)
            return replace(message, images=stored)

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
        with self._file.writing() as conn:
            old = self._fetch(conn, msg_id)
            if old is None:
                raise gone("Message", msg_id)
            message = insert_message(
                conn,
                self._file.clock(),
                old.conversation_id,
                old.role,
                content,
                status,
                meta,
                old.parent_id,
            )
            if old.images:
                self._images.share(conn, message.id, msg_id)
                message = replace(message, images=old.images)
            return message

    def show_version(self, msg_id: int) -> list[Message]:
        """Show the version ``msg_id`` and the newest path beneath it; returns the path shown."""
        with self._file.writing() as conn:
            message = self._fetch(conn, msg_id)
            if message is None:
                raise gone("Message", msg_id)
            tree = store_tree.read_tree(conn, message.conversation_id)
            store_tree.set_leaf(conn, message.conversation_id, tree.newest_leaf(msg_id))
            return shown_messages(conn, self._images, message.conversation_id)

    def get(self, msg_id: int) -> Message | None:
        with self._file.reading() as conn:
            return self._fetch(conn, msg_id)

    def shown(self, conv_id: int) -> list[Message]:
        """The path a conversation shows, in order, each message with its ``versions`` (empty if
        it has none or does not exist); ``versions`` is set where a turn has more than one. It is
        what the model is sent."""
        with self._file.reading() as conn:
            return shown_messages(conn, self._images, conv_id)

    def every(self, conv_id: int) -> list[Message]:
        """Every message of a conversation, every version of every turn, in the order written."""
        with self._file.reading() as conn:
            return message_rows(conn, self._images, "conversation_id = ?", conv_id)

    def update_content(self, msg_id: int, content: str) -> bool:
        """Save the text so far of a streaming reply; meant to be called every fraction of a second.

        Returns False if the message is gone (its conversation was deleted while it streamed).
        Does not touch the conversation's ``updated_at``: ``finish`` does that once.
        """
        with self._file.writing() as conn:
            cursor = conn.execute("UPDATE messages SET content = ? WHERE id = ?", (content, msg_id))
            return cursor.rowcount > 0

    def finish(
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
        with self._file.writing() as conn:
            message = self._fetch(conn, msg_id)
            if message is None:
                return None
            meta_json = dump_json(dict(meta)) if meta is not None else dump_json(message.meta)
            conn.execute(
                "UPDATE messages SET content = ?, status = ?, meta = ? WHERE id = ?",
                (content, status, meta_json, msg_id),
            )
            touch(conn, message.conversation_id, self._file.clock())
            return self._fetch(conn, msg_id)

    def reopen(self, msg_id: int) -> Message | None:
        """Mark a finished reply as being written again (it is continued); None if it is gone.
        Its text stays; a crash meanwhile leaves it interrupted, with every word saved."""
        with self._file.writing() as conn:
            conn.execute("UPDATE messages SET status = 'streaming' WHERE id = ?", (msg_id,))
            return self._fetch(conn, msg_id)

    def edit(self, msg_id: int, content: str) -> Message:
        """Replace a message's text (the user edited it); its status and metadata stay."""
        with self._file.writing() as conn:
            message = self._fetch(conn, msg_id)
            if message is None:
                raise gone("Message", msg_id)
            conn.execute("UPDATE messages SET content = ? WHERE id = ?", (content, msg_id))
            touch(conn, message.conversation_id, self._file.clock())
            return replace(message, content=content)

    def delete(self, msg_id: int) -> None:
        """Delete one message. A version of a turn goes with what followed it, and a neighbouring
        version shows; a message without versions goes alone, and what followed it stays
        (engine/store/tree.py). Deleting one that is gone is not an error."""
        with self._file.writing() as conn:
            message = self._fetch(conn, msg_id)
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
            touch(conn, conv_id, self._file.clock())
            self._images.drop_unused(conn)

    def recover_interrupted(self) -> int:
        """Mark replies left streaming by a crash as interrupted; call once at start-up.

        Returns how many were marked. Their text, saved as it streamed, is kept.
        """
        with self._file.writing() as conn:
            cursor = conn.execute(
                "UPDATE messages SET status = 'interrupted' WHERE status = 'streaming'"
            )
            return cursor.rowcount
