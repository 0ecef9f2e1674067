"""The chat history's one SQLite connection, behind a lock, and what keeps the file whole.

``reading`` and ``writing`` are the only ways in: a write is one ``BEGIN IMMEDIATE`` transaction,
and a failed call says what went wrong in the user's terms; a damaged file is repaired there, with
the lock held, so no other call sees it half done. Backing up, checking and restoring the file
live here too, since they hold the same lock.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from engine.errors import HistoryDamaged, HistoryDiskFull, StoreError
from engine.paths import shown
from engine.store import repair as store_repair
from engine.store import schema as store_schema
from engine.store.backups import (
    Backup,
    Backups,
    Counts,
    Reason,
    copy_into,
    quick_check,
    sqlite_damaged,
    sqlite_full,
)
from engine.store.connection import hint, open_history
from engine.store.message_images import MessageImages
from engine.store.repair import Repair, write_mark

CLOSED = "The chat history is closed; open the Store again to use it."


def gone(kind: str, item_id: int) -> StoreError:
    """What a call on a row that is no longer there says."""
    return StoreError(f"{kind} {item_id} no longer exists; it may have been deleted.")


class HistoryFile:
    """The open history file: its connection, its lock, its backups and the images beside it;
    what every part of the ``Store`` reads and writes through."""

    def __init__(
        self,
        path: Path,
        backups: Backups,
        images: MessageImages,
        clock: Callable[[], float],
        *,
        repair: bool,
    ) -> None:
        self.path = path
        self.backups = backups
        self.images = images
        self.clock = clock
        self._repair = repair
        self._lock = threading.RLock()
        # What was repaired at open or since (engine/store/repair.py): the window says so.
        self.repairs: list[Repair] = []
        self.on_repaired: Callable[[Repair], None] | None = None
        self._conn: sqlite3.Connection | None = None
        self._conn, self.fts = self._open()

    def _open(self) -> tuple[sqlite3.Connection, bool]:
        conn, fts, repaired = open_history(self.path, self.backups, repair=self._repair)
        if repaired is not None:
            self.repairs.append(repaired)
        return conn, fts

    def close(self) -> None:
        with self._lock:
            conn, self._conn = self._conn, None
            if conn is None:
                return
            with contextlib.suppress(sqlite3.Error):  # a planner hint only; closing matters more
                conn.execute("PRAGMA optimize")
                write_mark(self.path, Counts.of(conn))
            conn.close()

    @contextmanager
    def reading(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            if self._conn is None:
                raise StoreError(CLOSED)
            try:
                yield self._conn
            except sqlite3.Error as exc:
                raise self._failure(exc, "read") from exc

    @contextmanager
    def writing(self) -> Iterator[sqlite3.Connection]:
        # BEGIN IMMEDIATE takes the write lock up front: a second process (the CLI, another window)
        # then waits on the busy timeout instead of failing mid-transaction with SQLITE_BUSY.
        with self._lock:
            conn = self._conn
            if conn is None:
                raise StoreError(CLOSED)
            try:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    yield conn
                except BaseException:
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                    raise
                conn.execute("COMMIT")
            except sqlite3.Error as exc:
                raise self._failure(exc, "save to") from exc

    def _failure(self, exc: sqlite3.Error, doing: str) -> StoreError:
        """The error for a failed read or write; a damaged file is repaired first (with the
        lock held, so no other call sees it half done)."""
        words = f"Cannot {doing} the chat history {self.path}: {exc}. {hint(exc)}"
        if sqlite_full(exc):
            return HistoryDiskFull(words)
        if not (self._repair and sqlite_damaged(exc)):
            return StoreError(words)
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()
        try:
            repaired = store_repair.repair(self.path, self.backups, store_repair.problem_words(exc))
        except (OSError, sqlite3.Error) as failed:
            return StoreError(f"{words} Repairing it failed too: {failed}.")
        finally:
            self._conn, self.fts = self._open()
        self.repairs.append(repaired)
        if self.on_repaired is not None:
            self.on_repaired(repaired)
        return HistoryDamaged(
            f"The chat history was damaged and Cove rebuilt it; the damaged file is kept in "
            f"{shown(repaired.damaged_copy)}. Try again."
        )

    # Backups, the check, restoring (engine/store/backups.py)

    def backup(self, reason: Reason = "manual") -> Backup:
        """Back the history up now, from a connection of the backup's own: no call waits on it."""
        taken = self.backups.take(reason)
        write_mark(self.path, taken.counts)
        return taken

    def check(self) -> list[str]:
        """SQLite's full integrity check of the file: [] when it is whole."""
        with self.reading() as conn:
            return quick_check(conn, full=True)

    def restore(self, name: str | None = None) -> tuple[Backup, Backup | None]:
        """Put the backup ``name`` (the newest when None) in place of the history; the history as
        it was is backed up first (None when it could not be). Returns both."""
        chosen = self.backups.find(name)
        with self._lock:
            conn = self._conn
            if conn is None:
                raise StoreError(CLOSED)
            try:
                before: Backup | None = self.backups.take("before-restore", source=conn)
            except StoreError:
                before = None  # a damaged history is what a restore is for
            try:
                copy_into(chosen, conn)
                store_schema.migrate(conn)
                self.fts = store_schema.sync_search_index(conn)
                write_mark(self.path, Counts.of(conn))
            except sqlite3.Error as exc:
                raise self._failure(exc, "restore") from exc
        self.backups.restore_images(chosen)
        return chosen, before
