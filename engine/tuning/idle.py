"""Idle work waits for an idle machine and gives way at once.

Measuring the ways to run a model, or how many replies at once pay, keeps the processor busy for
seconds at a time: on a computer where a person compiles, plays or calls, it must cost them
nothing. So idle work starts only once the rest of the machine has been quiet for
``QUIET_FOR_S`` (other processes' share read from the system's counters every ``WAIT_POLL_S``,
engine/tuning/load.py), runs in a process at the lowest priority the system offers
(engine/tuning/priority.py, engine/tuning/child.py), and is stopped within a second once other
programs want the processor: while it runs, the machine is read every ``RUN_POLL_S``, and a
busy spell over the last ``STOP_READINGS`` readings stops it. Its own process's time is its own,
never another program's.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from statistics import mean
from typing import Final, Protocol

from engine.tuning.load import OthersLoad, is_busy, is_quiet

QUIET_FOR_S: Final = 20.0
WAIT_POLL_S: Final = 1.0
RUN_POLL_S: Final = 0.25
STOP_READINGS: Final = 2  # half a second
# A reading over a longer window than this says too little of what happened in it (a busy
# spell and then quiet averages out as quiet): the quiet is counted again from it.
LONGEST_READING_S: Final = 3 * WAIT_POLL_S

ANOTHER_PROGRAM: Final = "another program needed the processor"
A_REQUEST: Final = "a request arrived"
TURNED_OFF: Final = "background measuring was turned off"
CLOSING: Final = "the engine is stopping"


class Reading(Protocol):
    """Other processes' use of the processor since the last reading (engine/tuning/load.py's
    ``OthersLoad``; tests give a scripted one)."""

    cores: int

    def read(self) -> float: ...

    def adopt(self, pid: int) -> None: ...

    def forget(self, pid: int) -> None: ...


class Stop(threading.Event):
    """Set to stop a piece of idle work, with why; the processes the work runs in are made known
    to it (``adopt``) so that their time counts as the work's own, not other programs'."""

    def __init__(self, reading: Reading | None = None) -> None:
        super().__init__()
        self.why = ""
        self._reading = reading

    def stop(self, why: str) -> None:
        if not self.is_set():
            self.why = why
            self.set()

    def adopt(self, pid: int) -> None:
        if self._reading is not None:
            self._reading.adopt(pid)

    def forget(self, pid: int) -> None:
        if self._reading is not None:
            self._reading.forget(pid)


class QuietWatch:
    """How long the rest of the machine has been quiet, kept up to date by reading it: every
    ``WAIT_POLL_S`` while idle work waits (``sample``), every ``RUN_POLL_S`` while it runs
    (``watch``)."""

    def __init__(
        self,
        reading: Reading | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        run_poll_s: float = RUN_POLL_S,
    ) -> None:
        self.reading: Reading = reading or OthersLoad()
        self.run_poll_s = run_poll_s
        self._clock = clock
        self._lock = threading.Lock()
        self._quiet_since = clock()
        self._last_read: float | None = None
        self._recent: deque[float] = deque(maxlen=STOP_READINGS)
        self.readings = 0  # taken so far (tests count them instead of timing)

    def sample(self) -> float:
        """Read the machine: others' cores' worth since the last reading."""
        with self._lock:
            cores = self.reading.read()
            now = self._clock()
            long_gap = self._last_read is None or now - self._last_read > LONGEST_READING_S
            if long_gap or not is_quiet(cores, self.reading.cores):
                self._quiet_since = now
            self._last_read = now
            self._recent.append(cores)
            self.readings += 1
            return cores

    def quiet_s(self) -> float:
        """How long others have used the processor only as a machine at rest does."""
        with self._lock:
            return self._clock() - self._quiet_since

    def others_busy(self) -> bool:
        """Others kept the processor busy over the last readings."""
        with self._lock:
            recent = list(self._recent)
        if len(recent) < STOP_READINGS:
            return False
        cores = self.reading.cores
        return is_busy(mean(recent) / cores, cores)

    def watch(self, stop: Stop) -> Callable[[], None]:
        """Read the machine every ``run_poll_s`` while ``stop``'s work runs, and stop it once
        other programs keep the processor busy; returns what ends the watch."""
        ended = threading.Event()
        with self._lock:
            self._recent.clear()

        def run() -> None:
            while not ended.wait(self.run_poll_s) and not stop.is_set():
                self.sample()
                if self.others_busy():
                    stop.stop(ANOTHER_PROGRAM)
                    return

        thread = threading.Thread(target=run, name="cove-idle-watch", daemon=True)
        thread.start()

        def end() -> None:
            ended.set()
            if thread is not threading.current_thread():
                thread.join()

        return end
