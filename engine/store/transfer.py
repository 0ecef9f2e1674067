"""A chat as it travels in an archive (engine/store/archive.py): read from the tables with every
version of every turn, written as JSON, and read back and checked before anything is stored.

Chats and messages are named by their ``uid`` (schema migration 6), never by row ids, which two
computers hand out alike: the uid is what lets an import recognise a chat it already holds.
Checking is strict about shape (a wrong type means a damaged or foreign file) and lenient about
values Cove reads leniently anyway (a chat's settings, a message's metadata).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.store.folders import folder_name
from engine.store.schema import load_json_object
from engine.store.types import ROLES, MessageStatus, image_extension
from engine.types import Role

# The archive's layout: a manifest, the history (one member per chat), the images by digest, the
# app settings, and the sections other packages hand in (engine/store/archive.py).
FORMAT = "cove.archive"
VERSION = 1
MANIFEST = "manifest.json"
SETTINGS = "settings.json"
FOLDERS = "folders.json"
CHATS = "conversations/"
IMAGES = "images/"
MCP_SERVERS = "mcp_servers.json"
COLLECTIONS = "collections.json"

_UID = re.compile(r"[0-9A-Za-z_-]{1,64}")
_SHA256 = re.compile(r"[0-9a-f]{64}")
# A reply exported while it streamed will not finish after the move: it is kept as interrupted.
_STATUS_AFTER_MOVE: dict[str, MessageStatus] = {
    "complete": "complete",
    "interrupted": "interrupted",
    "error": "error",
    "streaming": "interrupted",
}
_ROLES: dict[str, Role] = {r: r for r in ROLES}


@dataclass(frozen=True, slots=True)
class ImageRef:
    """An image a message shows; its bytes travel once per archive, named by their digest."""

    sha256: str
    mime: str
    width: int
    height: int
    size: int
    name: str = ""

    @property
    def member(self) -> str:
        return f"{IMAGES}{self.sha256}.{image_extension(self.mime)}"


@dataclass(frozen=True, slots=True)
class TravellingMessage:
    uid: str
    parent: str | None  # the uid of the message it follows; None: a first turn
    role: Role
    content: str
    status: MessageStatus
    created_at: float
    meta: dict[str, Any] = field(default_factory=dict)
    images: tuple[ImageRef, ...] = ()


@dataclass(frozen=True, slots=True)
class TravellingChat:
    """One conversation whole: its messages in the order they were written, so each comes after
    the one it follows."""

    uid: str
    title: str
    system_prompt: str
    settings: dict[str, Any]  # as stored: keys a newer Cove wrote go along
    model: str | None
    created_at: float
    updated_at: float
    pinned: bool
    folder: str | None
    leaf: str | None  # the uid of the last message shown
    messages: tuple[TravellingMessage, ...]


# The tables to chats


def read_chats(conn: sqlite3.Connection) -> list[TravellingChat]:
    """Every conversation with every message and image, in three queries (call it inside one
    read transaction, so the three agree)."""
    images: dict[int, list[ImageRef]] = {}
    for row in conn.execute(
        "SELECT mi.message_id, mi.name, i.sha256, i.mime, i.width, i.height, i.size "
        "FROM message_images mi JOIN images i ON i.sha256 = mi.sha256 "
        "ORDER BY mi.message_id, mi.position"
    ):
        images.setdefault(row[0], []).append(
            ImageRef(row[2], row[3], row[4], row[5], row[6], row[1])
        )
    messages: dict[int, list[TravellingMessage]] = {}
    # A parent in another chat (only a damaged file has one) reads as none, as the tree does.
    for row in conn.execute(
        "SELECT m.id, m.conversation_id, m.uid, p.uid, m.role, m.content, m.status, "
        "m.created_at, m.meta FROM messages m LEFT JOIN messages p "
        "ON p.id = m.parent_id AND p.conversation_id = m.conversation_id "
        "ORDER BY m.conversation_id, m.position"
    ):
        messages.setdefault(row[1], []).append(
            TravellingMessage(
                uid=row[2],
                parent=row[3],
                role=row[4],
                content=row[5],
                status=row[6],
                created_at=row[7],
                meta=load_json_object(row[8]),
                images=tuple(images.get(row[0], ())),
            )
        )
    chats: list[TravellingChat] = []
    for row in conn.execute(
        "SELECT c.id, c.uid, c.title, c.system_prompt, c.settings, c.model, c.created_at, "
        "c.updated_at, c.pinned, f.name, leaf.uid FROM conversations c "
        "LEFT JOIN folders f ON f.id = c.folder_id "
        "LEFT JOIN messages leaf ON leaf.id = c.leaf_id AND leaf.conversation_id = c.id "
        "ORDER BY c.id"
    ):
        chats.append(
            TravellingChat(
                uid=row[1],
                title=row[2],
                system_prompt=row[3],
                settings=load_json_object(row[4]),
                model=row[5],
                created_at=row[6],
                updated_at=row[7],
                pinned=bool(row[8]),
                folder=row[9],
                leaf=row[10],
                messages=tuple(messages.get(row[0], ())),
            )
        )
    return chats


# Chats to JSON and back


def chat_to_json(chat: TravellingChat) -> dict[str, Any]:
    return {
        "uid": chat.uid,
        "title": chat.title,
        "system_prompt": chat.system_prompt,
        "settings": chat.settings,
        "model": chat.model,
        "created_at": chat.created_at,
        "updated_at": chat.updated_at,
        "pinned": chat.pinned,
        "folder": chat.folder,
        "leaf": chat.leaf,
        "messages": [_message_to_json(m) for m in chat.messages],
    }


def _message_to_json(m: TravellingMessage) -> dict[str, Any]:
    data: dict[str, Any] = {
        "uid": m.uid,
        "parent": m.parent,
        "role": m.role,
        "content": m.content,
        "status": m.status,
        "created_at": m.created_at,
        "meta": m.meta,
    }
    if m.images:
        data["images"] = [
            {
                "sha256": i.sha256,
                "mime": i.mime,
                "width": i.width,
                "height": i.height,
                "size": i.size,
                "name": i.name,
            }
            for i in m.images
        ]
    return data


def chat_from_json(data: object) -> TravellingChat:
    """A chat from an archive's member; ``ValueError`` says what is wrong with it."""
    chat = _object(data, "the chat")
    uid = _uid(chat.get("uid"), "the chat's uid")
    messages: list[TravellingMessage] = []
    seen: set[str] = set()
    items = chat.get("messages")
    if not isinstance(items, list):
        raise ValueError("the chat has no 'messages' list")
    for number, item in enumerate(items, start=1):
        message = _message_from_json(item, f"message {number}")
        if message.uid in seen:
            raise ValueError(f"message {number}'s uid {message.uid} is used twice")
        if message.parent is not None and message.parent not in seen:
            raise ValueError(f"message {number} follows {message.parent}, which is not before it")
        seen.add(message.uid)
        messages.append(message)
    leaf = chat.get("leaf")
    folder = chat.get("folder")
    model = chat.get("model")
    return TravellingChat(
        uid=uid,
        title=_text(chat.get("title"), "the title"),
        system_prompt=_text(chat.get("system_prompt", ""), "the system prompt"),
        settings=dict(chat["settings"]) if isinstance(chat.get("settings"), Mapping) else {},
        model=model if isinstance(model, str) and model else None,
        created_at=_number(chat.get("created_at"), "created_at"),
        updated_at=_number(chat.get("updated_at"), "updated_at"),
        pinned=chat.get("pinned") is True,
        folder=_folder(folder),
        leaf=leaf if isinstance(leaf, str) and leaf in seen else None,
        messages=tuple(messages),
    )


