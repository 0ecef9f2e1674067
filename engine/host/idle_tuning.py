"""Measuring the ways to run the chat model, and how many replies at once pay for it, while
the engine is idle, never before a reply.

A model that can run more than one way here (flash attention on or off, GPU or CPU, its GGUF
or its ONNX build) loads at once the planner's way. The ways are then measured in the idle
moments between requests, with the rules of engine/tuning (interleaved rounds, a busy machine's
figures provisional): each run waits until no request has been seen for ``SETTLE_S``, and a
request arriving mid-run stops it (that run is taken again at the next idle moment). Once the
ways are measured, the faster one replaces the loaded one at the next idle moment.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Final

from engine.errors import LoadCancelled

if TYPE_CHECKING:
    from engine.backends.llama_cpp import LlamaCppModel
    from engine.planner.plan import Plan
    from engine.tuning import Choice
    from engine.tuning.batching import Batching
    from engine.tuning.figures import Sample

log = logging.getLogger("cove.host")

# A request's end is often followed by the same client's next one (an agent's next turn, a
# chat's follow-up): a measurement waits this long after the last request before it starts.
SETTLE_S: Final = 3.0


class IdleGate:
    """Counts the requests in the engine (running or waiting) and lets idle work wait for a
    quiet moment and stop when a request arrives."""

    def __init__(self, settle_s: float = SETTLE_S) -> None:
        self.settle_s = settle_s
        self._cond = threading.Condition()
        self._active = 0
        self._last = time.monotonic()
        self._watchers: list[threading.Event] = []
        self._closed = False

    def enter(self) -> None:
        with self._cond:
            self._active += 1
            for watcher in self._watchers:
                watcher.set()
            self._cond.notify_all()

    def leave(self) -> None:
        with self._cond:
            self._active -= 1
            self._last = time.monotonic()
            self._cond.notify_all()

    def touch(self) -> None:
        """Count the quiet from now (a model just loaded: its first request is likely near)."""
        with self._cond:
            self._last = time.monotonic()

    @property
    def idle(self) -> bool:
        return self._active == 0

    def close(self) -> None:
        with self._cond:
            self._closed = True
            for watcher in self._watchers:
                watcher.set()
            self._cond.notify_all()

    def wait_idle(self) -> threading.Event:
        """Block until no request has been seen for ``settle_s``; returns an event that the
        next request sets. Raises LoadCancelled once the engine is closing."""
        with self._cond:
            while True:
                if self._closed:
                    raise LoadCancelled("The engine is stopping.")
                quiet = time.monotonic() - self._last
                if self._active == 0 and quiet >= self.settle_s:
                    watcher = threading.Event()
                    self._watchers.append(watcher)
                    return watcher
                self._cond.wait(None if self._active else self.settle_s - quiet)

    def done(self, watcher: threading.Event) -> None:
        with self._cond:
            if watcher in self._watchers:
                self._watchers.remove(watcher)


class _IdleThread:
    """A measurement that runs in a thread of its own, saying what it measures (``status``, for
    the status bar) and what it found."""

    _thread_name = "cove-idle"

    def __init__(self) -> None:
        self.status: str | None = None  # what is being measured, for the status bar
        self.found: str | None = None  # what the last measurement found
        self._thread: threading.Thread | None = None

    def _start(self, label: str, status: str) -> None:
        self.status = status
        self._thread = threading.Thread(
            target=self._run, args=(label,), name=self._thread_name, daemon=True
        )
        self._thread.start()

    def join(self, timeout: float | None = None) -> None:
        if self._thread is not None:
            self._thread.join(timeout)

    def _run(self, label: str) -> None:
        raise NotImplementedError


class IdleTuner(_IdleThread):
    """Measures one model's ways in idle moments (a thread), then hands the choice on."""

    _thread_name = "cove-idle-tuning"

    def __init__(
        self,
        gate: IdleGate,
        choose: Callable[..., Choice | None],
        on_choice: Callable[[Choice], None],
        measure_once: Callable[..., tuple[Sample, float]] | None = None,
    ) -> None:
        super().__init__()
        self._gate = gate
        self._choose = choose
        self._on_choice = on_choice
        self._measure_once = measure_once

    def start(self, label: str) -> None:
        self._start(label, f"Measuring the ways to run {label} while the engine is idle")

    def once(
        self, path: Path, plan: Plan, progress: Callable[[float], bool] | None = None
    ) -> tuple[Sample, float]:
        """One measured run, taken in an idle moment; started again from the beginning at the
        next idle moment when a request interrupts it."""
        from engine.tuning.measure import measure_once

        run = self._measure_once or measure_once
        while True:
            stop = self._gate.wait_idle()
            try:
                return run(path, plan, progress, stop=stop)
            except LoadCancelled:
                if not stop.is_set():
                    raise
                log.info("a request arrived: this measuring run is taken again when idle")
            finally:
                self._gate.done(stop)

    def _run(self, label: str) -> None:
        try:
            choice = self._choose(once=self.once)
        except LoadCancelled:
            self.status = None
            return
        except Exception as exc:  # measuring is never worth the engine: keep the way loaded
            log.warning("could not measure the ways to run %s: %s", label, exc)
            self.status = None
            return
        self.status = None
        if choice is None:
            return
        self.found = f"{label}: {choice.config.label} ({choice.reason})"
        log.info("measured the ways to run %s: %s", label, choice.reason)
        self._on_choice(choice)


