"""What every backend's stream shares: its timings, and the frame that makes one generation at a
time end in exactly one terminal chunk, whatever happens inside it."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Generator, Iterator

from engine.errors import EngineError
from engine.types import Chunk, FinishReason, GenerationStats, Truncation

# A backend's generation body: yields text chunks, returns (finish reason, context full).
Body = Generator[Chunk, None, tuple[FinishReason, bool]]


class StatsClock:
    def __init__(self, started: float) -> None:
        self.started = started
        self.prompt_tokens = 0
        self.cached_tokens = 0
        self.completion_tokens = 0
        self.prompt_done: float | None = None
        self.first: float | None = None

    def prompt(self, n: int, reused: int) -> None:
        self.prompt_tokens, self.cached_tokens = n, max(reused, 0)
        self.prompt_done = time.perf_counter()

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
        )


def guarded_stream(
    lock: threading.Lock,
    started: float,
    truncation: Truncation | None,
    body: Callable[[StatsClock], Body],
    reset: Callable[[], None],
) -> Iterator[Chunk]:
    """Run ``body`` while holding ``lock`` (a second concurrent request gets a clear error, not
    corrupted state) and end with one terminal chunk carrying the stats. An error inside the body
    forgets the cached conversation (``reset``) and becomes an ``error`` terminal chunk."""
    if not lock.acquire(blocking=False):
        yield Chunk(finish_reason="error", error="This model is already generating a reply.")
        return
    stats = StatsClock(started)
    finish: FinishReason = "stop"
    error: str | None = None
    context_full = False
    try:
        finish, context_full = yield from body(stats)
    except EngineError as exc:
        finish, error = "error", str(exc)
        reset()
    except Exception as exc:  # the generator boundary: the stream must still end properly
        finish, error = "error", f"The engine failed while generating: {exc}"
        reset()
    finally:
        lock.release()
    yield Chunk(
        finish_reason=finish,
        stats=stats.result(),
        truncation=truncation,
        error=error,
        context_full=context_full,
    )
