"""Merging checked chats, folders and settings into the history, inside the caller's one write
transaction (engine/store/archive.py holds it).

A chat whose uid is here already gains only the messages it lacks, each under the message it
follows; a chat that is not here comes whole. What a person has here is never replaced: a chat's
title, pin and folder, a setting, a preset of the same name. Images go through ``ImageFiles``,
named by their digest, so one already here is neither copied nor written again.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.store import folders as store_folders
from engine.store import tree as store_tree
from engine.store.image_files import ImageFiles
from engine.store.presets import BUILT_IN, PRESETS_KEY, _entry_key
from engine.store.schema import dump_json
from engine.store.transfer import ImageRef, TravellingChat, TravellingMessage

ReadImage = Callable[[ImageRef], "bytes | None"]


@dataclass(slots=True)
class Tally:
    """What a merge did, counted as it goes."""

    conversations_added: int = 0
    conversations_merged: int = 0
    messages_added: int = 0
    messages_skipped: int = 0
    images_added: int = 0
    folders_added: int = 0
    settings_added: int = 0
    presets_added: int = 0
    notes: list[str] = field(default_factory=list)


class ImageWriter:
    """Writes the images new messages show; remembers the files it created, so that a rolled
    back transaction can take them away again (``discard``)."""

    def __init__(self, files: ImageFiles, read: ReadImage) -> None:
        self._files = files
        self._read = read
        self._created: list[Path] = []
        self._known: set[str] = set()
        self._missing: set[str] = set()

    def keep(self, conn: sqlite3.Connection, ref: ImageRef, tally: Tally) -> bool:
        """Make sure the image is here; False when neither this history nor the archive has it.
        A file this history lost is written again from the archive."""
        if ref.sha256 in self._known:
            return True
        if ref.sha256 in self._missing:
            return False
        row = conn.execute("SELECT mime FROM images WHERE sha256 = ?", (ref.sha256,)).fetchone()
        mime = str(row[0]) if row is not None else ref.mime
        if row is None or not self._files.path(ref.sha256, mime).exists():
            data = self._read(ref)
            if data is None and row is None:
                self._missing.add(ref.sha256)
                return False
            if data is not None:
                self._write(ref.sha256, mime, data)
            if row is None and data is not None:
                conn.execute(
                    "INSERT INTO images (sha256, mime, width, height, size) VALUES (?, ?, ?, ?, ?)",
                    (ref.sha256, mime, ref.width, ref.height, len(data)),
                )
                tally.images_added += 1
        self._known.add(ref.sha256)
        return True

    def _write(self, sha256: str, mime: str, data: bytes) -> None:
        path = self._files.path(sha256, mime)
        existed = path.exists()
        self._files.write(sha256, mime, data)
        if not existed:
            self._created.append(path)

    @property
    def missing(self) -> int:
        return len(self._missing)

    def discard(self) -> None:
        for path in self._created:
            with contextlib.suppress(OSError):
                path.unlink()
            with contextlib.suppress(OSError):  # only when empty
                path.parent.rmdir()


def merge_folders(conn: sqlite3.Connection, names: Iterable[str], tally: Tally) -> dict[str, int]:
    """The folders by name, the archive's added after this history's own; returns every folder's
    id by name."""
    ids = {f.name: f.id for f in reversed(store_folders.list_folders(conn))}
    for name in names:
        if name not in ids:
            ids[name] = store_folders.insert_folder(conn, name, time.time())
            tally.folders_added += 1
    return ids


def merge_chat(
    conn: sqlite3.Connection,
    chat: TravellingChat,
    folders: dict[str, int],
    images: ImageWriter,
    tally: Tally,
) -> None:
    row = conn.execute(
        "SELECT id, updated_at FROM conversations WHERE uid = ?", (chat.uid,)
    ).fetchone()
    if row is None:
        _add_chat(conn, chat, folders, images, tally)
    else:
        _merge_into(conn, int(row[0]), float(row[1]), chat, images, tally)


def _add_chat(
    conn: sqlite3.Connection,
    chat: TravellingChat,
    folders: dict[str, int],
    images: ImageWriter,
    tally: Tally,
) -> None:
    folder_id: int | None = None
    if chat.folder is not None:
        if chat.folder not in folders:
            folders[chat.folder] = store_folders.insert_folder(conn, chat.folder, time.time())
            tally.folders_added += 1
        folder_id = folders[chat.folder]
    cursor = conn.execute(
        "INSERT INTO conversations (uid, title, system_prompt, settings, model, created_at, "
        "updated_at, pinned, folder_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            chat.uid,
            chat.title,
            chat.system_prompt,
            dump_json(chat.settings),
            chat.model,
            chat.created_at,
            chat.updated_at,
            int(chat.pinned),
            folder_id,
        ),
    )
    assert cursor.lastrowid is not None
    conv_id = cursor.lastrowid
    ids = _insert_messages(conn, conv_id, chat.title, chat.messages, {}, images, tally)
    tree = store_tree.read_tree(conn, conv_id)
    store_tree.set_leaf(conn, conv_id, tree.leaf(ids.get(chat.leaf) if chat.leaf else None))
    tally.conversations_added += 1


def _merge_into(
    conn: sqlite3.Connection,
    conv_id: int,
    updated_at: float,
    chat: TravellingChat,
    images: ImageWriter,
    tally: Tally,
) -> None:
    here = {
        str(uid): int(msg_id)
        for uid, msg_id in conn.execute(
            "SELECT uid, id FROM messages WHERE conversation_id = ?", (conv_id,)
        )
    }
    added_before = tally.messages_added
    ids = _insert_messages(conn, conv_id, chat.title, chat.messages, here, images, tally)
    if tally.messages_added == added_before:
        return
    tally.conversations_merged += 1
    # The archive's path shows when the chat was changed there last, or when it only goes on
    # from the path shown here; otherwise the path a person left here stays in front of them.
    tree = store_tree.read_tree(conn, conv_id)
    theirs = ids.get(chat.leaf) if chat.leaf else None
    mine = store_tree.stored_leaf(conn, conv_id)
    later = chat.updated_at >= updated_at
    if theirs is not None and (later or mine is None or mine in tree.path(theirs)):
        store_tree.set_leaf(conn, conv_id, theirs)
    conn.execute(
        "UPDATE conversations SET updated_at = ? WHERE id = ?",
        (max(updated_at, chat.updated_at), conv_id),
    )


def _insert_messages(
    conn: sqlite3.Connection,
    conv_id: int,
    title: str,
    messages: Iterable[TravellingMessage],
    here: Mapping[str, int],
    images: ImageWriter,
    tally: Tally,
) -> dict[str, int]:
    """Insert the messages not ``here`` (uid -> id of this chat's own); returns every message's
    id by uid, those here included."""
    ids = dict(here)
    (position,) = conn.execute(
        "SELECT COALESCE(MAX(position), -1) + 1 FROM messages WHERE conversation_id = ?",
        (conv_id,),
    ).fetchone()
    orphaned = 0
    for message in messages:
        if message.uid in ids:
            tally.messages_skipped += 1
            continue
        elsewhere = conn.execute("SELECT 1 FROM messages WHERE uid = ?", (message.uid,)).fetchone()
        if elsewhere is not None or (message.parent is not None and message.parent not in ids):
            # Only a hand-made archive holds a message of another chat; it and what follows it
            # would have nowhere to go.
            orphaned += 1
            continue
        parent = ids[message.parent] if message.parent is not None else None
        cursor = conn.execute(
            "INSERT INTO messages (uid, conversation_id, position, role, content, status, "
            "created_at, meta, parent_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                message.uid,
                conv_id,
                position,
                message.role,
                message.content,
                message.status,
                message.created_at,
                dump_json(message.meta),
                parent,
            ),
        )
        assert cursor.lastrowid is not None
        ids[message.uid] = cursor.lastrowid
        position += 1
        shown = [ref for ref in message.images if images.keep(conn, ref, tally)]
        conn.executemany(
            "INSERT INTO message_images (message_id, position, sha256, name) VALUES (?, ?, ?, ?)",
            [(cursor.lastrowid, i, ref.sha256, ref.name) for i, ref in enumerate(shown)],
        )
        tally.messages_added += 1
    if orphaned:
        tally.messages_skipped += orphaned
        tally.notes.append(
            f'{orphaned} message(s) of the chat "{title}" were left out: they, or the ones they '
            "follow, belong to another chat here."
        )
    return ids


def merge_settings(conn: sqlite3.Connection, settings: Mapping[str, Any], tally: Tally) -> None:
    """Add the settings this history lacks; presets are merged one by one, by name."""
    here = {
        str(key): str(value) for key, value in conn.execute("SELECT key, value FROM app_settings")
    }
    for key, value in settings.items():
        if key == PRESETS_KEY and key in here:
            _merge_presets(conn, here[key], value, tally)
            continue
        if key in here:
            continue
        conn.execute("INSERT INTO app_settings (key, value) VALUES (?, ?)", (key, dump_json(value)))
        if key == PRESETS_KEY:
            named = (
                [e for e in value if _entry_key(e) is not None] if isinstance(value, list) else []
            )
            tally.presets_added += len(named)
        else:
            tally.settings_added += 1


def _merge_presets(conn: sqlite3.Connection, stored: str, incoming: object, tally: Tally) -> None:
    try:
        mine = json.loads(stored)
    except ValueError:
        mine = None
    if not isinstance(mine, list) or not isinstance(incoming, list):
        # A damaged list here is left for a person (or a newer Cove) to read, not overwritten.
        tally.notes.append("The presets were not merged: the ones here could not be read.")
        return
    taken = {_entry_key(entry) for entry in mine} | {_entry_key(p.to_json()) for p in BUILT_IN}
    added = []
    for entry in incoming:
        key = _entry_key(entry)
        if key is None or key in taken:
            continue
        taken.add(key)
        added.append(entry)
    if added:
        conn.execute(
            "UPDATE app_settings SET value = ? WHERE key = ?",
            (dump_json([*mine, *added]), PRESETS_KEY),
        )
        tally.presets_added += len(added)
