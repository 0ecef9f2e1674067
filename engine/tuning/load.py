"""How busy the rest of the machine is: other processes' share of the processor time, read from
the system's counters less this process's own (the runtimes measure inside it).

A measurement taken while others kept the processor busy is kept as provisional: used, but taken
again once the machine is quiet. Busy means other processes used at least half a core, or a
tenth of the machine where that is more: on two cores one busy loop is busy, on sixteen a
browser's background work is not. Quiet, what idle work waits for (engine/tuning/idle.py), is
stricter: others used less than a fifth of a core, or a twentieth of the machine where that is
more (a desktop at rest, a player paused).
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, field

import psutil

BUSY_CORES = 0.5
BUSY_SHARE = 0.10
QUIET_CORES = 0.2
QUIET_SHARE = 0.05
QUIET_CHECK_S = 0.5  # how long the machine is watched before measuring again
# The system's counters tick every 10 ms: over a shorter window they say nothing.
MIN_WINDOW_S = 0.05


def _busy_seconds() -> float:
    """Processor time spent busy since boot, every core added (steal counts: another virtual
    machine had the core)."""
    t = psutil.cpu_times()
    return sum(t) - t.idle - getattr(t, "iowait", 0.0)


def _own_seconds() -> float:
    t = psutil.Process().cpu_times()
    return t.user + t.system + t.children_user + t.children_system


@dataclass(slots=True)
class LoadMeter:
    """Counts what other processes used between ``start`` and ``stop``."""

    cores: int = field(default_factory=lambda: psutil.cpu_count(logical=True) or 1)
    _t0: float = 0.0
    _busy0: float = 0.0
    _own0: float = 0.0

    def start(self) -> LoadMeter:
        self._t0, self._busy0, self._own0 = time.monotonic(), _busy_seconds(), _own_seconds()
        return self

    def others_cores(self) -> float:
        """Cores' worth of processor time others used since ``start`` (0 at idle)."""
        wall = time.monotonic() - self._t0
        if wall < MIN_WINDOW_S:
            return 0.0
        others = (_busy_seconds() - self._busy0) - (_own_seconds() - self._own0)
        return max(others, 0.0) / wall

    def others_share(self) -> float:
        """The same, as a share of the machine (0 to 1)."""
        return min(self.others_cores() / self.cores, 1.0)


def is_busy(others_share: float, cores: int | None = None) -> bool:
    n = cores or psutil.cpu_count(logical=True) or 1
    return others_share * n >= max(BUSY_CORES, BUSY_SHARE * n)


def is_quiet(others_cores: float, cores: int | None = None) -> bool:
    """Others used so little of the processor (cores' worth) that idle work may start."""
    n = cores or psutil.cpu_count(logical=True) or 1
    return others_cores < max(QUIET_CORES, QUIET_SHARE * n)


class OthersLoad:
    """Other processes' use of the processor from one reading to the next, in cores' worth: the
    system's counters less this process's own and those of the children it runs idle work in
    (``adopt``), which are its own work too. A child's time moves to this process's own once it
    is waited for, so nothing is counted twice or lost when it ends."""

    def __init__(self) -> None:
        self.cores = psutil.cpu_count(logical=True) or 1
        self._children: dict[int, psutil.Process] = {}
        self._last: tuple[float, float, float] | None = None

    def adopt(self, pid: int) -> None:
        # Gone already: its time is this process's own once waited for.
        with contextlib.suppress(psutil.Error):
            self._children[pid] = psutil.Process(pid)

    def forget(self, pid: int) -> None:
        self._children.pop(pid, None)

    def _own(self) -> float:
        own = _own_seconds()
        for child in list(self._children.values()):
            try:
                t = child.cpu_times()
            except psutil.Error:
                continue
            own += t.user + t.system
        return own

    def read(self) -> float:
        """Cores' worth others used since the last reading (0 at the first, or over a window
        too short for the counters to say anything: the window then runs on)."""
        now = (time.monotonic(), _busy_seconds(), self._own())
        last = self._last
        if last is None or now[0] - last[0] < MIN_WINDOW_S:
            if last is None:
                self._last = now
            return 0.0
        self._last = now
        others = (now[1] - last[1]) - (now[2] - last[2])
        return max(others, 0.0) / (now[0] - last[0])


def machine_is_quiet() -> bool:
    """Watch the machine for a moment: is it quiet enough to measure on?"""
    meter = LoadMeter().start()
    time.sleep(QUIET_CHECK_S)  # a window to count other processes' use over, not a wait
    return not is_busy(meter.others_share(), meter.cores)