class BatchingTuner(_IdleThread):
    """Measures how many replies at once pay for the chat model (engine/tuning/batching.py), a
    round at a time in idle moments (a thread), then hands the measurement on. It runs on the
    loaded model's weights, after the ways to run it are measured (``after``): a round that
    finds another way loaded starts the rounds again."""

    _thread_name = "cove-idle-batching"

    def __init__(
        self,
        gate: IdleGate,
        current: Callable[[], tuple[LlamaCppModel, Path, Plan] | None],
        on_done: Callable[[Batching, str], None],
        after: IdleTuner | None = None,
        measure_round: Callable[..., tuple[dict[int, float], float]] | None = None,
    ) -> None:
        super().__init__()
        self._gate = gate
        self._current = current
        self._on_done = on_done
        self._after = after
        self._measure_round = measure_round

    def start(self, label: str) -> None:
        status = f"Measuring how many replies at once pay for {label} while the engine is idle"
        self._start(label, status)

    def _run(self, label: str) -> None:
        try:
            found = self._rounds()
        except LoadCancelled:
            found = None
        except Exception as exc:  # measuring is never worth the engine: keep what is loaded
            log.warning("could not measure how many replies at once pay for %s: %s", label, exc)
            found = None
        self.status = None
        if found is not None:
            self._on_done(*found)

    def _rounds(self) -> tuple[Batching, str] | None:
        from engine.errors import EngineBusy
        from engine.tuning.batching import (
            ROUNDS,
            batching_key,
            batching_of,
            counts_for,
            measure_round,
        )

        if self._after is not None:
            self._after.join()
        run = self._measure_round or measure_round
        rounds: list[tuple[dict[int, float], float]] = []
        key: str | None = None
        counts: list[int] = []
        while len(rounds) < ROUNDS:
            stop = self._gate.wait_idle()
            try:
                now = self._current()
                if now is None:
                    return None  # unloaded, or another model loaded
                model, path, plan = now
                here = batching_key(path, plan)
                if here != key:
                    rounds, key, counts = [], here, counts_for(plan)
                speeds, share = run(
                    model, counts, reverse=len(rounds) % 2 == 1, climb=not rounds, stop=stop
                )
                if not rounds:
                    counts = sorted(speeds)
                rounds.append((speeds, share))
            except LoadCancelled:
                if not stop.is_set():
                    return None  # the model was closed
                log.info("a request arrived: this measuring round is taken again when idle")
            except EngineBusy:
                self._gate.touch()  # a reply holds the model: wait for the next quiet moment
            finally:
                self._gate.done(stop)
        assert key is not None
        return batching_of(rounds), key
