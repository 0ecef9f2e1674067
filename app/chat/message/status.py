"""A message's status in words: the badge beside the speaker's name, the reply's figures under it
(tokens, speed, first token) and the notices about how it ended."""

from __future__ import annotations

from app.common.i18n import tr
from engine.store import ReplyMeta


def status_badge(status: str, cancelled: bool = False) -> tuple[str, str] | None:
    """The badge beside the speaker's name: (its words, its object name); None: no badge."""
    if status == "interrupted":
        return (tr("Message", "Stopped") if cancelled else tr("Message", "Interrupted"), "Badge")
    if status == "error":
        return (tr("Message", "Failed"), "ErrorBadge")
    return None


def figures(meta: ReplyMeta) -> list[str]:
    """The reply's figures: its tokens, their rate and the wait for the first one."""
    stats = meta.stats
    parts: list[str] = []
    if stats and stats.completion_tokens:
        parts.append(tr("Message", "{n} tokens").format(n=stats.completion_tokens))
        if stats.decode_tokens_per_s:
            rate = f"{stats.decode_tokens_per_s:.1f}"
            parts.append(tr("Message", "{rate} tokens/s").format(rate=rate))
        if stats.ttft_s:
            seconds = f"{stats.ttft_s:.2f}"
            parts.append(tr("Message", "first token {seconds} s").format(seconds=seconds))
    return parts


def notices(meta: ReplyMeta, status: str) -> list[str]:
    """What the person should know about how the reply ended: the context cut, the error's
    first line, the length limit reached."""
    said: list[str] = []
    if meta.truncation:
        said.append(meta.truncation)
    if status in ("interrupted", "error") and meta.error:
        said.append(_first_line(meta.error))
    if meta.finish_reason == "length":
        said.append(
            tr(
                "Message",
                "The reply reached its length limit (max tokens in the chat settings).",
            )
        )
    return said


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else text
