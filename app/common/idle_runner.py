"""The window's background work (catching up with watched folders, following their changes) runs
only when the rest of the computer is idle, as the engine's does (engine/tuning/idle.py): it
starts once others have used the processor only as a machine at rest does for ``quiet_for_s``,
one piece at a time, and its ``Stop`` is set within a second once another program wants the
processor (the piece is then queued again, for the next quiet spell). The window's own processes
(its engine, which reads the documents' passages into vectors) are not other programs.

The machine is read once a second only while work waits, and not at all when none does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from PySide6.QtCore import QObject, QTimer, Signal

from engine.tuning.idle import ANOTHER_PROGRAM, QUIET_FOR_S, WAIT_POLL_S, QuietWatch, Stop

# Starts a piece of work with its Stop; the work calls ``IdleRunner.finished(stop)`` when done.
Start = Callable[[Stop], None]


class IdleRunner(QObject):
    waiting_changed = Signal(int)  # pieces of work waiting for a quiet computer

    def __init__(
        self,
        parent: QObject | None = None,
        *,
        watch: QuietWatch | None = None,
        own: Callable[[], Iterable[int]] = tuple,
        quiet_for_s: float = QUIET_FOR_S,
        poll_ms: int = int(WAIT_POLL_S * 1000),
    ) -> None:
        super().__init__(parent)
        self._watch = watch
        self._own = own
        self.quiet_for_s = quiet_for_s
        self._pending: list[Start] = []
        self._running: dict[int, tuple[Stop, Start, Callable[[], None]]] = {}
        self._timer = QTimer(self)
        self._timer.setInterval(poll_ms)
        self._timer.timeout.connect(self._tick)

    @property
    def watch(self) -> QuietWatch:
        if self._watch is None:
            self._watch = QuietWatch()
        return self._watch

    @property
    def waiting(self) -> int:
        return len(self._pending)

    def submit(self, start: Start) -> None:
        """Run ``start`` at the next quiet spell (after what waits already)."""
        self._pending.append(start)
        self.waiting_changed.emit(len(self._pending))
        if not self._timer.isActive():
            self._timer.start()
            self._tick()

    def finished(self, stop: Stop) -> None:
        """A piece of work has ended; stopped by another program, it waits again."""
        entry = self._running.pop(id(stop), None)
        if entry is None:
            return
        _, start, end = entry
        end()
        if stop.is_set() and stop.why == ANOTHER_PROGRAM:
            self._pending.insert(0, start)
            self.waiting_changed.emit(len(self._pending))
        if self._pending and not self._timer.isActive():
            self._timer.start()

    def stop_all(self, why: str) -> None:
        """Stop what runs and forget what waits (the window closes)."""
        self._pending.clear()
        self._timer.stop()
        for stop, _start, _end in list(self._running.values()):
            stop.stop(why)

    def _tick(self) -> None:
        watch = self.watch
        for pid in self._own():
            watch.reading.adopt(pid)
        watch.sample()
        if not self._pending:
            self._timer.stop()
            return
        if self._running or watch.quiet_s() < self.quiet_for_s:
            return
        start = self._pending.pop(0)
        self.waiting_changed.emit(len(self._pending))
        stop = Stop(watch.reading)
        self._running[id(stop)] = (stop, start, watch.watch(stop))
        if not self._pending:
            self._timer.stop()
        start(stop)
