"""A machine's load as a test scripts it, for idle work's waiting (engine/tuning/idle.py): other
programs' cores' worth per reading, and a clock that moves one second a reading, so that no test
depends on this machine's own load or speed."""

from __future__ import annotations

QUIET = 0.0
BUSY = 2.0  # both cores of a two-core machine


class ScriptedLoad:
    """Other programs' load as the test sets it (``now``), counted per reading."""

    cores = 2

    def __init__(self, now: float = QUIET) -> None:
        self.now = now
        self.reads = 0
        self.adopted: list[int] = []

    def read(self) -> float:
        self.reads += 1
        return self.now

    def adopt(self, pid: int) -> None:
        self.adopted.append(pid)

    def forget(self, pid: int) -> None:
        pass


class ReadingClock:
    """A clock that moves one second each time the load is read."""

    def __init__(self, load: ScriptedLoad) -> None:
        self.load = load

    def __call__(self) -> float:
        return float(self.load.reads)
