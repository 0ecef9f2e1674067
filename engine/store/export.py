"""Turn a stored conversation into Markdown (to read or share) or JSON (to keep or re-import).

Images go with it: embedded as data: URLs (JSON, and Markdown that must stand alone), or copied
into a folder beside the Markdown file and linked from it.
"""

from __future__ import annotations

import base64
import re
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

from engine.store.types import Conversation, Message, StoredImage

ReadImage = Callable[[StoredImage], bytes]
# Where a Markdown export shows an image from (a relative path or a data: URL); None: not shown.
ImageLink = Callable[[StoredImage], "str | None"]

EXPORT_FORMAT = "cove.conversation"
EXPORT_VERSION = 2  # 2: every version of every turn, each naming the one it follows

_SPEAKERS = {"user": "You", "assistant": "Assistant", "system": "System"}
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")


def data_url(image: StoredImage, read: ReadImage) -> str:
    return f"data:{image.mime};base64,{base64.b64encode(read(image)).decode('ascii')}"


def _image_json(image: StoredImage, read: ReadImage | None) -> dict[str, Any]:
    data: dict[str, Any] = {
        "name": image.name,
        "mime": image.mime,
        "width": image.width,
        "height": image.height,
        "sha256": image.sha256,
    }
    if read is not None:
        data["url"] = data_url(image, read)
    return data


def _message_json(m: Message, read: ReadImage | None) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": m.id,
        "parent": m.parent_id,
        "role": m.role,
        "content": m.content,
        "status": m.status,
        "created_at": m.created_at,
        "meta": dict(m.meta),
    }
    if m.images:
        data["images"] = [_image_json(image, read) for image in m.images]
    return data


def to_json(
    conversation: Conversation,
    messages: Sequence[Message],
    read: ReadImage | None = None,
    current: int | None = None,
) -> dict[str, Any]:
    """All it takes to rebuild the conversation, as plain JSON types (``json.dumps`` takes it):
    every message with the id of the one it follows (``parent``), and the last one shown
    (``current``). With ``read``, each image is embedded whole as a data: URL (``url``)."""
    if current is None and messages:
        current = messages[-1].id
    return {
        "format": EXPORT_FORMAT,
        "version": EXPORT_VERSION,
        "title": conversation.title,
        "system_prompt": conversation.system_prompt,
        "settings": conversation.settings.to_json(),
        "model": conversation.model,
        "pinned": conversation.pinned,
        "created_at": conversation.created_at,
        "updated_at": conversation.updated_at,
        "current": current,
        "messages": [_message_json(m, read) for m in messages],
    }


def copy_images(messages: Sequence[Message], folder: Path, read: ReadImage) -> dict[str, str]:
    """Write the messages' images into ``folder`` under their names (made unique); returns each
    image's link, by digest, relative to the folder's parent. Nothing is created without images."""
    links: dict[str, str] = {}
    taken: set[str] = set()
    for message in messages:
        for image in message.images:
            if image.sha256 in links:
                continue
            name = image.file_name
            stem, dot, ext = name.rpartition(".")
            n = 1
            while name.lower() in taken:
                n += 1
                name = f"{stem}-{n}{dot}{ext}"
            taken.add(name.lower())
            folder.mkdir(parents=True, exist_ok=True)
            target = folder / name
            try:
                shutil.copyfile(image.path, target)
            except OSError:
                target.write_bytes(read(image))  # raises the store's own message when gone
            links[image.sha256] = f"{quote(folder.name)}/{quote(name)}"
    return links


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


def _image_markdown(image: StoredImage, link: ImageLink | None) -> str:
    alt = " ".join(image.name.replace("[", "(").replace("]", ")").split()) or "image"
    target = link(image) if link is not None else None
    if target is None:
        return f"*[{alt}, {image.width} x {image.height}]*"
    return f"![{alt}]({target})"


def to_markdown(
    conversation: Conversation, messages: Sequence[Message], link: ImageLink | None = None
) -> str:
    """A readable transcript: the title, the model and system prompt, then each turn in order.

    Message text goes out as written, so the user's and the model's code blocks stay code blocks.
    A message's images come before its text, as the model saw them, where ``link`` places them.
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
        if message.images:
            parts.append("\n".join(_image_markdown(image, link) for image in message.images))
        if message.content.strip():
            parts.append(close_open_fence(message.content.strip("\n")))
        note = _status_note(message)
        if note:
            parts.append(note)
        blocks.append("---")
        blocks.append("\n\n".join(parts))
    return "\n\n".join(blocks) + "\n"
