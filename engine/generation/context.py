"""Context-window policy: make a conversation fit, keep the system prompt, say what was removed.

Other apps either erase half the context including the system prompt, or drop old messages without a
word. Cove keeps every leading system message, drops the oldest whole turns first, and only when the
newest message alone is still too long shortens it in the middle (its opening and its end usually
carry the question). Whatever was removed is reported in a :class:`Truncation`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from engine.errors import ContextOverflow
from engine.types import ChatMessage, Truncation

CountTokens = Callable[[Sequence[ChatMessage]], int]
ELISION = "\n[…]\n"


def reply_reserve(n_ctx: int, max_tokens: int | None) -> int:
    """Tokens kept free for the answer: the requested maximum, at most a quarter of the window."""
    quarter = max(n_ctx // 4, 1)
    return quarter if max_tokens is None else max(1, min(max_tokens, quarter))


def fit_messages(
    messages: Sequence[ChatMessage],
    count: CountTokens,
    *,
    n_ctx: int,
    reserve: int,
) -> tuple[list[ChatMessage], Truncation | None]:
    """Return the messages that fit in ``n_ctx - reserve`` prompt tokens, and what was removed.

    ``count`` renders and tokenizes a message list; it is called O(log n) times for n messages.
    """
    budget = n_ctx - reserve
    full = list(messages)
    total = count(full)
    if total <= budget:
        return full, None

    n_system = 0
    while n_system < len(full) and full[n_system].role == "system":
        n_system += 1
    system, turns = full[:n_system], full[n_system:]
    if not turns:
        raise ContextOverflow(
            f"The system prompt alone needs {total} tokens, more than the {budget} this "
            f"{n_ctx}-token context leaves for it. Shorten it or choose a larger context."
        )
    if count(system) > budget:
        raise ContextOverflow(
            f"The system prompt alone is longer than the {budget} tokens this {n_ctx}-token "
            "context leaves for it. Shorten it or choose a larger context."
        )

    starts = _turn_starts(turns)
    # Binary search for the fewest dropped turns that fits: fitting is monotone in the number of
    # oldest messages dropped, so this renders O(log n) candidates instead of n.
    lo, hi = 0, len(starts) - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if count(system + turns[starts[mid] :]) <= budget:
            hi = mid
        else:
            lo = mid + 1
    kept = system + turns[starts[lo] :]
    dropped = starts[lo]
    kept_count = count(kept)
    if kept_count <= budget:
        return kept, Truncation(dropped, 0, total - kept_count, n_ctx)

    shortened = _shorten_oldest_kept(kept, n_system, count, budget)
    return shortened, Truncation(dropped, 1, total - count(shortened), n_ctx)


def _turn_starts(turns: Sequence[ChatMessage]) -> list[int]:
    """Indexes where a kept conversation may begin: never on an assistant reply, so that templates
    that insist on user/assistant alternation still render. The newest message is always a start."""
    starts = [i for i, m in enumerate(turns) if m.role != "assistant"]
    last = len(turns) - 1
    if not starts or starts[-1] != last:
        starts.append(last)
    return starts


def _shorten_oldest_kept(
    kept: list[ChatMessage], n_system: int, count: CountTokens, budget: int
) -> list[ChatMessage]:
    """Cut the middle of the first non-system message kept until the conversation fits."""
    target = kept[n_system]
    text = target.content

    def with_keep(n_chars: int) -> list[ChatMessage]:
        head = n_chars // 2
        tail = n_chars - head
        cut = text[:head] + ELISION + (text[len(text) - tail :] if tail else "")
        return [*kept[:n_system], replace(target, content=cut), *kept[n_system + 1 :]]

    lo, hi = 0, len(text)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if count(with_keep(mid)) <= budget:
            lo = mid
        else:
            hi = mid - 1
    candidate = with_keep(lo)
    if count(candidate) > budget:
        raise ContextOverflow(
            f"The newest message cannot fit in a {budget}-token prompt budget even when "
            "shortened. Choose a larger context or send a shorter message."
        )
    return candidate


def fit_prompt(
    messages: Sequence[ChatMessage],
    render: Callable[[Sequence[ChatMessage]], str],
    tokenize: Callable[[str], list[int]],
    *,
    n_ctx: int,
    max_tokens: int | None,
) -> tuple[list[int], Truncation | None]:
    """The prompt tokens of a conversation fitted to the window (see :func:`fit_messages`); each
    candidate is rendered and tokenized once, and the final prompt reuses that work."""
    cache: dict[str, list[int]] = {}

    def tokens(msgs: Sequence[ChatMessage]) -> list[int]:
        text = render(msgs)
        if text not in cache:
            cache[text] = tokenize(text)
        return cache[text]

    fitted, truncation = fit_messages(
        messages,
        lambda msgs: len(tokens(msgs)),
        n_ctx=n_ctx,
        reserve=reply_reserve(n_ctx, max_tokens),
    )
    return tokens(fitted), truncation


def prompt_overflow(n_tokens: int, n_ctx: int, max_tokens: int | None) -> str | None:
    """Why a raw prompt (no conversation to trim) cannot run in this window, or None."""
    limit = n_ctx - reply_reserve(n_ctx, max_tokens)
    if n_tokens <= limit:
        return None
    return (
        f"The prompt has {n_tokens} tokens; this {n_ctx}-token context leaves room for {limit}. "
        "Shorten it or load the model with a larger context."
    )
