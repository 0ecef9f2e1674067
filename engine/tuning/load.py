"""How busy the rest of the machine is: other processes' share of the processor time, read from
the system's counters less this process's own (the runtimes measure inside it).

A measurement taken while others kept the processor busy is kept as provisional: used, but taken
again once the machine is quiet. Busy means other processes used at least half a core, or a
tenth of the machine where that is more: on two cores one busy loop is busy, on sixteen a
browser's background work is not.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import psutil

BUSY_CORES = 0.5
BUSY_SHARE = 0.10
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


def machine_is_quiet() -> bool:
    """Watch the machine for a moment: is it quiet enough to measure on?"""
    meter = LoadMeter().start()
    time.sleep(QUIET_CHECK_S)  # a window to count other processes' use over, not a wait
    return not is_busy(meter.others_share(), meter.cores)
