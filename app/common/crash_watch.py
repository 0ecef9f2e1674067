"""Watching the engine for a crash: a timer asks whether the host still runs, a reply that finds
it dead reports it too, and each crash is reported once, with the host's last log lines. While
the engine measures this computer in the background, the watch asks for its status now and then so
that the status bar follows the measuring to its end."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject, QTimer

from app.common.i18n import tr
from app.common.workers import WorkerPool
from engine.errors import EngineError

if TYPE_CHECKING:
    from engine.client import EngineStatus, LocalEngine
    from engine.remote import RemoteEngine

WATCH_INTERVAL_MS = 1500
# While measuring only waits, the status is asked for every this many watch ticks.
WAITING_REFRESH_TICKS = 6


class Watched(Protocol):
    """What the watch reads of the window's engine."""

    engine: LocalEngine | RemoteEngine | None
    remote: RemoteEngine | None
    status: EngineStatus | None
    restarting: bool
    control_pool: WorkerPool

    def refresh_status(self) -> None: ...


class CrashWatch(QObject):
    def __init__(
        self,
        watched: Watched,
        crashed: Callable[[str, list[str]], None],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._w = watched
        self._crashed = crashed  # (what happened, the host's last log lines)
        self.stopping = False
        self.crash_reported = False  # a crash is being (or was) reported: the watch waits
        self.reported = False  # the banner was told
        self._measuring_ticks = 0
        self._timer = QTimer(self)
        self._timer.setInterval(WATCH_INTERVAL_MS)
        self._timer.timeout.connect(self.check_alive)

    def start(self) -> None:
        """Watch the engine in use from now on, as a fresh one (no crash reported)."""
        self.reset()
        self._timer.start()

    def stop(self) -> None:
        self._timer.stop()

    def reset(self) -> None:
        self.crash_reported = self.reported = False

    def report_crash(self, message: str) -> None:
        """A reply found the host dead (or the watch did). Reported once per crash."""
        if self.reported or self.stopping:
            return
        self.reported = True
        self.crash_reported = True
        engine = self._w.engine

        def tail() -> list[str]:  # reads the log file: not on the UI thread
            lines = engine.log_tail(40) if engine is not None else []
            return [line for line in lines if not line.startswith("---")]

        self._w.control_pool.submit(
            tail,
            lambda lines: self._crashed(message, lines),
            lambda _exc: self._crashed(message, []),
        )

    def check_alive(self) -> None:
        w = self._w
        engine = w.engine
        if engine is None or w.restarting or self.crash_reported:
            return
        if not engine.alive():
            # Asking the dead host anything makes the client describe how it died (its exit
            # code or signal, and its last log lines).
            def ask() -> None:
                engine.client.status()

            def died(exc: BaseException) -> None:
                self.report_crash(
                    str(exc)
                    if isinstance(exc, EngineError) and str(exc)
                    else tr("Engine", "The engine stopped unexpectedly. Restart it to continue.")
                )

            self.crash_reported = True  # until the description arrives
            w.control_pool.submit(ask, lambda _r: self._reset_reported(), died)
            return
        status = w.status
        measuring = status is not None and status.measuring and status.background_measuring
        if status is not None and measuring and w.remote is None:
            # The status bar follows the measuring to its end: closely while a run goes on,
            # now and then while it waits for an idle computer (which can take hours).
            self._measuring_ticks += 1
            running = any(wk.state == "running" for wk in status.background)
            if running or self._measuring_ticks % WAITING_REFRESH_TICKS == 0:
                w.refresh_status()

    def _reset_reported(self) -> None:
        self.crash_reported = False
