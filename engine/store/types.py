"""Values the chat history hands out, and how a finished reply's stream maps onto them."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from engine.types import Chunk, FinishReason, GenerationParams, GenerationStats, Role

if TYPE_CHECKING:
    from engine.types import ImageInput

MessageStatus = Literal["complete", "streaming", "interrupted", "error"]
MESSAGE_STATUSES: tuple[MessageStatus, ...] = ("complete", "streaming", "interrupted", "error")
ROLES: tuple[Role, ...] = ("system", "user", "assistant")
Span = tuple[int, int]

_PARAM_DEFAULTS = GenerationParams()


@dataclass(frozen=True, slots=True)
class ChatSettings:
    """Per-conversation sampling and context; ``ctx=None`` lets the planner pick the context.
    ``thinking``: a reasoning model thinks before it answers, where its chat template can turn
    that off (the chat's Thinking switch)."""

    temperature: float = _PARAM_DEFAULTS.temperature
    top_p: float = _PARAM_DEFAULTS.top_p
    top_k: int = _PARAM_DEFAULTS.top_k
    max_tokens: int | None = _PARAM_DEFAULTS.max_tokens
    ctx: int | None = None
    thinking: bool = True

    def __post_init__(self) -> None:
        self.to_params()  # GenerationParams owns the valid ranges
        if self.ctx is not None and self.ctx < 1:
            raise ValueError("ctx must be a positive number of tokens, or None for automatic")

    def to_params(self) -> GenerationParams:
        return GenerationParams(
            temperature=self.temperature,
            top_k=self.top_k,
            top_p=self.top_p,
            max_tokens=self.max_tokens,
            thinking=self.thinking,
        )

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: object) -> ChatSettings:
        """Read stored settings leniently, so a chat never becomes unopenable over its settings.

        A missing, mistyped or out-of-range field keeps its default; one from a newer Cove is
        ignored.
        """
        settings = cls()
        if not isinstance(data, dict):
            return settings
        for f in fields(cls):
            if f.name not in data:
                continue
            value = data[f.name]
            if not _fits_type(f.name, value):
                continue
            try:
                settings = replace(settings, **{f.name: value})
            except ValueError:
                continue
        return settings


def _fits_type(name: str, value: object) -> bool:
    if name == "thinking":
        return isinstance(value, bool)
    if isinstance(value, bool):
        return False
    if name in ("temperature", "top_p"):
        return isinstance(value, int | float)
    if name == "top_k":
        return isinstance(value, int)
    return value is None or isinstance(value, int)


@dataclass(frozen=True, slots=True)
class Conversation:
    id: int
    title: str
    system_prompt: str
    settings: ChatSettings
    model: str | None
    created_at: float
    updated_at: float
    leaf_id: int | None = None  # the last message of the path shown (None: no message yet)
    pinned: bool = False  # listed first, under Pinned
    folder_id: int | None = None  # the folder it was filed in (None: the list's top level)


@dataclass(frozen=True, slots=True)
class Folder:
    """A named group of conversations in the list; ``position`` orders the folders."""

    id: int
    name: str
    position: int
    created_at: float


EXTENSIONS = {
    "image/png": "png",
    "image/jpeg": "jpg",
    "image/webp": "webp",
    "image/gif": "gif",
    "image/bmp": "bmp",
    "image/tiff": "tiff",
}


def image_extension(mime: str) -> str:
    return EXTENSIONS.get(mime, "img")


@dataclass(frozen=True, slots=True)
class NewImage:
    """An image to keep with a user's message: the file as the user gave it, whole."""

    data: bytes = field(repr=False)
    mime: str
    width: int  # as the user sees it (upright, before any scaling for the model)
    height: int
    name: str = ""

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()

    @classmethod
    def of(cls, image: ImageInput, name: str = "") -> NewImage:
        width, height = image.original if image.original != (0, 0) else (image.width, image.height)
        return cls(image.encoded, image.mime, width, height, name)


@dataclass(frozen=True, slots=True)
class StoredImage:
    """An image of a message, kept in the history's images folder under its SHA-256."""

    sha256: str
    mime: str
    width: int
    height: int
    size: int  # bytes
    name: str
    path: Path

    @property
    def file_name(self) -> str:
        """A name to export it under: the user's, or its digest, with the right extension."""
        ext = image_extension(self.mime)
        stem = Path(self.name).stem if self.name else ""
        safe = "".join(c if c.isalnum() or c in "-_ ." else "_" for c in stem).strip(" .")
        return f"{safe or self.sha256[:12]}.{ext}"


