"""Measuring the ways to run the chat model while the engine is idle, never before a reply.

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
    from engine.planner.plan import Plan
    from engine.tuning import Choice
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


class IdleTuner:
    """Measures one model's ways in idle moments (a thread), then hands the choice on."""

    def __init__(
        self,
        gate: IdleGate,
        choose: Callable[..., Choice | None],
        on_choice: Callable[[Choice], None],
        measure_once: Callable[..., tuple[Sample, float]] | None = None,
    ) -> None:
        self._gate = gate
        self._choose = choose
        self._on_choice = on_choice
        self._measure_once = measure_once
        self.status: str | None = None  # what is being measured, for the status bar
        self.found: str | None = None  # what the last measurement found
        self._thread: threading.Thread | None = None

    def start(self, label: str) -> None:
        self.status = f"Measuring the ways to run {label} while the engine is idle"
        self._thread = threading.Thread(
            target=self._run, args=(label,), name="cove-idle-tuning", daemon=True
        )
        self._thread.start()

    def join(self, timeout: float | None = None) -> None:
        if self._thread is not None:
            self._thread.join(timeout)

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
