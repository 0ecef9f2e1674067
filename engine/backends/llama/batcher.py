"""The steps of a llama.cpp context shared by several sequences: the one thread that puts their
tokens together and evaluates them (continuous batching; engine/backends/llama/parallel.py holds
the sequences).

A step waits until every reply in the loop has either handed in its tokens or stepped out of
it (to send text to its client): the logits of a step are valid only until the next, so no
step starts while a slot may still be reading its own. Beside others, a reply hands in its next
token as soon as it is drawn and sends that token's text while the step runs (taking the token
back when the text ends the reply, on a stop string): the pause between two steps is then only
each reply's draw, not also its text, its client's share of the interpreter and the event
loop's writes (the starter, 8 streams over HTTP on 2 cores: 4.3 ms a step down to 2.3).

A prompt is read in slices of at most ``PROMPT_SLICE`` tokens while other replies are running,
so that admitting a long prompt delays their next token by one slice, not by the whole prompt.

Tokens that want logits at every position (a prompt scored, guesses checked) are a step of their
own. llama.cpp splits a batch of several sequences into micro-batches by sequence, and a row's
logits depend on the micro-batch it was computed in: a prompt scored beside others came out up
to 0.6 nats from the same prompt scored alone (the starter, 26 of 80 prompts in lists of 8).
Alone in its step, each slice is computed as it is when its prompt is the only one, and as
llama.cpp's own ``Llama.eval`` computes it in batches of the same size: the same bits.

A step's outputs are put in the batch's order before any slot is told its rows are ready
(``_decode``): llama.cpp leaves that sorting to the first call that reads logits, which swaps
rows in place with nothing to keep two callers apart, and every slot of a step reads its rows
from its own thread at the same moment.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from engine.backends.llama.failures import decode_error
from engine.errors import EngineError
from engine.native import compute

log = logging.getLogger("cove.engine")

# While other replies are running, a prompt is read this many tokens a step, so that their next
# token waits for one slice, not the whole prompt. Smaller slices read a long prompt far slower
# (each slice streams the weights again): for a 3,900-token prompt of Qwen2.5 0.5B beside three
# running replies on 2 cores, slices of ~50 tokens took 95 s and kept the others' tokens 1.2 s
# apart; 256 took 26 s (llama-server, its prompt whole: 23 s) with gaps of 2.3 s at most
# (llama-server: 13 s).
PROMPT_SLICE = 256
# How long a step waits for replies that stepped out to hand text to their client. Anything that
# runs beside a step takes a core from llama.cpp's threads, which wait for each other at every
# node of the graph (on 2 cores a step of 8 sequences took 65 ms with clients' text handled
# beside it, 36 ms without); a client that keeps its reply out longer is not waited for.
AWAY_GRACE_S = 0.01

_BUSY, _WAITING = "busy", "waiting"


@dataclass(eq=False)
class Work:
    """Tokens one sequence hands in, evaluated in one step or, for a prompt, over several."""

    seq: int
    tokens: list[int]
    pos0: int
    logits_all: bool
    logits_last: bool
    taken: int = 0  # how many tokens earlier steps evaluated
    stepping: bool = False  # part of the step being evaluated now
    early: bool = False  # handed in before its sequence's text went out (``hand_in``)
    stale: bool = False  # evaluated, but a later step overwrote its logits before they were read
    started: threading.Event = field(default_factory=threading.Event)  # a step has taken it
    done: threading.Event = field(default_factory=threading.Event)
    rc: int = 0
    rows: tuple[int, int] = (0, 0)  # the first and last row of this work's logits
    order: int = 0

    @property
    def splittable(self) -> bool:
        return not self.logits_all and len(self.tokens) > 1


class Batcher:
    """The one thread that puts a context's sequences' tokens together and hands each batch to
    ``llama_decode`` (on the compute thread, engine/native/compute.py)."""

    def __init__(self, lib: Any, ctx: Any, capacity: int) -> None:
        self._lib = lib
        self._ctx = ctx
        self.capacity = capacity
        self._batch = lib.llama_batch_init(capacity, 0, 1)
        # Held around a decode, and by a slot around anything else that changes the cache.
        self.lock = threading.Lock()
        self._cond = threading.Condition()
        self._state: dict[int, str] = {}  # the members: sequences with a reply in the loop
        self._out: set[int] = set()  # the members out with their clients
        self._step_over = threading.Event()  # set when the step being evaluated has ended
        self._step_over.set()
        self._grace_until: float | None = None
        self._pending: list[Work] = []
        # Works handed in early whose step has ended and whose logits their reply has not read:
        # a step that starts meanwhile (the reply out with its client past the grace) makes them
        # stale, and the reply evaluates its token again.
        self._unread: dict[int, Work] = {}
        self._order = 0
        self._whole_turn = True  # whether a work with logits at every position goes next
        self._closed = False
        self._thread = threading.Thread(target=self._run, name="cove-batch", daemon=True)
        self._thread.start()

    # -- what a slot calls -----------------------------------------------------------------------

    @property
    def closed(self) -> bool:
        return self._closed

    def others(self, seq: int) -> int:
        """How many other sequences have a reply in the loop."""
        return sum(1 for s in self._state if s != seq)

    def away(self, seq: int) -> None:
        """The reply stepped out of the loop (to hand text to its client)."""
        with self._cond:
            self._out.add(seq)
            self._wake()

    def back(self, seq: int) -> None:
        with self._cond:
            self._out.discard(seq)
            self._wake()

    def leave(self, seq: int) -> None:
        with self._cond:
            self._out.discard(seq)
            self._unread.pop(seq, None)
            self._mark(seq, None)
            self._pending = [w for w in self._pending if w.seq != seq]

    def _mark(self, seq: int, state: str | None) -> None:
        """Set a member's state (None: it leaves). Called with the condition held."""
        was = self._state.get(seq)
        if was is None and state != _WAITING:
            return  # not a member (it has not handed anything in yet)
        if state is None:
            self._state.pop(seq, None)
        else:
            self._state[seq] = state
        self._wake()

    def _counts(self) -> tuple[int, int]:
        """The members a step waits for (busy: reading their logits or between hand-ins, in
        the loop) and those it gives a grace (busy, out with their client); a member whose
        tokens are in holds up nothing, wherever it is. The condition held."""
        busy = [s for s, state in self._state.items() if state == _BUSY]
        away = sum(1 for s in busy if s in self._out)
        return len(busy) - away, away

    def _wake(self) -> None:
        """Wake the step thread when a change may let it go on. The condition held."""
        if self._pending and self._counts()[0] == 0:
            self._cond.notify()

    def run(
        self,
        seq: int,
        tokens: list[int],
        pos0: int,
        cancel: threading.Event,
        *,
        logits_last: bool,
        logits_all: bool,
    ) -> tuple[int, int] | None:
        """Evaluate ``tokens`` of sequence ``seq`` at ``pos0``... in the next steps; returns the
        rows of their logits, or None when cancelled first (some of a prompt may then be in
        the cache). Raises EngineError when the step fails."""
        if logits_all and len(tokens) > self.capacity:
            raise EngineError("Too many tokens for one batch.")
        with self._cond:
            if self._closed:
                raise EngineError("The model was unloaded.")
            alone = all(s == seq for s in self._state) and not self._pending
            direct = alone and len(tokens) <= self.capacity
            if direct:
                # The only reply in the loop: its tokens are the whole step, evaluated from its
                # own thread (one hand-over to the compute thread, not three). It stays a busy
                # member, so no step starts while it reads its logits.
                self._state[seq] = _BUSY
                self._wake()
        if direct:
            return self._step_alone(seq, tokens, pos0, logits_all, logits_last)
        return self.result(self.hand_in(seq, tokens, pos0, logits_last, logits_all), cancel)

    def hand_in(
        self,
        seq: int,
        tokens: list[int],
        pos0: int,
        logits_last: bool,
        logits_all: bool = False,
        early: bool = False,
    ) -> Work:
        """Queue ``tokens`` of sequence ``seq`` for the next steps and return at once; the
        sequence counts as handed in until ``result`` (or ``withdraw``). ``early``: the reply
        goes out to its client before it waits for the result (see ``collect``)."""
        with self._cond:
            if self._closed:
                raise EngineError("The model was unloaded.")
            self._order += 1
            work = Work(seq, tokens, pos0, logits_all, logits_last, order=self._order)
            work.early = early
            self._pending.append(work)
            self._mark(seq, _WAITING)
        return work

    def result(self, work: Work, cancel: threading.Event) -> tuple[int, int] | None:
        """Wait for ``work``'s steps: the rows of its logits, or None when cancelled first (the
        work is then withdrawn; some of a prompt may be in the cache). Raises EngineError when
        the step fails."""
        while not work.done.wait(0.05):
            if cancel.is_set() or self._closed:
                self.withdraw(work)
                return None
        if work.rc != 0:
            raise decode_error(work.rc)
        return work.rows

    def collect(self, work: Work) -> bool:
        """An early work's reply is back to read its logits (no step starts before it hands in
        again): False when a step overwrote them while it was out."""
        with self._cond:
            self._unread.pop(work.seq, None)
            return not work.stale

    def withdraw(self, work: Work) -> None:
        """Take back ``work`` handed in but no longer wanted: out of the queue, after the step
        evaluating part of it now has ended (the caller then drops its cells: a cell that step
        writes after they were dropped would stand where the sequence goes on)."""
        while True:
            with self._cond:
                if not work.stepping or self._closed:
                    if self._unread.get(work.seq) is work:
                        del self._unread[work.seq]
                    if work in self._pending:
                        self._pending.remove(work)
                    if not work.done.is_set():
                        self._mark(work.seq, _BUSY)
                    return
                step_over = self._step_over
            step_over.wait()

    def _step_alone(
        self, seq: int, tokens: list[int], pos0: int, logits_all: bool, logits_last: bool
    ) -> tuple[int, int]:
        n = len(tokens)
        with self.lock:
            batch = self._batch
            if batch is None:
                raise EngineError("The model was unloaded.")
            batch.n_tokens = _fill_tokens(batch, 0, seq, tokens, pos0, logits_all, logits_last)
            rc = int(compute.run(_decode, self._lib, self._ctx, batch))
        if rc != 0:
            raise decode_error(rc)
        return (0, n - 1)

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        self._thread.join(timeout=30)
        with self.lock:
            if self._batch is not None:
                self._lib.llama_batch_free(self._batch)
                self._batch = None

    # -- the steps -------------------------------------------------------------------------------

    def _wait_for_step(self) -> bool:
        """Wait (the condition held) until a step can start: something handed in, no member
        between a step and its hand-in, and none out with its client, or the grace for those
        past. False once closed."""
        while not self._closed:
            busy, away = self._counts()
            if not self._pending or busy:
                self._grace_until = None
                self._cond.wait()
                continue
            if not away:
                break
            now = time.monotonic()
            if self._grace_until is None:
                self._grace_until = now + AWAY_GRACE_S
            if now >= self._grace_until:
                break
            self._cond.wait(self._grace_until - now)
        self._grace_until = None
        return not self._closed

    def _take(self) -> list[tuple[Work, int, int]]:
        """This step's share of each pending work: (work, start, end). A work with logits at
        every position alone (the oldest; with other works waiting, every other step); else
        single tokens first, then prompts in arrival order, sliced while replies are running."""
        whole = [w for w in self._pending if w.logits_all]
        shared = [w for w in self._pending if not w.logits_all]
        if whole and (self._whole_turn or not shared):
            # Turn about: a reply beside prompts being scored gets a token every other step.
            self._whole_turn = False
            work = min(whole, key=lambda w: w.order)
            return [(work, 0, len(work.tokens))]
        self._whole_turn = True
        room = self.capacity
        decoding = [w for w in shared if not w.splittable]
        prompts = sorted((w for w in shared if w.splittable), key=lambda w: w.order)
        out: list[tuple[Work, int, int]] = []
        for w in sorted(decoding, key=lambda w: w.order):
            if len(w.tokens) <= room:
                out.append((w, 0, len(w.tokens)))
                room -= len(w.tokens)
        # Replies in the loop beside the prompts being read (some may be out with their client
        # for a moment): the prompts are sliced for them.
        running = len(self._state) > len(prompts) or len(prompts) > 1
        for w in prompts:
            budget = min(room, PROMPT_SLICE) if running else room
            if budget <= 0:
                break
            end = min(len(w.tokens), w.taken + budget)
            out.append((w, w.taken, end))
            room -= end - w.taken
            running = True
        # In sequence order: llama.cpp splits a batch for caches kept per sequence wherever the
        # sequence ids stop running in order (a batch of 8 out of order took 9 ms a sequence on
        # 2 cores, in order 4.6 ms).
        return sorted(out, key=lambda share: share[0].seq)

    def _run(self) -> None:
        try:
            self._steps()
        except BaseException:  # no step will come: every waiting reply ends as cancelled
            log.exception("The batch thread of %s failed.", self._ctx)
            with self._cond:
                self._closed = True
                self._step_over.set()

    def _steps(self) -> None:
        lib = self._lib
        while True:
            with self._cond:
                if not self._wait_for_step():
                    return
                share = self._take()
                for work in self._unread.values():
                    work.stale = True
                self._unread.clear()
                for work, _start, _end in share:
                    work.stepping = True
                    work.started.set()
                self._step_over = threading.Event()
            batch = self._batch
            n = 0
            for work, start, end in share:
                n = _fill(batch, n, work, start, end)
            batch.n_tokens = n
            with self.lock:
                rc = int(compute.run(_decode, lib, self._ctx, batch)) if n else 0
            with self._cond:
                row = 0
                for work, start, end in share:
                    count = end - start
                    if rc != 0 or end == len(work.tokens):
                        work.rc = rc
                        work.rows = (row, row + count - 1)
                        if work in self._pending:
                            self._pending.remove(work)
                        if self._state.get(work.seq) == _WAITING:
                            self._mark(work.seq, _BUSY)
                        if work.early and rc == 0:
                            self._unread[work.seq] = work
                        work.done.set()
                    else:
                        work.taken = end
                    work.stepping = False
                    row += count
                self._step_over.set()