@dataclass(frozen=True, slots=True)
class Message:
    """One turn. ``position`` orders a conversation's messages as they were written (gaps are
    allowed after deletes); ``parent_id`` is the message it follows (None: the first turn).
    Messages that follow the same one in the same role are versions of one turn: ``versions``
    lists them in order, when the store was asked for them. A user's message may carry images,
    shown to the model before its text."""

    id: int
    conversation_id: int
    position: int
    role: Role
    content: str
    status: MessageStatus
    created_at: float
    meta: dict[str, Any] = field(default_factory=dict)
    images: tuple[StoredImage, ...] = ()
    parent_id: int | None = None
    versions: tuple[int, ...] = ()

    @property
    def version(self) -> tuple[int, int]:
        """(which version this is, from 1; how many there are): (1, 1) without versions."""
        if self.id not in self.versions:
            return 1, 1
        return self.versions.index(self.id) + 1, len(self.versions)


def reply_status(finish_reason: FinishReason | None) -> MessageStatus:
    """How a reply that ended with this finish reason is stored."""
    if finish_reason in ("stop", "length"):
        return "complete"
    if finish_reason == "error":
        return "error"
    return "interrupted"  # cancelled by the user, or the stream ended without a terminal chunk


def reply_meta(final: Chunk) -> dict[str, Any]:
    """The metadata kept with a finished reply, from the stream's terminal chunk."""
    meta: dict[str, Any] = {}
    if final.finish_reason is not None:
        meta["finish_reason"] = final.finish_reason
    if final.stats is not None:
        meta["stats"] = asdict(final.stats)
    if final.truncation is not None:
        meta["truncation"] = final.truncation.describe()
    if final.error:
        meta["error"] = final.error
    return meta


@dataclass(frozen=True, slots=True)
class ReplyMeta:
    """A reply's stored metadata, read back typed (what ``reply_meta`` wrote, plus the model's
    name and the error of a reply that never got a terminal chunk). Unreadable parts are None."""

    model: str | None = None  # the name it was asked for by
    model_name: str | None = None  # its name as people read it
    finish_reason: str | None = None  # a FinishReason, or "crashed"
    stats: GenerationStats | None = None
    truncation: str | None = None  # the notice shown to the user
    error: str | None = None

    @classmethod
    def of(cls, meta: Mapping[str, Any]) -> ReplyMeta:
        raw = meta.get("stats")
        stats: GenerationStats | None = None
        if isinstance(raw, Mapping):
            known = {f.name for f in fields(GenerationStats)}
            try:
                stats = GenerationStats(**{k: v for k, v in raw.items() if k in known})
            except TypeError:
                stats = None
        return cls(
            model=_text_or_none(meta.get("model")),
            model_name=_text_or_none(meta.get("model_name")),
            finish_reason=_text_or_none(meta.get("finish_reason")),
            stats=stats,
            truncation=_text_or_none(meta.get("truncation")),
            error=_text_or_none(meta.get("error")),
        )

    @property
    def speaker(self) -> str | None:
        """Who wrote the reply, as its label says: the model's name."""
        return self.model_name or self.model


def _text_or_none(value: object) -> str | None:
    return str(value) if value else None


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One match: a message (``message_id`` set) or a conversation title (``message_id`` None).

    ``snippet`` is plain text around the match; ``highlights`` are ``(start, end)`` offsets into it
    of the matched words, so the window can escape the text first and then mark the spans.
    """

    conversation_id: int
    title: str
    message_id: int | None
    role: Role | None
    snippet: str
    highlights: tuple[Span, ...] = ()

    def marked(self, before: str, after: str, escape: Callable[[str], str] | None = None) -> str:
        """The snippet with every match wrapped, e.g. ``hit.marked("<b>", "</b>", html.escape)``."""
        esc = escape or (lambda text: text)
        parts: list[str] = []
        cursor = 0
        for start, end in self.highlights:
            parts.append(esc(self.snippet[cursor:start]))
            parts.append(before + esc(self.snippet[start:end]) + after)
            cursor = end
        parts.append(esc(self.snippet[cursor:]))
        return "".join(parts)


def check_role(role: str) -> None:
    if role not in ROLES:
        raise ValueError(f"role must be one of {', '.join(ROLES)}, not {role!r}")


def check_status(status: str) -> None:
    if status not in MESSAGE_STATUSES:
        raise ValueError(f"status must be one of {', '.join(MESSAGE_STATUSES)}, not {status!r}")
