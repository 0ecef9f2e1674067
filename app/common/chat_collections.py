"""How a chat's own document collection is named: ``chat:<conversation id>``. Such collections
belong to their chat (app/chat/chat_files.py) and are not listed with the person's collections."""

from __future__ import annotations

PREFIX = "chat:"


def collection_name(conversation_id: int) -> str:
    return f"{PREFIX}{conversation_id}"


def is_chat_collection(name: str) -> bool:
    return name.startswith(PREFIX)


def conversation_of(name: str) -> int | None:
    """The conversation a chat collection belongs to, or None for any other collection."""
    if not is_chat_collection(name):
        return None
    try:
        return int(name[len(PREFIX) :])
    except ValueError:
        return None
