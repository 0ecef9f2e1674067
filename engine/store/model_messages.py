"""A stored conversation as the messages a model is sent: the system prompt, then each turn along
the path shown, with a user's images and, before a reply that called tools, its calls and their
results as the model saw them. The window and anything else that answers from the history ask
this one rule."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from engine.store.types import Message, StoredImage
from engine.tools import ToolCall
from engine.types import ChatMessage, ImageInput

# Calls that ran to an end the model was told about; pending or running ones were never answered.
FINISHED_CALLS = ("done", "failed", "denied")


def history_for(
    messages: Sequence[Message],
    system_prompt: str,
    images: Callable[[StoredImage], ImageInput | None] | None = None,
) -> tuple[list[ChatMessage], int]:
    """What the engine sees, and how many characters of text that is: the system prompt, then
    each turn with text or images. Interrupted replies count (their words were shown to the
    user); failed ones and empty ones do not. A reply that called tools is preceded by its calls
    and their results, as the model saw them. A user's images go with their message when
    ``images`` prepares them (None: left out)."""
    out: list[ChatMessage] = []
    if system_prompt.strip():
        out.append(ChatMessage("system", system_prompt))
    for m in messages:
        if m.role == "system" or m.status == "error":
            continue
        prepared: tuple[ImageInput, ...] = ()
        if images is not None and m.images:
            prepared = tuple(i for i in map(images, m.images) if i is not None)
        if not m.content.strip() and not prepared:
            continue
        if m.role == "assistant":
            out.extend(call_messages(m.meta.get("tool_calls")))
        out.append(ChatMessage(m.role, m.content, images=prepared))
    return out, sum(len(m.content) for m in out)


def call_messages(stored: object) -> list[ChatMessage]:
    """A reply's finished calls, as its meta keeps them, as the turns the model saw: each call,
    then its result."""
    if not isinstance(stored, list):
        return []
    out: list[ChatMessage] = []
    for item in stored:
        if not isinstance(item, dict) or item.get("state") not in FINISHED_CALLS:
            continue
        arguments = item.get("arguments")
        call = ToolCall(
            str(item.get("offered") or item.get("tool")),
            arguments if isinstance(arguments, dict) else {},
            id=str(item.get("id")),
        )
        out.append(ChatMessage("assistant", "", tool_calls=(call,)))
        out.append(ChatMessage("tool", str(item.get("result", "")), tool_call_id=call.id))
    return out