def _message_from_json(data: object, where: str) -> TravellingMessage:
    item = _object(data, where)
    parent = item.get("parent")
    if parent is not None:
        parent = _uid(parent, f"{where}'s parent")
    role = _ROLES.get(str(item.get("role")))
    if role is None:
        raise ValueError(f"{where}: the role {item.get('role')!r} is not one of {', '.join(ROLES)}")
    status = _STATUS_AFTER_MOVE.get(str(item.get("status")))
    if status is None:
        raise ValueError(f"{where}: the status {item.get('status')!r} is not known")
    raw_images = item.get("images", [])
    if not isinstance(raw_images, list):
        raise ValueError(f"{where}: 'images' must be a list")
    meta = item.get("meta")
    return TravellingMessage(
        uid=_uid(item.get("uid"), f"{where}'s uid"),
        parent=parent,
        role=role,
        content=_text(item.get("content"), f"{where}'s content"),
        status=status,
        created_at=_number(item.get("created_at"), f"{where}'s created_at"),
        meta=dict(meta) if isinstance(meta, Mapping) else {},
        images=tuple(_image_from_json(i, f"{where}'s image") for i in raw_images),
    )


def _image_from_json(data: object, where: str) -> ImageRef:
    item = _object(data, where)
    sha256 = item.get("sha256")
    if not isinstance(sha256, str) or _SHA256.fullmatch(sha256) is None:
        raise ValueError(f"{where} has no SHA-256 digest")
    name = item.get("name", "")
    return ImageRef(
        sha256=sha256,
        mime=_text(item.get("mime"), f"{where}'s type"),
        width=_count(item.get("width"), f"{where}'s width"),
        height=_count(item.get("height"), f"{where}'s height"),
        size=_count(item.get("size"), f"{where}'s size"),
        name=name if isinstance(name, str) else "",
    )


def folders_from_json(data: object) -> list[str]:
    """Folder names in the list's order; a nameless entry is skipped."""
    if not isinstance(data, list):
        raise ValueError("the folders must be a list")
    names = [_folder(_object(item, "a folder").get("name")) for item in data]
    return [name for name in names if name is not None]


def _folder(value: object) -> str | None:
    if not isinstance(value, str):
        return None
    try:
        return folder_name(value)
    except ValueError:
        return None


def _object(value: object, what: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ValueError(f"{what} is not a JSON object")
    return value


def _uid(value: object, what: str) -> str:
    if not isinstance(value, str) or _UID.fullmatch(value) is None:
        raise ValueError(f"{what} is missing or not an id")
    return value


def _text(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{what} must be text")
    return value


def _number(value: object, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{what} must be a number")
    return float(value)


def _count(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{what} must be a whole number")
    return value
