"""Scoring a prompt: every token's log-probability given the tokens before it, read from the
model's own logits as it evaluates the prompt (the completions API's ``echo`` with ``logprobs``,
which evaluation harnesses use to compare answers by their likelihood).

Each position's logits are turned into log-probabilities over the whole vocabulary (a log-softmax,
before any penalty, temperature or truncation), as for a generated token's ``logprobs``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from engine.generation.sampling import token_logprob
from engine.types import ScoredPrompt, TokenLogprob

# A prompt is scored this many tokens at a time at most: each position's logits take 4 bytes for
# every token of the vocabulary (77 MB for 128 positions of Qwen2.5's 152k), and llama.cpp keeps
# its output buffer at the largest size it was asked for.
SCORE_SLICE = 128


def score_tokens(
    tokens: Sequence[int],
    parts: Iterable[list[int]],
    feed: Callable[[list[int]], bool],
    logits: Callable[[int], Any],
    *,
    top: int,
    token_bytes: Callable[[int], bytes],
    bos: int | None,
    cancel: threading.Event,
) -> ScoredPrompt | None:
    """Evaluate ``tokens`` in ``parts`` (``feed`` evaluates one with logits for each of its
    positions, False when cancelled; ``logits(i)`` is then the row of its position ``i``) and
    score each token from the row before it. A leading ``bos`` is read as context, not scored.
    None when cancelled."""
    scored: list[TokenLogprob] = []
    done = 0
    for part in parts:
        if cancel.is_set() or not feed(part):
            return None
        for i in range(len(part)):
            after = done + i + 1  # the token this position's logits predict
            if after < len(tokens):
                scored.append(token_logprob(logits(i), tokens[after], top, token_bytes))
        done += len(part)
    if bos is not None and tokens[0] == bos:
        return ScoredPrompt(None, tuple(scored))
    raw = token_bytes(tokens[0])
    return ScoredPrompt((raw.decode("utf-8", "replace"), tuple(raw)), tuple(scored))
