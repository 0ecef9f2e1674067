"""Measuring the ways to run the chat model, and how many replies at once pay for it, while
the engine and the computer are idle, never before a reply.

A model that can run more than one way here (flash attention on or off, GPU or CPU, its GGUF
or its ONNX build) loads at once the planner's way. The ways are then measured run by run, each
run waiting for its turn (engine/host/idle/background.py: the engine idle, the rest of the computer
quiet, no pause after failed tries) and made in a child process at the lowest priority
(engine/tuning/child.py), with the rules of engine/tuning (interleaved rounds, a busy machine's
figures provisional). A request, or another program wanting the processor, stops a run; it is
taken again at a later turn (after a pause, where another program stopped it). Once the ways are
measured, the faster one replaces the loaded one at the next idle moment. A measurement that
comes out provisional is kept and used, and taken again after a pause.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from engine.errors import LoadCancelled
from engine.host.idle.background import IdleGate, IdleWork

if TYPE_CHECKING:
    from engine.backends.llama.model import LlamaModel
    from engine.planner.plan import Plan
    from engine.tuning import Choice
    from engine.tuning.batching import Batching
    from engine.tuning.figures import Sample

__all__ = ["BatchingTuner", "IdleGate", "IdleTuner", "SpeedProber"]

log = logging.getLogger("cove.host")

_T = TypeVar("_T")


class _IdleThread:
    """A measurement that runs in a thread of its own, waiting for its turns (``work``), saying
    what it measures (``status``, for the status bar) and what it found."""

    _thread_name = "cove-idle"

    def __init__(self, work: IdleWork) -> None:
        self.work = work
        self.status: str | None = None  # what is being measured, for the status bar
        self.found: str | None = None  # what the last measurement found
        self._thread: threading.Thread | None = None

    def _start(self, label: str) -> None:
        self.status = self.work.what
        self._thread = threading.Thread(
            target=self._guarded, args=(label,), name=self._thread_name, daemon=True
        )
        self._thread.start()

    def join(self, timeout: float | None = None) -> None:
        if self._thread is not None:
            self._thread.join(timeout)

    def _guarded(self, label: str) -> None:
        try:
            self._run(label)
        finally:
            self.status = None
            self.work.finish()

    def _run(self, label: str) -> None:
        raise NotImplementedError

    def _until_kept(
        self,
        what: str,
        attempt: Callable[[], _T | None],
        provisional: Callable[[_T], bool],
        use: Callable[[_T], None],
    ) -> None:
        """``attempt`` until what it found is kept as final: each result is used; one that is
        provisional, or a failure, is tried again after this work's pause. Ends when the engine
        stops, or the attempt finds there is nothing to measure (None)."""
        retry = False
        while True:
            try:
                if retry:
                    self._after_pause()
                retry = True
                found = attempt()
            except LoadCancelled:
                return
            except Exception as exc:  # measuring is never worth the engine: keep what serves
                log.warning("could not measure %s: %s", what, exc)
                self.work.failed(f"the measurement failed ({exc})")
                continue
            if found is None:
                return
            use(found)
            if not provisional(found):
                self.work.succeeded()
                return
            # Used, and measured again after a pause: others kept the machine busy meanwhile.
            self.work.failed("measured while other programs kept the processor busy")

    def _after_pause(self) -> None:
        """Wait until this work may run again (a failed try's pause over, the machine quiet)."""
        self.work.done(self.work.wait())

    def _turns(self, run: Callable[[threading.Event], _T]) -> _T:
        """``run(stop)`` at this work's next turn, again at a later turn when a request or another
        program stops it; LoadCancelled once the engine stops."""
        while True:
            stop = self.work.wait()
            try:
                return run(stop)
            except LoadCancelled:
                if not stop.is_set():
                    raise
                self.work.interrupted(stop.why)
            finally:
                self.work.done(stop)


class IdleTuner(_IdleThread):
    """Measures one model's ways in idle moments (a thread), then hands the choice on."""

    _thread_name = "cove-idle-tuning"

    def __init__(
        self,
        work: IdleWork,
        choose: Callable[..., Choice | None],
        on_choice: Callable[[Choice], None],
        measure_once: Callable[..., tuple[Sample, float]] | None = None,
    ) -> None:
        super().__init__(work)
        self._choose = choose
        self._on_choice = on_choice
        self._measure_once = measure_once

    def start(self, label: str) -> None:
        self._start(label)

    def once(
        self, path: Path, plan: Plan, progress: Callable[[float], bool] | None = None
    ) -> tuple[Sample, float]:
        """One measured run, taken at this work's next turn; taken again from the beginning at a
        later turn when it is stopped."""
        from engine.tuning.child import measure_once_in_child

        measure = self._measure_once or measure_once_in_child
        return self._turns(lambda stop: measure(path, plan, progress, stop=stop))

    def _run(self, label: str) -> None:
        def use(choice: Choice) -> None:
            self.found = f"{label}: {choice.config.label} ({choice.reason})"
            log.info("measured the ways to run %s: %s", label, choice.reason)
            self._on_choice(choice)

        self._until_kept(
            f"the ways to run {label}",
            lambda: self._choose(once=self.once),
            lambda choice: choice.provisional,
            use,
        )


class BatchingTuner(_IdleThread):
    """Measures how many replies at once pay for the chat model (engine/tuning/batching.py), a
    round at a time in idle moments (a thread), then hands the measurement on. It runs on the
    loaded model's file and way, after the ways to run it are measured (``after``): a round
    that finds another way loaded starts the rounds again."""

    _thread_name = "cove-idle-batching"

    def __init__(
        self,
        work: IdleWork,
        current: Callable[[], tuple[LlamaModel, Path, Plan] | None],
        on_done: Callable[[Batching, str], None],
        after: IdleTuner | None = None,
        measure_round: Callable[..., tuple[dict[int, float], float]] | None = None,
    ) -> None:
        super().__init__(work)
        self._current = current
        self._on_done = on_done
        self._after = after
        self._measure_round = measure_round

    def start(self, label: str) -> None:
        self._start(label)

    def _run(self, label: str) -> None:
        if self._after is not None:
            self._after.join()
        self._until_kept(
            f"how many replies at once pay for {label}",
            self._rounds,
            lambda found: found[0].provisional,
            lambda found: self._on_done(*found),
        )

    def _rounds(self) -> tuple[Batching, str] | None:
        from engine.errors import EngineBusy
        from engine.tuning.batching import ROUNDS, batching_key, batching_of, counts_for
        from engine.tuning.child import measure_round_in_child

        run = self._measure_round or measure_round_in_child
        rounds: list[tuple[dict[int, float], float]] = []
        key: str | None = None
        counts: list[int] = []

        def one(stop: threading.Event) -> tuple[dict[int, float], float] | None:
            """A round on what is loaded at this turn: the rounds start again for another way."""
            nonlocal rounds, key, counts
            now = self._current()
            if now is None:
                return None  # unloaded, or another model loaded
            model, path, plan = now
            here = batching_key(path, plan)
            if here != key:
                rounds, key, counts = [], here, counts_for(plan)
            return run(model, counts, reverse=len(rounds) % 2 == 1, climb=not rounds, stop=stop)

        while len(rounds) < ROUNDS:
            try:
                found = self._turns(one)
            except EngineBusy:
                self.work.background.gate.touch()  # a reply holds the model: wait for quiet
                continue
            if found is None:
                return None
            speeds, share = found
            if not rounds:
                counts = sorted(speeds)
            rounds.append((speeds, share))
        assert key is not None
        return batching_of(rounds), key


class SpeedProber(_IdleThread):
    """Probes this computer's speed (its devices, and the starter run to calibrate llama.cpp:
    engine/speed/child.py) at this work's turn, until a profile taken on a quiet machine is kept
    in the data folder, where the host's hardware report reads it."""

    _thread_name = "cove-idle-speed"

    def __init__(
        self, work: IdleWork, probe: Callable[[threading.Event], dict[str, object]] | None = None
    ) -> None:
        super().__init__(work)
        self._probe = probe

    def start(self) -> None:
        self._start("")

    def _default_probe(self, stop: threading.Event) -> dict[str, object]:
        from engine.speed.child import MODULE
        from engine.tuning.child import run_child

        return run_child({"again": True}, stop, module=MODULE)

    def _run(self, label: str) -> None:
        probe = self._probe or self._default_probe

        def use(found: dict[str, object]) -> None:
            self.found = "this computer's speed"
            log.info("probed this computer's speed")

        self._until_kept(
            "this computer's speed",
            lambda: self._turns(probe),
            lambda found: bool(found.get("provisional")),
            use,
        )
