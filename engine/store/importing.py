"""Read a conversation back in: Cove's own JSON export (every version, as exported), or an
OpenAI-style ``messages`` list (a plain line of turns).

Everything is checked before anything is written: a file that is not a conversation gives a
``ValueError`` saying what is wrong and where, and the history is left as it was.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.store.export import EXPORT_FORMAT
from engine.store.types import ROLES, ChatSettings, MessageStatus, NewImage

_STATUSES: dict[str, MessageStatus] = {
    "complete": "complete",
    "interrupted": "interrupted",
    "error": "error",
    "streaming": "interrupted",  # exported mid-reply: it will not finish now
}
# OpenAI's roles that are not Cove's: a developer message is a system message; tool turns are
# folded into the replies around them rather than lost.
_ROLE_ALIASES = {"developer": "system", "model": "assistant"}


@dataclass(frozen=True, slots=True)
class IncomingMessage:
    key: str  # how the file names it (its index when it names none)
    parent: str | None  # the key of the message it follows
    role: str
    content: str
    status: MessageStatus = "complete"
    created_at: float | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    images: tuple[NewImage, ...] = ()


@dataclass(frozen=True, slots=True)
class IncomingConversation:
    title: str
    system_prompt: str
    settings: ChatSettings
    model: str | None
    messages: tuple[IncomingMessage, ...]  # every message after the one it follows
    leaf: str | None  # the key of the last message shown


def read_conversation(data: object, fallback_title: str = "Imported chat") -> IncomingConversation:
    """A conversation from parsed JSON: Cove's export, ``{"messages": [...]}`` or a bare list."""
    if isinstance(data, list):
        return _openai(data, {}, fallback_title)
    if not isinstance(data, Mapping):
        raise ValueError("The file holds no conversation: expected a JSON object or list.")
    if data.get("format") == EXPORT_FORMAT:
        return _cove(data, fallback_title)
    if "format" in data:
        raise ValueError(f"The file is a {data.get('format')!r} file, not a conversation.")
    messages = data.get("messages")
    if not isinstance(messages, list):
        raise ValueError("The file has no 'messages' list: it is not a conversation.")
    return _openai(messages, data, fallback_title)


def _text(value: object, where: str) -> tuple[str, list[str]]:
    """A message's text, and the data: URLs of its images (OpenAI's content parts)."""
    if value is None:
        return "", []
    if isinstance(value, str):
        return value, []
    if not isinstance(value, list):
        raise ValueError(f"{where}: 'content' must be text or a list of parts.")
    texts: list[str] = []
    urls: list[str] = []
    for part in value:
        if not isinstance(part, Mapping):
            raise ValueError(f"{where}: each part of 'content' must be an object.")
        kind = part.get("type")
        if kind in ("text", "input_text", "output_text"):
            texts.append(str(part.get("text", "")))
        elif kind in ("image_url", "input_image"):
            url = part.get("image_url")
            url = url.get("url") if isinstance(url, Mapping) else url
            if isinstance(url, str) and url.startswith("data:"):
                urls.append(url)
    return "\n\n".join(t for t in texts if t), urls


def _images(urls: Sequence[str], names: Sequence[str], where: str) -> tuple[NewImage, ...]:
    from engine.errors import ImageError
    from engine.images import read_data_url

    out: list[NewImage] = []
    for i, url in enumerate(urls):
        name = names[i] if i < len(names) else ""
        try:
            image = read_data_url(url, name or f"image {i + 1}")
        except ImageError as exc:
            raise ValueError(f"{where}: {exc}") from None
        out.append(NewImage.of(image, name))
    return tuple(out)


def _role(value: object, where: str) -> str:
    role = _ROLE_ALIASES.get(str(value), str(value))
    if role not in ROLES:
        raise ValueError(f"{where}: the role {value!r} is not one of {', '.join(ROLES)}.")
    return role


def _openai(
    items: Sequence[object], data: Mapping[str, Any], fallback_title: str
) -> IncomingConversation:
    system: list[str] = []
    out: list[IncomingMessage] = []
    for i, item in enumerate(items):
        where = f"Message {i + 1}"
        if not isinstance(item, Mapping):
            raise ValueError(f"{where} is not an object with a 'role' and 'content'.")
        if item.get("role") == "tool":
            continue  # a tool's result: the reply that used it says what it found
        role = _role(item.get("role"), where)
        text, urls = _text(item.get("content"), where)
        if role == "system" and not out:
            system.append(text)
            continue
        if not text.strip() and not urls:
            continue  # a turn that only called tools
        key = str(len(out))
        parent = out[-1].key if out else None
        out.append(IncomingMessage(key, parent, role, text, images=_images(urls, [], where)))
    if not out and not system:
        raise ValueError("The conversation has no messages.")
    first_user = next((m.content for m in out if m.role == "user" and m.content.strip()), "")
    title = str(data.get("title") or "") or _title(first_user) or fallback_title
    model = data.get("model")
    return IncomingConversation(
        title=title,
        system_prompt="\n\n".join(system),
        settings=ChatSettings(),
        model=model if isinstance(model, str) and model else None,
        messages=tuple(out),
        leaf=out[-1].key if out else None,
    )


def _cove(data: Mapping[str, Any], fallback_title: str) -> IncomingConversation:
    items = data.get("messages")
    if not isinstance(items, list):
        raise ValueError("The export has no 'messages' list.")
    out: list[IncomingMessage] = []
    keys: set[str] = set()
    tree = any(isinstance(m, Mapping) and "id" in m for m in items)
    for i, item in enumerate(items):
        where = f"Message {i + 1}"
        if not isinstance(item, Mapping):
            raise ValueError(f"{where} is not an object.")
        role = _role(item.get("role"), where)
        content = item.get("content")
        if not isinstance(content, str):
            raise ValueError(f"{where}: 'content' must be text.")
        key = str(item["id"]) if tree and "id" in item else f"#{i}"
        if key in keys:
            raise ValueError(f"{where}: the id {key} is used twice.")
        if tree:
            raw = item.get("parent")
            parent = str(raw) if raw is not None else None
        else:  # a version 1 export: one line of turns
            parent = out[-1].key if out else None
        if parent is not None and parent not in keys:
            raise ValueError(f"{where} follows {parent}, which does not come before it.")
        keys.add(key)
        images = item.get("images") or []
        if not isinstance(images, list):
            raise ValueError(f"{where}: 'images' must be a list.")
        urls = [str(im.get("url", "")) for im in images if isinstance(im, Mapping)]
        names = [str(im.get("name", "")) for im in images if isinstance(im, Mapping)]
        meta = item.get("meta")
        created = item.get("created_at")
        out.append(
            IncomingMessage(
                key,
                parent,
                role,
                content,
                _STATUSES.get(str(item.get("status")), "complete"),
                float(created) if isinstance(created, int | float) else None,
                dict(meta) if isinstance(meta, Mapping) else {},
                _images([u for u in urls if u], names, where),
            )
        )
    leaf = data.get("current")
    leaf_key = str(leaf) if leaf is not None and str(leaf) in keys else None
    if leaf_key is None and out:
        leaf_key = out[-1].key
    model = data.get("model")
    return IncomingConversation(
        title=str(data.get("title") or fallback_title),
        system_prompt=str(data.get("system_prompt") or ""),
        settings=ChatSettings.from_json(data.get("settings")),
        model=model if isinstance(model, str) and model else None,
        messages=tuple(out),
        leaf=leaf_key,
    )


def _title(text: str, limit: int = 48) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"
