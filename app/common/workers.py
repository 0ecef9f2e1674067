"""Running work off the UI thread and bringing results back to it.

Every callback given here runs on the UI thread: results travel through a queued signal of a QObject
that lives there. A callback whose widgets were deleted in the meantime is dropped quietly (the
window closed, or a test tore it down).

Python's cyclic garbage collector runs in whichever thread happens to allocate when a threshold is
crossed. A Qt object in a reference cycle that it frees there (a widget, a runnable) is destroyed
off the UI thread, which crashes Qt. So automatic collection is turned off and the UI thread
collects, generation by generation, on a timer, as often as the thresholds would have asked.
"""

from __future__ import annotations

import gc
import logging
import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QRunnable, Qt, QThreadPool, QTimer, Signal, Slot

log = logging.getLogger(__name__)


class _Invoker(QObject):
    posted = Signal(object)

    def __init__(self) -> None:
        super().__init__()
        self.posted.connect(self._run, Qt.ConnectionType.QueuedConnection)

    @Slot(object)
    def _run(self, fn: Callable[[], None]) -> None:
        try:
            fn()
        except RuntimeError as exc:
            if "already deleted" not in str(exc):
                raise
            log.debug("dropped a result for a deleted widget: %s", exc)


_invoker: _Invoker | None = None


def post_to_ui(fn: Callable[[], None]) -> None:
    """Run ``fn`` on the UI thread, soon (safe to call from any thread)."""
    global _invoker
    if _invoker is None:
        raise RuntimeError("install_invoker() must be called on the UI thread first")
    _invoker.posted.emit(fn)


class _Collector(QObject):
    """Cyclic garbage collection on the UI thread (see the module's docstring)."""

    INTERVAL_MS = 500
    # While the window allocates fast (a long chat being built), collect often: each collection
    # then has less to look at, and no one pause reaches a frame's worth of a person's patience.
    BUSY_INTERVAL_MS = 100
    BUSY_FOR_S = 3.0  # how long after a collection the window counts as allocating fast

    def __init__(self) -> None:
        super().__init__()
        self._thresholds = gc.get_threshold()
        gc.disable()
        self._timer = QTimer(self)
        self._timer.timeout.connect(self.collect)
        self._timer.start(self.INTERVAL_MS)
        self._last = 0.0

    @Slot()
    def collect(self) -> None:
        counts = gc.get_count()
        now = time.monotonic()
        for generation in (2, 1, 0):
            if counts[generation] > self._thresholds[generation]:
                gc.collect(generation)
                self._last = now
                break
        busy = now - self._last < self.BUSY_FOR_S
        wanted = self.BUSY_INTERVAL_MS if busy else self.INTERVAL_MS
        if self._timer.interval() != wanted:
            self._timer.setInterval(wanted)


_collector: _Collector | None = None


def install_invoker() -> None:
    """Create the UI-thread end of ``post_to_ui`` and move garbage collection to the UI thread;
    call once after the QApplication exists."""
    global _invoker, _collector
    if _invoker is None:
        _invoker = _Invoker()
    if _collector is None:
        _collector = _Collector()


class _Job(QRunnable):
    def __init__(
        self,
        fn: Callable[[], Any],
        on_done: Callable[[Any], None] | None,
        on_error: Callable[[BaseException], None] | None,
        finished: Callable[[_Job], None],
    ) -> None:
        super().__init__()
        self.setAutoDelete(False)  # Python keeps the reference; see WorkerPool._running
        self._fn = fn
        self._on_done = on_done
        self._on_error = on_error
        self._finished = finished

    def run(self) -> None:
        try:
            result = self._fn()
        except BaseException as exc:  # a worker boundary: report, never kill the pool's thread
            on_error = self._on_error
            if on_error is None:
                log.exception("background task failed")
            else:
                error = exc
                post_to_ui(lambda: on_error(error))
        else:
            on_done = self._on_done
            if on_done is not None:
                post_to_ui(lambda: on_done(result))
        finally:
            post_to_ui(lambda: self._finished(self))


class WorkerPool:
    """A named QThreadPool. With ``threads=1`` jobs run one at a time, in the order submitted."""

    def __init__(self, name: str, threads: int) -> None:
        self.name = name
        self._pool = QThreadPool()
        self._pool.setMaxThreadCount(threads)
        self._pool.setExpiryTimeout(-1 if threads == 1 else 30_000)
        self._running: set[_Job] = set()

    def submit(
        self,
        fn: Callable[[], Any],
        on_done: Callable[[Any], None] | None = None,
        on_error: Callable[[BaseException], None] | None = None,
    ) -> None:
        job = _Job(fn, on_done, on_error, self._running.discard)
        self._running.add(job)
        self._pool.start(job)

    def start_runnable(self, runnable: QRunnable) -> None:
        self._pool.start(runnable)

    @property
    def busy(self) -> bool:
        return bool(self._running) or self._pool.activeThreadCount() > 0

    def wait(self, timeout_ms: int = -1) -> bool:
        return bool(self._pool.waitForDone(timeout_ms))
