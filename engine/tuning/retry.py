"""When idle work that did not finish is tried again: after a pause that grows with each try that
failed (stopped by another program, measured while others kept the machine busy, or an error),
and at most a few times a day, so that a machine that stays busy never sees a loop. The tries
are kept in the data folder (engine/tuning/store.py): a restart does not start the count again.

Until a try succeeds, what was there serves: the planner's way, or the measurement already kept.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

FIRST_PAUSE_S = 10 * 60.0
GROWTH = 3.0  # 10 minutes, 30, 90, 4.5 hours, then the longest pause
LONGEST_PAUSE_S = 8 * 3600.0
DAY_S = 24 * 3600.0
TRIES_A_DAY = 4


@dataclass(frozen=True, slots=True)
class Retries:
    """The failed tries of one piece of idle work: their times (seconds since the epoch, the
    last day's kept) and how many failed in a row, with why the last one did."""

    times: tuple[float, ...] = ()
    failures: int = 0
    why: str = ""

    def failed(self, why: str, now: float | None = None) -> Retries:
        at = time.time() if now is None else now
        kept = tuple(t for t in self.times if t > at - DAY_S)
        return Retries((*kept, at), self.failures + 1, why)

    def next_try(self) -> float:
        """When it may be tried again (seconds since the epoch; 0: at once)."""
        if not self.failures or not self.times:
            return 0.0
        pause = min(FIRST_PAUSE_S * GROWTH ** (self.failures - 1), LONGEST_PAUSE_S)
        at = self.times[-1] + pause
        recent = [t for t in self.times if t > self.times[-1] - DAY_S]
        if len(recent) >= TRIES_A_DAY:  # the day's tries are spent: a day after the first of them
            at = max(at, recent[-TRIES_A_DAY] + DAY_S)
        return at

    def to_dict(self) -> dict[str, object]:
        return {"times": [round(t, 1) for t in self.times], "failures": self.failures,
                "why": self.why}  # fmt: skip

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Retries:
        times = tuple(float(t) for t in data["times"])
        failures = int(data["failures"])
        if failures < 0 or any(t < 0 for t in times):
            raise ValueError("tries cannot be negative")
        return cls(times, failures, str(data.get("why", "")))
