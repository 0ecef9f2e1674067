"""Watched folders: the collections' folders followed as their files change, caught up with what
changed while Cove was closed, and brought up to date in the background once the computer is idle
(after any indexing the person started, never beside it). The line under the collections says
what is watched and whether it is up to date."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QLabel

from app.common.i18n import tr
from app.common.idle_runner import IdleRunner
from app.common.workers import WorkerPool
from engine.documents import Encoder, FileOutcome, FolderWatcher, IndexDB, Indexer
from engine.tuning.idle import CLOSING, Stop

Batch = tuple[frozenset[Path], frozenset[Path]]  # (changed, gone) paths


class FolderUpdates(QObject):
    folders_changed = Signal(object, object)  # (changed, gone) paths, from the watcher's thread

    def __init__(
        self,
        db: IndexDB,
        pool: WorkerPool,
        idle: IdleRunner,
        encoder: Callable[[], Encoder | None],
        lines: tuple[QLabel, QLabel],
        shown_collection: Callable[[], str | None],
        show_files: Callable[[], None],
        updated: Callable[[str, list[FileOutcome]], None],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.db, self.pool, self.idle, self._encoder = db, pool, idle, encoder
        # The line that says what is watched, and the page's status line for a failure.
        self.watch_line, self.status = lines
        self._shown_collection, self._show_files, self._updated = (
            shown_collection,
            show_files,
            updated,
        )
        self._watcher: FolderWatcher | None = None
        self.updating = 0  # watched-folder updates queued or running
        self.idle.waiting_changed.connect(lambda _n: self._show_watching())
        self.folders_changed.connect(self._folders_changed, Qt.ConnectionType.QueuedConnection)

    def start(self) -> None:
        """Follow the collections' folders: catch up now with what changed while Cove was
        closed, then keep up as files change."""
        if self._watcher is not None:
            return
        self._watcher = FolderWatcher(self.folders_changed.emit)
        self.update_watched()
        for collection in self.db.collections():
            self._queue_update(collection.name, None)

    def stop(self) -> None:
        self.idle.stop_all(CLOSING)
        watcher, self._watcher = self._watcher, None
        if watcher is not None:
            watcher.close()

    def update_watched(self) -> None:
        """Watch every collection's folders (on the documents worker: watching a large tree
        takes a while)."""
        watcher = self._watcher
        if watcher is None:
            return

        def job() -> None:
            folders = {
                Path(source)
                for collection in self.db.collections()
                for source in self.db.sources(collection)
                if Path(source).is_dir()
            }
            watcher.set_folders(folders)

        self.pool.submit(job, lambda _none: self._show_watching())

    def _show_watching(self) -> None:
        count = len(self._watcher.folders) if self._watcher is not None else 0
        folders = (
            tr("Documents", "1 folder")
            if count == 1
            else tr("Documents", "{n} folders").format(n=count)
        )
        if not count:
            self.watch_line.setText("")
        elif self.updating and self.updating == self.idle.waiting:
            self.watch_line.setText(
                tr("Documents", "Watching {folders} · updating when this computer is idle").format(
                    folders=folders
                )
            )
        elif self.updating:
            self.watch_line.setText(
                tr("Documents", "Watching {folders} · updating…").format(folders=folders)
            )
        else:
            self.watch_line.setText(
                tr("Documents", "Watching {folders} · up to date").format(folders=folders)
            )

    def _folders_changed(self, changed: frozenset[Path], gone: frozenset[Path]) -> None:
        for collection in self.db.collections():
            roots = [Path(s) for s in self.db.sources(collection)]
            mine = {p for p in changed | gone if any(r == p or r in p.parents for r in roots)}
            if mine:
                self._queue_update(
                    collection.name, (frozenset(changed & mine), frozenset(gone & mine))
                )

    def _queue_update(self, name: str, batch: Batch | None) -> None:
        """Bring collection ``name`` up to date (a batch of changes, or a catch-up) on the
        documents worker, once the computer is idle (background work: it gives way to other
        programs, and is taken up again at the next quiet spell where one stopped it); after
        any indexing the user started, never beside it."""
        self.updating += 1
        self._show_watching()
        self.idle.submit(lambda stop: self._update(name, batch, stop))

    def _update(self, name: str, batch: Batch | None, stop: Stop) -> None:
        self._show_watching()

        def job() -> list[FileOutcome]:
            collection = self.db.collection(name)
            if collection is None or stop.is_set():
                return []
            encoder = self._encoder() if collection.encoder is not None else None
            indexer = Indexer(self.db, collection, encoder, cancel=stop)
            return indexer.refresh() if batch is None else indexer.update(*batch)

        def done(outcomes: list[FileOutcome]) -> None:
            again = stop.is_set() and stop.why != CLOSING  # another program: waits again
            if not again:
                self.updating -= 1
            self.idle.finished(stop)
            self._show_watching()
            kept = [o for o in outcomes if o.outcome != "cancelled"]
            if kept and self._shown_collection() == name:
                self._show_files()
            if not again:
                self._updated(name, kept)

        def failed(exc: BaseException) -> None:
            self.updating -= 1
            self.idle.finished(stop)
            self._show_watching()
            self.status.setText(
                tr("Documents", "Could not update {name}: {reason}").format(name=name, reason=exc)
            )

        self.pool.submit(job, done, failed)
