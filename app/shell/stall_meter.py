"""How long the UI thread went without running its event loop: a heartbeat timer that notes the
largest gap between its ticks beyond the interval."""

from __future__ import annotations

import time

from PySide6.QtCore import QObject, Qt, QTimer

HEARTBEAT_MS = 5


class StallMeter(QObject):
    def __init__(self, parent: QObject | None = None, interval_ms: int = HEARTBEAT_MS) -> None:
        super().__init__(parent)
        self._interval_s = interval_ms / 1000
        self._timer = QTimer(self)
        self._timer.setTimerType(Qt.TimerType.PreciseTimer)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self._tick)
        self._last = 0.0
        self.max_stall_s = 0.0
        self.ticks = 0

    def start(self) -> None:
        self.max_stall_s = 0.0
        self.ticks = 0
        self._last = time.perf_counter()
        self._timer.start()

    def stop(self) -> None:
        self._tick()
        self._timer.stop()

    def reset(self) -> None:
        self.max_stall_s = 0.0
        self._last = time.perf_counter()

    def _tick(self) -> None:
        now = time.perf_counter()
        gap = now - self._last - self._interval_s
        self.max_stall_s = max(self.max_stall_s, gap)
        self._last = now
        self.ticks += 1

    @property
    def max_stall_ms(self) -> float:
        return round(self.max_stall_s * 1000, 1)
