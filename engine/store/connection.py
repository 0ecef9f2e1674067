"""Opening the chat history's file: the check at open, the backup before a migration, the
connection's settings, and the words for what went wrong.

The file is in WAL mode with ``synchronous=NORMAL``: every committed write survives the app or the
engine being killed (only a power cut can drop the last few), which is what lets a reply be saved
as it streams and found again, marked interrupted, after a crash.
"""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

from engine.errors import StoreError
from engine.paths import DATA_DIR_ENV, shown
from engine.store import repair as store_repair
from engine.store import schema as store_schema
from engine.store.backups import Backups, sqlite_damaged, sqlite_full

log = logging.getLogger(__name__)

BUSY_TIMEOUT_S = 10.0


def hint(exc: BaseException) -> str:
    """What a person can do about a SQLite error, in one sentence."""
    text = str(exc).lower()
    if "locked" in text or "busy" in text:
        return "Another program is using it: close other Cove windows and try again."
    if sqlite_full(exc):
        return "The disk is full: free some space and try again."
    if "readonly" in text or "read-only" in text or "unable to open" in text:
        return (
            "Check that its folder exists and can be written to, "
            f"or set {DATA_DIR_ENV} to another folder."
        )
    if sqlite_damaged(exc):
        return (
            "The file is damaged. Cove has not changed or removed it: 'cove history check "
            "--repair' rebuilds it from its backup and what it still holds."
        )
    return "Restart Cove; if this keeps happening, move the file elsewhere to start afresh."


def open_history(
    path: Path, backups: Backups, *, repair: bool
) -> tuple[sqlite3.Connection, bool, store_repair.Repair | None]:
    """The history's connection, whether search uses FTS5, and the repair done on the way (a
    damaged file is repaired first when ``repair``; otherwise it is reported, untouched)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreError(
            f"Cannot create the folder for the chat history, {path.parent}: {exc.strerror}. "
            f"Check its permissions, or set {DATA_DIR_ENV} to a folder you can write to."
        ) from exc
    done: store_repair.Repair | None = None
    problem = store_repair.diagnose(path, backups) if repair else None
    if problem is not None:
        done = _repair(path, backups, problem)
    try:
        conn, fts = _connect(path, backups)
    except StoreError as exc:
        cause = exc.__cause__
        if not repair or done is not None or cause is None or not sqlite_damaged(cause):
            raise
        # Damage the check at open did not see (a page only a migration reads).
        done = _repair(path, backups, store_repair.problem_words(cause))
        conn, fts = _connect(path, backups)
    return conn, fts, done


def _repair(path: Path, backups: Backups, problem: str) -> store_repair.Repair:
    log.warning("the chat history %s is damaged: %s; repairing it", path, problem)
    try:
        return store_repair.repair(path, backups, problem)
    except (OSError, sqlite3.Error) as exc:
        raise StoreError(
            f"The chat history {path} is damaged ({problem}) and could not be rebuilt: {exc}. "
            f"{hint(exc)} The damaged file is kept in {shown(path.parent / 'damaged')}."
        ) from exc


def _connect(path: Path, backups: Backups) -> tuple[sqlite3.Connection, bool]:
    # Autocommit (isolation_level=None): transactions are begun explicitly, so each migration
    # and each write is exactly one transaction. check_same_thread=False: the Store's lock
    # serialises.
    try:
        conn = sqlite3.connect(
            path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False
        )
    except sqlite3.Error as exc:
        raise StoreError(f"Cannot open the chat history {path}: {exc}. {hint(exc)}") from exc
    try:
        conn.row_factory = sqlite3.Row
        # The version is read before anything writes to the file (even the WAL switch): a file
        # from a newer Cove, or one that is not a database, stays byte for byte as it was.
        found = store_schema.schema_version(conn)
        known = store_schema.latest_version()
        if found > known:
            raise StoreError(
                f"The chat history {path} was written by a newer version of Cove (schema "
                f"{found}; this version knows up to {known}). Update Cove to open it; the file "
                "was not changed."
            )
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA foreign_keys = ON")
        if 0 < found < known:
            _migrate_with_backup(conn, path, backups)
        else:
            store_schema.migrate(conn)
        fts = store_schema.sync_search_index(conn)
    except sqlite3.Error as exc:
        conn.close()
        raise StoreError(f"Cannot open the chat history {path}: {exc}. {hint(exc)}") from exc
    except BaseException:
        conn.close()
        raise
    return conn, fts


def _migrate_with_backup(conn: sqlite3.Connection, path: Path, backups: Backups) -> None:
    # Each migration is one transaction, but a bug in one can still write what a later Cove
    # reads wrongly: the history as this Cove found it is kept first. No migration without it.
    try:
        taken = backups.take("before-migration", source=conn)
    except StoreError as exc:
        raise StoreError(
            f"Cove did not upgrade the chat history {path}: the backup it makes first failed "
            f"({exc}). The file was not changed."
        ) from exc
    try:
        store_schema.migrate(conn)
    except sqlite3.Error as exc:
        if sqlite_damaged(exc):
            raise
        raise StoreError(
            f"Cove could not upgrade the chat history {path}: {exc}. The file is as it was "
            f"before, and a backup of it was made just before, {shown(taken.path)}."
        ) from exc
