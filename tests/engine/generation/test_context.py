"""Context-window policy with a deterministic token counter (1 token per word + 3 per message)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from engine.errors import ContextOverflow
from engine.generation.context import fit_messages, reply_reserve
from engine.types import ChatMessage


def count(messages: Sequence[ChatMessage]) -> int:
    return sum(3 + len(m.content.split()) for m in messages)


def words(n: int, tag: str = "w") -> str:
    return " ".join(f"{tag}{i}" for i in range(n))


def conversation(turns: int, size: int) -> list[ChatMessage]:
    msgs = [ChatMessage("system", "be brief")]
    for i in range(turns):
        msgs.append(ChatMessage("user", words(size, f"u{i}_")))
        msgs.append(ChatMessage("assistant", words(size, f"a{i}_")))
    msgs.append(ChatMessage("user", "final question"))
    return msgs


def test_fitting_conversation_is_untouched() -> None:
    msgs = conversation(2, 10)
    kept, trunc = fit_messages(msgs, count, n_ctx=1000, reserve=100)
    assert kept == msgs and trunc is None


def test_drops_oldest_turns_and_keeps_system_prompt() -> None:
    msgs = conversation(10, 50)  # 10 turns of ~106 tokens
    kept, trunc = fit_messages(msgs, count, n_ctx=600, reserve=100)
    assert kept[0] == msgs[0], "system prompt kept"
    assert kept[-1] == msgs[-1], "newest message kept"
    assert kept[1].role == "user", "never starts on an assistant reply"
    assert count(kept) <= 500
    assert trunc is not None and trunc.dropped_messages > 0 and trunc.shortened_messages == 0
    assert trunc.dropped_tokens == count(msgs) - count(kept)
    # The fewest turns were dropped: keeping one more would not fit.
    idx = msgs.index(kept[1])
    assert count([msgs[0], *msgs[idx - 2 :]]) > 500
    assert "system prompt was kept" in trunc.describe()


def test_a_single_huge_message_is_shortened_in_the_middle() -> None:
    msgs = [ChatMessage("system", "sys"), ChatMessage("user", words(5000))]
    kept, trunc = fit_messages(msgs, count, n_ctx=1024, reserve=256)
    assert kept[0] == msgs[0]
    assert count(kept) <= 768
    assert kept[1].content.startswith("w0 w1") and kept[1].content.endswith("w4999")
    assert "[…]" in kept[1].content
    assert trunc is not None and trunc.shortened_messages == 1


def test_system_prompt_that_cannot_fit_is_a_clear_error() -> None:
    msgs = [ChatMessage("system", words(900)), ChatMessage("user", "hi")]
    with pytest.raises(ContextOverflow, match="system prompt"):
        fit_messages(msgs, count, n_ctx=512, reserve=128)


def test_reply_reserve_is_bounded_by_a_quarter_of_the_window() -> None:
    assert reply_reserve(4096, 100) == 100
    assert reply_reserve(4096, 100_000) == 1024
    assert reply_reserve(4096, None) == 1024