def _decode(lib: Any, ctx: Any, batch: Any) -> int:
    """``llama_decode``, then the outputs sorted into the batch's order, on the compute thread.
    llama.cpp sorts them (when its micro-batches put them in another order: a prompt slice
    beside other sequences' tokens, prompts of different lengths) in the first call that reads
    logits, swapping rows in place; two slots doing it at once left rows swapped back or half
    swapped (a scored prompt off by up to 22 nats, a reply's token drawn from another
    sequence's row). ``llama_get_logits`` sorts them here, and slots only read."""
    rc = int(lib.llama_decode(ctx, batch))
    if rc == 0:
        lib.llama_get_logits(ctx)
    return rc


def _fill(batch: Any, n: int, work: Work, start: int, end: int) -> int:
    """Put ``work``'s tokens ``start:end`` into ``batch`` from row ``n`` on; the row after."""
    last_part = end == len(work.tokens)
    return _fill_tokens(
        batch,
        n,
        work.seq,
        work.tokens[start:end],
        work.pos0 + start,
        work.logits_all,
        work.logits_last and last_part,
    )


def _fill_tokens(
    batch: Any,
    n: int,
    seq: int,
    tokens: list[int],
    pos0: int,
    logits_all: bool,
    logits_last: bool,
) -> int:
    """Put ``tokens`` of sequence ``seq``, from position ``pos0`` on, into ``batch`` from row
    ``n`` on, with logits for every one (``logits_all``) or the last (``logits_last``); the row
    after."""
    last = len(tokens) - 1
    for i, token in enumerate(tokens):
        batch.token[n] = token
        batch.pos[n] = pos0 + i
        batch.n_seq_id[n] = 1
        batch.seq_id[n][0] = seq
        batch.logits[n] = 1 if logits_all or (logits_last and i == last) else 0
        n += 1
    return n
