"""Choosing the next token from logits, for runtimes that give logits and no sampler of their own
(Core ML): logit biases, repetition penalty over the last N tokens, temperature, top-k, top-p and
min-p, in llama.cpp's order, greedy at temperature 0, reproducible with a seed. And, for every
runtime, a token's log-probability with the most likely alternatives (``logprobs``).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import Any

from engine.errors import InvalidRequest
from engine.types import GenerationParams, TokenLogprob


class LogitSampler:
    """``ends``: the model's end-of-reply tokens, forbidden when the request says ``ignore_eos``."""

    def __init__(self, params: GenerationParams, ends: Collection[int] = ()) -> None:
        import numpy as np

        self.params = params
        self._rng = np.random.default_rng(params.seed)
        bias = dict(params.logit_bias)
        if params.ignore_eos:
            bias.update((t, float("-inf")) for t in ends)
        self._bias_ids = np.fromiter(bias, dtype=np.int64, count=len(bias))
        self._bias = np.fromiter(bias.values(), dtype=np.float64, count=len(bias))

    def choose(self, logits: Any, recent: Sequence[int]) -> int:
        import numpy as np

        p = self.params
        scores = np.asarray(logits, dtype=np.float64).reshape(-1).copy()
        ids = self._bias_ids
        if ids.size:  # first, as llama.cpp's sampler order has it
            if ids.max() >= scores.size:
                raise InvalidRequest(
                    f"'logit_bias': token {int(ids.max())} is not in this model's vocabulary "
                    f"({scores.size} tokens)."
                )
            scores[ids] += self._bias
        if p.repeat_penalty != 1.0 and recent:
            window = recent[-p.repeat_last_n :] if p.repeat_last_n > 0 else recent
            seen = np.unique(np.asarray(window, dtype=np.int64))
            seen = seen[(seen >= 0) & (seen < scores.size)]
            picked = scores[seen]
            scores[seen] = np.where(
                picked > 0, picked / p.repeat_penalty, picked * p.repeat_penalty
            )
        if p.temperature <= 0:
            return int(np.argmax(scores))
        order = np.argsort(-scores)
        if p.top_k > 0:
            order = order[: p.top_k]
        kept = scores[order] / p.temperature
        probs = np.exp(kept - kept.max())
        probs /= probs.sum()
        if p.top_p < 1.0:
            cut = int(np.searchsorted(np.cumsum(probs), p.top_p)) + 1
            order, probs = order[:cut], probs[:cut]
        if p.min_p > 0:
            keep = probs >= p.min_p * probs[0]
            order, probs = order[keep], probs[keep]
        probs = probs / probs.sum()
        return int(order[self._rng.choice(len(order), p=probs)])


def token_logprob(
    logits: Any, token: int, top: int, token_bytes: Callable[[int], bytes]
) -> TokenLogprob:
    """``token``'s log-probability under the softmax of ``logits`` (the model's distribution
    before penalties, temperature and truncation), with the ``top`` most likely tokens."""
    import numpy as np

    row = np.asarray(logits, dtype=np.float64).reshape(-1)
    peak = row.max()
    log_total = peak + np.log(np.exp(row - peak).sum())

    def entry(t: int) -> tuple[str, float, tuple[int, ...]]:
        raw = token_bytes(t)
        return raw.decode("utf-8", "replace"), float(row[t] - log_total), tuple(raw)

    best: list[int] = []
    if top > 0:
        picked = np.argpartition(-row, min(top, row.size - 1))[:top]
        best = [int(t) for t in picked[np.argsort(-row[picked], kind="stable")]]
    text, logprob, raw = entry(token)
    return TokenLogprob(text, logprob, raw, tuple(entry(t) for t in best))
