"""Watched folders: a collection's folders report their document files created, changed, moved
and deleted (watchdog: inotify, FSEvents, ReadDirectoryChangesW), so the index follows them.

A file is reported once it has been quiet for ``SETTLE_S`` (same size and modification time
across that window): a file still being written, or copied in, is read once, when it is done.
Hidden files, editors' and office suites' temporary files and partial downloads are ignored.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

SETTLE_S = 1.0
_TEMPORARY_SUFFIXES = (".part", ".crdownload", ".tmp", ".swp", ".swx", ".download", "~")

# Called from the watcher's thread with the files changed (created, modified, moved in) and the
# files and folders gone (deleted, moved out), each batch once it has settled.
OnChange = Callable[[frozenset[Path], frozenset[Path]], None]


def is_document(path: Path, roots: Iterable[Path] = ()) -> bool:
    """A file the readers take, and not a hidden or temporary one. A hidden folder counts only
    below the folder the user added (``roots``): documents kept under ``~/.local/share`` or any
    other hidden folder the user chose are theirs to index."""
    from engine.documents.readers import SUPPORTED_SUFFIXES

    name = path.name
    if name.startswith((".", "~$", ".~lock")) or name.endswith(_TEMPORARY_SUFFIXES):
        return False
    parts = path.parts[:-1]
    for root in roots:
        if path.is_relative_to(root):
            parts = path.relative_to(root).parts[:-1]
            break
    if any(part.startswith(".") for part in parts if part not in (".", "..")):
        return False
    return path.suffix.lower() in SUPPORTED_SUFFIXES


class FolderWatcher:
    def __init__(self, on_change: OnChange, *, settle_s: float = SETTLE_S) -> None:
        self._on_change = on_change
        self._settle_s = settle_s
        # Made with the first folder watched: watchdog's observer takes an inotify instance and
        # a thread as soon as it exists (a user has 128 instances), and a window with nothing
        # to watch needs neither.
        self._observer: Any = None
        self._watches: dict[Path, Any] = {}
        self._pending: dict[Path, float] = {}  # path -> when it last changed
        self._gone: dict[Path, float] = {}
        self._seen: dict[Path, tuple[int, int] | None] = {}  # (size, mtime) at the last look
        self._cond = threading.Condition()
        self._stopping = False
        self._thread = threading.Thread(target=self._run, name="folder-watch", daemon=True)
        self._started = False

    # -- what is watched --------------------------------------------------------------------

    @property
    def folders(self) -> set[Path]:
        with self._cond:
            return set(self._watches)

    def watch(self, folder: Path) -> None:
        folder = Path(os.path.abspath(folder))
        with self._cond:
            if folder in self._watches or self._stopping:
                return
            if not folder.is_dir():
                return
            self._start()
            handler = _Handler(self._event)
            self._watches[folder] = self._observer.schedule(handler, str(folder), recursive=True)

    def set_folders(self, folders: set[Path]) -> None:
        """Watch exactly ``folders``."""
        wanted = {Path(os.path.abspath(f)) for f in folders}
        for folder in self.folders - wanted:
            self.unwatch(folder)
        for folder in wanted:
            self.watch(folder)

    def unwatch(self, folder: Path) -> None:
        with self._cond:
            watch = self._watches.pop(Path(os.path.abspath(folder)), None)
        if watch is not None and self._observer is not None:
            # KeyError, ValueError: the folder went away with its watch
            with contextlib.suppress(KeyError, ValueError):
                self._observer.unschedule(watch)

    def close(self) -> None:
        """Stop watching and join the threads; idempotent."""
        with self._cond:
            if self._stopping:
                return
            self._stopping = True
            started = self._started
            self._cond.notify_all()
        if started:
            self._observer.stop()
            self._observer.join(timeout=10)
            self._thread.join(timeout=10)

    def __enter__(self) -> FolderWatcher:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def _start(self) -> None:
        if not self._started:
            from watchdog.observers import Observer

            self._started = True
            self._observer = Observer()
            self._observer.daemon = True
            self._observer.start()
            self._thread.start()

    # -- events -----------------------------------------------------------------------------

    def _event(self, kind: str, path: Path, dest: Path | None) -> None:
        now = time.monotonic()
        with self._cond:
            if kind == "folder_gone":  # its files go with it
                self._gone[path] = now
            elif kind in ("deleted", "moved") and is_document(path, self._watches):
                self._gone[path] = now
                self._pending.pop(path, None)
            if kind in ("created", "modified", "closed") and is_document(path, self._watches):
                self._pending[path] = now
                self._gone.pop(path, None)
            if kind == "moved" and dest is not None and is_document(dest, self._watches):
                self._pending[dest] = now
                self._gone.pop(dest, None)
            self._cond.notify_all()

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._stopping and not self._pending and not self._gone:
                    self._cond.wait()
                if self._stopping:
                    return
                now = time.monotonic()
                times = [*self._pending.values(), *self._gone.values()]
                wait = min(times) + self._settle_s - now
                if wait > 0:
                    self._cond.wait(wait)
                    continue
                due = [p for p, t in self._pending.items() if now - t >= self._settle_s]
                gone = frozenset(p for p, t in self._gone.items() if now - t >= self._settle_s)
                for p in gone:
                    del self._gone[p]
            changed: set[Path] = set()
            for path in due:
                # Still being written (its size or time moved since the last look): wait on.
                state = _state(path)
                with self._cond:
                    if self._seen.get(path) != state and state is not None:
                        self._seen[path] = state
                        self._pending[path] = time.monotonic()
                        continue
                    self._pending.pop(path, None)
                    self._seen.pop(path, None)
                if state is not None:
                    changed.add(path)
            if changed or gone:
                try:
                    self._on_change(frozenset(changed), gone)
                except Exception:  # a listener's failure must not end the watching
                    log.exception("a folder change could not be handled")


def _state(path: Path) -> tuple[int, int] | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return stat.st_size, stat.st_mtime_ns


class _Handler:
    """watchdog's handler interface, mapped to (kind, path, destination)."""

    def __init__(self, sink: Callable[[str, Path, Path | None], None]) -> None:
        self._sink = sink

    def dispatch(self, event: Any) -> None:
        if event.is_directory:
            # A folder moved or deleted takes its files along, unreported one by one; a folder
            # created or moved in has its files reported by watchdog itself.
            if event.event_type in ("deleted", "moved"):
                self._sink("folder_gone", Path(os.fsdecode(event.src_path)), None)
            return
        dest = getattr(event, "dest_path", "") or None
        self._sink(
            str(event.event_type),
            Path(os.fsdecode(event.src_path)),
            Path(os.fsdecode(dest)) if dest else None,
        )
