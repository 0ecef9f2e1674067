"""A sequence of a llama.cpp context that serves several replies at once: where a sequence of
its own context would call ``llama_decode`` alone, it hands its tokens to the batcher
(engine/backends/llama/batcher.py), whose thread evaluates every running reply's next token in
one step, and reads its logits from its own rows of the step's output."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator, Sequence

from engine.backends.llama.batcher import Batcher, Work
from engine.backends.llama.model import LlamaModel
from engine.backends.llama.sequence import LlamaSequence
from engine.errors import EngineError
from engine.generation.kv_reuse import common_prefix
from engine.types import GenerationParams


class BatchedSequence(LlamaSequence):
    """One sequence of a shared context: the loop's per-reply state over the model; evaluation
    goes through the batcher."""

    def __init__(self, model: LlamaModel, seq: int, batcher: Batcher) -> None:
        super().__init__(model, seq)
        self._batcher = batcher
        self._rows = (0, 0)
        # Whether its cached tokens match its cells (not between a rewind's dropping cells and
        # the loop's forgetting their tokens).
        self._settled = True

    @property
    def settled(self) -> bool:
        return self._settled

    def use_rows(self, rows: tuple[int, int]) -> None:
        """The first and last row of the step's output that hold this sequence's logits."""
        self._rows = rows

    def take_start(self, source: BatchedSequence, tokens: Sequence[int], length: int) -> bool:
        """Copy ``source``'s cells of the first ``length`` tokens of ``tokens`` into this
        sequence's place; False (nothing copied) when the source does not hold them now."""
        with self._batcher.lock:
            # The source is not between dropping cells and forgetting their tokens (its
            # ``_rewind``), so its cached tokens are what its cells hold.
            if not source.settled or common_prefix(source.cached_ids, tokens) < length:
                return False
            self.model.copy_cells(source.seq, self._seq, length)
            self._cached[:] = tokens[:length]
            self._shifts = []
            self._saved = ()
        return True

    def _native(self) -> contextlib.AbstractContextManager[object]:
        return self._batcher.lock

    def row(self, index: int) -> int:
        first, last = self._rows
        return last if index < 0 else first + index

    @contextlib.contextmanager
    def _prefilling(self) -> Iterator[None]:
        self._settled = True  # its cached tokens match its cells again
        yield  # no abort callback: a step serves every sequence, cancelled ones or not

    def _rewind(self, keep: int, params: GenerationParams) -> int:
        self._settled = False  # until _prefilling: cells go before their tokens do
        return super()._rewind(keep, params)

    def _alone(self) -> bool:
        return self._batcher.others(self._seq) == 0

    def decode(
        self,
        tokens: list[int],
        cancel: threading.Event,
        logits_last: bool = True,
        logits_all: bool = False,
    ) -> bool:
        pos0 = self._pos(len(self._cached))
        try:
            rows = self._batcher.run(
                self._seq,
                tokens,
                pos0,
                cancel,
                logits_last=logits_last,
                logits_all=logits_all,
            )
        except EngineError:
            self.drop_from(pos0)
            raise
        if rows is None:
            self.drop_from(pos0)
            return False
        self._rows = rows
        return True

    def hand_in(self, tokens: list[int], cancel: threading.Event) -> HandedInWork | None:
        batcher = self._batcher
        if batcher.others(self._seq) == 0:
            return None  # alone: evaluated directly when accepted
        pos0 = self._pos(len(self._cached))
        work = batcher.hand_in(self._seq, tokens, pos0, True, early=True)
        # What the reply does next (its text, and the client's share of the interpreter)
        # waits for the step to start: the others' hand-ins come first.
        while not work.started.wait(0.05) and not (cancel.is_set() or batcher.closed):
            pass
        return HandedInWork(self, batcher, work)


class HandedInWork:
    """A sequence's token in the batcher's queue while the sequence's reply sends the token's
    text."""

    def __init__(self, seq: BatchedSequence, batcher: Batcher, work: Work) -> None:
        self._seq = seq
        self._batcher = batcher
        self._work = work

    def finish(self, cancel: threading.Event) -> bool:
        seq, batcher, work = self._seq, self._batcher, self._work
        try:
            rows = batcher.result(work, cancel)
        except EngineError:
            seq.drop_from(work.pos0)
            raise
        if rows is None:
            seq.drop_from(work.pos0)
            return False
        if not batcher.collect(work):
            # Out with its client past the grace, the reply let a step overwrite its logits:
            # its token is evaluated again, from inside the loop.
            seq.drop_from(work.pos0)
            return seq.decode(work.tokens, cancel)
        seq.use_rows(rows)
        return True

    def drop(self) -> None:
        self._batcher.withdraw(self._work)
        self._seq.drop_from(self._work.pos0)
