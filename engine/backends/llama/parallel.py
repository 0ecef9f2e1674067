"""Several replies at once from one llama.cpp context: continuous batching.

One model's context holds up to N sequences, each with its own KV cache. Every reply runs the
shared generation loop in its own thread, on its own sequence (engine/backends/llama/batched.py:
its cached tokens, sampler, stop strings, grammar, logprobs, saved state); where it would call
``llama_decode`` alone, it hands its tokens to the ``Batcher`` instead. The batcher's thread
evaluates one batch holding the next token of every running reply and a slice of any prompt
being read, then lets each sequence sample from its own rows of the logits. This module chooses
the sequence a request takes and copies a shared start of prompts between sequences.

How steps wait for the replies, hand-ins ahead of a reply's text and prompts read in slices:
engine/backends/llama/batcher.py.

Speculation checks guesses in a batch of one sequence: a reply alone speculates as before, and
beside others it decodes one token a step, which the stats count (``batched_tokens``).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from engine.backends.llama.batched import BatchedSequence
from engine.backends.llama.batcher import Batcher
from engine.backends.llama.model import LlamaModel
from engine.backends.llama.sequence import LlamaSequence, Prompt
from engine.capabilities import Capabilities
from engine.errors import EngineBusy, EngineError
from engine.generation.kv_reuse import common_prefix
from engine.tools import Tool
from engine.types import ChatMessage, Chunk, GenerationParams, Truncation

if TYPE_CHECKING:
    from engine.generation.speculation import Drafter
    from engine.generation.state_cache import StateCache
    from engine.templates import ChatTemplate


# A start of a prompt that another sequence holds is copied into the cache of the sequence a
# request takes when it is at least this long: copying a sequence's cache costs about what
# reading a few dozen tokens does on a small model (both read the whole cache once).
SHARE_MIN = 32
# How often a request waiting for another sequence to read their common start looks again, and
# how long it waits for a reply that took its sequence but has not started (a caller that has
# not begun to read its stream) before it reads the start itself.
WAIT_POLL_S = 0.01
WAIT_START_S = 5.0


class _SharedDrafter:
    """One draft model for every sequence: used by a reply while it runs alone (the only time a
    sequence speculates), never by two at once."""

    def __init__(self, drafter: Drafter) -> None:
        self.name = drafter.name
        self._drafter = drafter
        self._lock = threading.Lock()

    def guess(self, sequence: Sequence[int], k: int, cancel: threading.Event) -> list[int]:
        if not self._lock.acquire(blocking=False):
            return []
        try:
            return self._drafter.guess(sequence, k, cancel)
        finally:
            self._lock.release()

    def close(self) -> None:
        """Sequences do not close what they share; ``ParallelLlamaCpp`` does."""

    def close_now(self) -> None:
        with self._lock:
            self._drafter.close()


class ParallelLlamaCpp:
    """A llama.cpp model answering up to ``sequences`` requests at once (see the module's
    docstring). Each request takes an idle sequence, the one already holding the longest part of
    its prompt (a conversation's follow-up lands where its history is cached)."""

    def __init__(self, model: LlamaModel) -> None:
        self.model = model
        self.capabilities: Capabilities = model.capabilities
        self.sequences = sequences = model.capabilities.sequences
        self.plan = model.plan
        self.name = model.name
        self.template: ChatTemplate = model.template
        self.batcher = Batcher(model.lib, model.ctx, model.n_batch)
        self.slots: tuple[BatchedSequence, ...] = tuple(
            BatchedSequence(model, seq, self.batcher) for seq in range(sequences)
        )
        self._idle: list[bool] = [True] * sequences
        self._used: list[float] = [0.0] * sequences
        # The prompt each busy sequence brings its cache to, and the sequences waiting for
        # another to read the start they share with it.
        self._targets: list[list[int] | None] = [None] * sequences
        self._waiting: set[int] = set()
        self._started: list[bool] = [False] * sequences  # its reply's stream is being read
        # Requests that waited for another's reading of their common start and copied it.
        self.read_once = 0
        self._take_lock = threading.Lock()
        self._drafter: _SharedDrafter | None = None
        self._closed = False

    # -- what the host asks of a model -----------------------------------------------------------

    @property
    def n_ctx(self) -> int:
        return self.model.n_ctx

    @property
    def busy(self) -> int:
        """Sequences generating now."""
        return sum(1 for idle in self._idle if not idle)

    def count_tokens(self, messages: Sequence[ChatMessage], tools: Sequence[Tool] = ()) -> int:
        return self.slots[0].count_tokens(messages, tools)

    def tokenize(self, text: str) -> list[int]:
        return self.model.tokenize(text)

    def keep_states(self, cache: StateCache | None) -> None:
        for slot in self.slots:
            slot.keep_states(cache)

    def attach_draft(self, drafter: Drafter | None) -> None:
        old, self._drafter = self._drafter, (None if drafter is None else _SharedDrafter(drafter))
        for slot in self.slots:
            slot.attach_draft(self._drafter)
        if old is not None:
            old.close_now()

    @property
    def draft_name(self) -> str | None:
        return self._drafter.name if self._drafter is not None else None

    def chat(
        self,
        messages: Sequence[ChatMessage],
        params: GenerationParams,
        cancel: threading.Event | None = None,
    ) -> Iterator[Chunk]:
        started = time.perf_counter()
        # Computing a prompt reads only the model: any sequence computes it.
        prompt, stop, lead = self.slots[0].chat_request(messages, params)
        ready = _computed(prompt)
        cancel = cancel or threading.Event()
        return self._on_slot(
            ready,
            lambda slot: slot.generate(ready, params, cancel, stop, started, lead),
            cancel,
        )

    def complete(
        self,
        prompt: str | Sequence[int],
        params: GenerationParams,
        cancel: threading.Event | None = None,
    ) -> Iterator[Chunk]:
        started = time.perf_counter()
        ready = _computed(self.slots[0].complete_request(prompt, params))
        cancel = cancel or threading.Event()
        return self._on_slot(
            ready,
            lambda slot: slot.generate(ready, params, cancel, params.stop, started),
            cancel,
            # A scored prompt is read afresh, with logits at every position: nothing to share.
            share=not params.score_prompt,
        )

    def reset(self) -> None:
        for slot in self.slots:
            slot.reset()

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        for slot in self.slots:
            slot.close()  # waits for its reply to let go
        self.batcher.close()
        if self._drafter is not None:
            self._drafter.close_now()
            self._drafter = None
        self.model.close()

    def __enter__(self) -> ParallelLlamaCpp:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    # -- slots -----------------------------------------------------------------------------------

    def _on_slot(
        self, ready: _Computed, run: Any, cancel: threading.Event, *, share: bool = True
    ) -> Iterator[Chunk]:
        tokens = ready.tokens
        taken = self._take(tokens, share)
        if taken is None:
            busy = EngineBusy(f"All {self.sequences} replies at a time are in use.")
            return _failed(busy)
        index, reading = taken
        chunks: Iterator[Chunk] = run(self.slots[index])  # a generator: nothing runs yet
        if reading is not None:
            chunks = self._after_reading(index, tokens, reading, cancel, chunks)
        return self._stream(index, chunks)

    def _take(self, tokens: list[int], share: bool) -> tuple[int, tuple[int, int] | None] | None:
        """The idle slot holding the longest prefix of ``tokens``; among equals, the one idle
        longest (its cache is the least likely to be continued). With it, when another slot is
        reading a longer start of ``tokens`` right now, that slot and how far they agree: the
        request waits for that reading and copies it (``_after_reading``)."""
        with self._take_lock:
            shared = self._held(tokens)
            idle = [i for i in range(len(self.slots)) if self._idle[i]]
            if not idle:
                return None
            chosen = max(idle, key=lambda i: (shared[i], -self._used[i]))
            self._idle[chosen] = False
            self._started[chosen] = False
            self._targets[chosen] = tokens
            reading = self._reading_now(chosen, tokens, shared) if share else None
            if reading is not None:
                self._waiting.add(chosen)
            elif share:
                self._share_start(chosen, tokens, shared)
            return chosen, reading

    def _held(self, tokens: list[int]) -> list[int]:
        """How much of ``tokens`` each slot's cache holds."""
        return [common_prefix(slot.cached_ids, tokens) for slot in self.slots]

    def _reading_now(
        self, index: int, tokens: list[int], shared: list[int]
    ) -> tuple[int, int] | None:
        """The busy slot whose prompt shares the longest start with ``tokens`` beyond what any
        cache holds (by ``SHARE_MIN`` at least), and that start's length; None when none. Slots
        that wait themselves are not read from: they will copy the same cells."""
        held = max(shared)
        best: tuple[int, int] | None = None
        for i, target in enumerate(self._targets):
            if i == index or target is None or i in self._waiting or self.slots[i].shifted:
                continue
            ahead = common_prefix(target, tokens)
            if ahead - max(held, shared[index]) >= SHARE_MIN and (best is None or ahead > best[1]):
                best = (i, ahead)
        if best is not None and any(t < 0 for t in tokens[: best[1]]):
            return None  # an image's embeddings are not tokens another prompt can hold
        return best

    def _after_reading(
        self,
        index: int,
        tokens: list[int],
        reading: tuple[int, int],
        cancel: threading.Event,
        chunks: Iterator[Chunk],
    ) -> Iterator[Chunk]:
        """Wait until the slot reading the start ``tokens`` share has read it (or stopped), copy
        its cells, then generate: eight requests with one system prompt read it once."""
        source_index, ahead = reading
        source = self.slots[source_index]
        followed = self._targets[source_index]
        since = time.monotonic()
        try:
            # Each look costs next to nothing while the reading goes on (a length, an identity):
            # the tokens are compared only once the source holds as many, or takes another
            # request, so that the wait takes no core from the reading it waits for.
            while not cancel.is_set() and not self._closed:
                target = self._targets[source_index]
                if target is not followed:
                    if target is None or common_prefix(target, tokens) < ahead:
                        break
                    followed = target
                if (
                    len(source.cached_ids) >= ahead
                    and common_prefix(source.cached_ids, tokens) >= ahead
                ):
                    break
                if not self._started[source_index] and time.monotonic() - since > WAIT_START_S:
                    break  # nobody reads that reply yet: read the start here
                cancel.wait(WAIT_POLL_S)
            with self._take_lock:
                shared = self._held(tokens)
                if self._share_start(index, tokens, shared, prefer=source_index):
                    self.read_once += 1
        finally:
            with self._take_lock:
                self._waiting.discard(index)
        yield from chunks

    def _share_start(
        self, index: int, tokens: list[int], shared: list[int], prefer: int | None = None
    ) -> bool:
        """Copy into slot ``index``'s cache the longest start of ``tokens`` that another sequence
        holds (busy or not; ``shared``: each slot's), when it is at least ``SHARE_MIN`` tokens
        longer than what the slot holds: requests that share a long system prompt, or a burst of
        them that outnumbers the sequences holding it, read it once instead of once a sequence.
        Among sources holding as much, ``prefer`` (the one a request waited for: another that
        copied the same start may be rewinding its cache to read its own tail). Whether it
        copied."""
        have = shared[index]
        others = [i for i in range(len(self.slots)) if i != index and not self.slots[i].shifted]
        if not others:
            return False
        source_index = max(others, key=lambda i: (shared[i], i == prefer))
        best = shared[source_index]
        if best - have < SHARE_MIN or any(t < 0 for t in tokens[:best]):
            return False
        return self.slots[index].take_start(self.slots[source_index], tokens, best)

    def _stream(self, index: int, chunks: Iterator[Chunk]) -> Iterator[Chunk]:
        seq = self.slots[index].seq
        batcher = self.batcher
        released = False

        def release() -> None:
            nonlocal released
            if not released:
                released = True
                batcher.leave(seq)
                self._used[index] = time.monotonic()
                with self._take_lock:
                    self._targets[index] = None
                    self._waiting.discard(index)
                    self._idle[index] = True

        self._started[index] = True
        try:
            for chunk in chunks:
                if chunk.is_terminal:  # the slot let go of its lock before its last chunk
                    release()
                    yield chunk
                    return
                batcher.away(seq)
                yield chunk
                batcher.back(seq)
        finally:
            close = getattr(chunks, "close", None)
            if close is not None:
                close()
            release()


class _Computed:
    """A prompt computed once, before the slot is chosen; raising, inside the slot's loop, what
    computing it raised."""

    def __init__(
        self, tokens: list[int], truncation: Truncation | None, error: Exception | None
    ) -> None:
        self.tokens = tokens
        self._truncation = truncation
        self._error = error

    def __call__(self) -> tuple[list[int], Truncation | None]:
        if self._error is not None:
            raise self._error
        return self.tokens, self._truncation


def _computed(prompt: Prompt) -> _Computed:
    try:
        tokens, truncation = prompt()
    except Exception as exc:  # raised again in the loop, which turns it into the terminal chunk
        return _Computed([], None, exc)
    return _Computed(list(tokens), truncation, None)


def weights_of(model: object) -> LlamaModel | None:
    """The llama.cpp model holding ``model``'s weights (the one its sequences share); None for
    another runtime's."""
    if isinstance(model, ParallelLlamaCpp):
        return model.model
    return model.model if isinstance(model, LlamaSequence) else None


def _failed(exc: EngineError) -> Iterator[Chunk]:
    yield Chunk(finish_reason="error", error=str(exc), code=exc.code)
