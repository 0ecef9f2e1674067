"""Conversations long enough that their saved model state pays, and greedy replies to them, for
the tests of conversations' model state on disk (engine/generation/state_cache.py)."""

from __future__ import annotations

import dataclasses
from typing import Any

from engine.backends.llama.single import LlamaCppModel
from engine.types import ChatMessage, GenerationParams, GenerationStats
from tests.conftest import collect

GREEDY = GenerationParams(temperature=0.0, max_tokens=12, speculation="exact")
_REPORT = (
    "The committee reviewed the quarterly figures and noted that revenue rose in every region "
    "except the north, where shipping delays held back deliveries for most of the season. "
)


def conversation(turns: int = 2, tag: str = "") -> list[ChatMessage]:
    messages = [ChatMessage("system", "You are a helpful assistant.")]
    for i in range(turns):
        messages.append(ChatMessage("user", f"{tag}Report {i}: {_REPORT * 4}Summarise it."))
        messages.append(ChatMessage("assistant", f"Revenue rose except in the north ({i})."))
    messages.append(ChatMessage("user", "And what held back the north?"))
    return messages


def reply(
    model: LlamaCppModel, messages: list[ChatMessage], **kw: Any
) -> tuple[str, GenerationStats]:
    text, final = collect(model.chat(messages, dataclasses.replace(GREEDY, **kw)))
    assert final.finish_reason in ("stop", "length"), final.error
    assert final.stats is not None
    return text, final.stats
