"""Turn a stored conversation into Markdown (to read or share) or JSON (to keep or re-import)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from engine.store.types import Conversation, Message

EXPORT_FORMAT = "cove.conversation"
EXPORT_VERSION = 1

_SPEAKERS = {"user": "You", "assistant": "Assistant", "system": "System"}
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")


def to_json(conversation: Conversation, messages: Sequence[Message]) -> dict[str, Any]:
    """All it takes to rebuild the conversation, as plain JSON types (``json.dumps`` takes it)."""
    return {
        "format": EXPORT_FORMAT,
        "version": EXPORT_VERSION,
        "title": conversation.title,
        "system_prompt": conversation.system_prompt,
        "settings": conversation.settings.to_json(),
        "model": conversation.model,
        "created_at": conversation.created_at,
        "updated_at": conversation.updated_at,
        "messages": [
            {
                "role": m.role,
                "content": m.content,
                "status": m.status,
                "created_at": m.created_at,
                "meta": dict(m.meta),
            }
            for m in messages
        ],
    }


def close_open_fence(text: str) -> str:
    """Close a code block left open (a reply cut off mid-code), so it does not swallow what follows.

    As in CommonMark, a fence is closed by the same character, at least as many, and no info string.
    """
    open_fence: str | None = None
    for line in text.splitlines():
        match = _FENCE.match(line)
        if match is None:
            continue
        fence, rest = match.group(1), match.group(2)
        if open_fence is None:
            if not (fence[0] == "`" and "`" in rest):
                open_fence = fence
        elif fence[0] == open_fence[0] and len(fence) >= len(open_fence) and not rest.strip():
            open_fence = None
    if open_fence is None:
        return text
    return text.rstrip("\n") + "\n" + open_fence


def _quote(text: str) -> str:
    return "\n".join(f"> {line}" if line else ">" for line in text.splitlines())


def _status_note(message: Message) -> str | None:
    if message.status == "interrupted":
        return "*This reply was interrupted before it finished.*"
    if message.status == "streaming":
        return "*This reply was still being written when it was exported.*"
    if message.status == "error":
        error = message.meta.get("error")
        detail = f": {' '.join(str(error).split())}" if error else "."
        return f"*This reply failed{detail}*"
    return None


def to_markdown(conversation: Conversation, messages: Sequence[Message]) -> str:
    """A readable transcript: the title, the model and system prompt, then each turn in order.

    Message text goes out as written, so the user's and the model's code blocks stay code blocks.
    """
    title = " ".join(conversation.title.split()) or "Untitled chat"
    blocks: list[str] = [f"# {title}"]
    if conversation.model:
        blocks.append(f"*Model: {conversation.model}*")
    if conversation.system_prompt.strip():
        blocks.append(
            "**System prompt**\n\n" + _quote(close_open_fence(conversation.system_prompt))
        )
    for message in messages:
        speaker = _SPEAKERS.get(message.role, message.role.title())
        parts = [f"**{speaker}**"]
        if message.content.strip():
            parts.append(close_open_fence(message.content.strip("\n")))
        note = _status_note(message)
        if note:
            parts.append(note)
        blocks.append("---")
        blocks.append("\n\n".join(parts))
    return "\n\n".join(blocks) + "\n"
