"""Replies a full disk refused (engine/store/pending.py): tried again every few seconds until
they are saved, and the person told when they are."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer, Signal

from app.common.i18n import tr
from app.common.workers import WorkerPool
from engine.store import PendingSaves

if TYPE_CHECKING:
    from engine.store import Store

RETRY_MS = 5_000


class UnsavedReplies(QObject):
    saved = Signal(str)  # what to tell the person once the waiting replies are saved
    saved_ids = Signal(list)  # the replies saved now, whose "not saved yet" goes

    def __init__(
        self, io: WorkerPool, store: Callable[[], Store | None], parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self.pending = PendingSaves()
        self._io = io
        self._store = store
        self._timer = QTimer(self)
        self._timer.setInterval(RETRY_MS)
        self._timer.timeout.connect(self.retry)

    def watch(self) -> None:
        """After a reply ends: try again on a timer while any reply waits."""
        if len(self.pending) and not self._timer.isActive():
            self._timer.start()

    def retry(self) -> None:
        store = self._store()
        if store is None or not len(self.pending):
            self._timer.stop()
            return
        self._io.submit(lambda: self.pending.save(store), self._tried, lambda _exc: None)

    def _tried(self, saved: list[int]) -> None:
        if saved:
            self.saved_ids.emit(saved)
        if len(self.pending):
            return
        self._timer.stop()
        if saved:
            self.saved.emit(
                tr("Chat", "There is room on the disk again: the reply that was waiting is saved.")
            )

    def save_now(self) -> None:
        """At exit: one last try, on the calling thread."""
        store = self._store()
        if store is not None and len(self.pending):
            with contextlib.suppress(Exception):
                self.pending.save(store)
