"""Timings of one generation, as every backend reports them."""

from __future__ import annotations

import time

from engine.types import GenerationStats


class StatsClock:
    def __init__(self, started: float) -> None:
        self.started = started
        self.prompt_tokens = 0
        self.cached_tokens = 0
        self.completion_tokens = 0
        self.prompt_done: float | None = None
        self.first: float | None = None
        self.draft_tokens = 0
        self.accepted_tokens = 0
        # Tokens decoded in a batch beside other replies (speculation is off for those).
        self.batched_tokens = 0

    def prompt(self, n: int, reused: int) -> None:
        self.prompt_tokens, self.cached_tokens = n, max(reused, 0)
        self.prompt_done = time.perf_counter()

    def drafted(self, sent: int, accepted: int) -> None:
        self.draft_tokens += sent
        self.accepted_tokens += accepted

    def first_token(self) -> None:
        self.first = time.perf_counter()

    def result(self) -> GenerationStats:
        end = time.perf_counter()
        prompt_s = (self.prompt_done or end) - self.started
        evaluated = self.prompt_tokens - self.cached_tokens
        # Decode rate counts the tokens produced after the first one over the time after it.
        decode_s = end - (self.first or end)
        decoded = max(self.completion_tokens - 1, 0)
        return GenerationStats(
            prompt_tokens=self.prompt_tokens,
            cached_tokens=self.cached_tokens,
            completion_tokens=self.completion_tokens,
            ttft_s=round((self.first or end) - self.started, 6),
            prompt_tokens_per_s=round(evaluated / prompt_s, 2) if prompt_s > 0 else 0.0,
            decode_tokens_per_s=round(decoded / decode_s, 2) if decode_s > 0 else 0.0,
            total_s=round(end - self.started, 6),
            draft_tokens=self.draft_tokens,
            accepted_tokens=self.accepted_tokens,
            batched_tokens=self.batched_tokens,
        )
