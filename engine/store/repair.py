"""A damaged chat history noticed, moved aside and rebuilt: never deleted, never a reason for the
window not to open.

``diagnose`` looks at the file before the history opens: a file that is not a database, one that
SQLite's ``quick_check`` fails (a bad sector, a truncated copy, a sync tool's half write), or one
that holds fewer messages than the history last recorded of itself (``history-mark.json``, written
at every backup and every clean close) while a backup holds them: a lost ``-wal`` or an older copy
put in its place.

``repair`` then moves the file, with its ``-wal`` and ``-shm``, into ``damaged/<when>/`` beside
it, untouched, and builds a new history from the newest backup plus every row SQLite can still
read from a scratch copy of the damaged file. A damaged file's rows are newer than its backup's,
so they win where both hold one; an older copy's rows only fill what the backup lacks. Rows are
read a range of rowids at a time, and a range that fails is halved until the bad pages alone are
left out. Every repair is recorded in ``repairs.json`` beside the history.
"""

from __future__ import annotations

import contextlib
import datetime
import json
import logging
import os
import shutil
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.json_file import write_json_atomic
from engine.store import schema as store_schema
from engine.store.backups import Backup, Backups, Counts, quick_check, sqlite_damaged

log = logging.getLogger(__name__)

DAMAGED_FOLDER = "damaged"
MARK_FILE = "history-mark.json"
LOG_FILE = "repairs.json"
LOG_KEPT = 20
WINDOW = 2000  # rowids read per query while salvaging
MAX_FAILED_READS = 20_000  # bounds the halving on a file damaged everywhere
SIDE_FILES = ("-wal", "-shm", "-journal")
# What was wrong, in the words the window shows (and translates, app/shell/history_care.py).
UNREADABLE = "part of the file could not be read"
NOT_A_DATABASE = "the file is no longer a database (something wrote over it)"
# A file that went back in time: what the backup holds wins over what the file holds.
OLDER = "its journal was lost, or an older copy replaced it"


@dataclass(frozen=True, slots=True)
class Repair:
    """What a repair found and did, for the window's notice and ``cove history check``."""

    problem: str
    at: float
    damaged_copy: Path  # the folder the damaged file was moved to
    backup_name: str | None
    backup_taken_at: float | None
    salvaged_rows: int
    conversations: int
    messages: int

    def to_json(self) -> dict[str, Any]:
        return {
            "problem": self.problem,
            "at": self.at,
            "damaged_copy": str(self.damaged_copy),
            "backup": self.backup_name,
            "backup_taken_at": self.backup_taken_at,
            "salvaged_rows": self.salvaged_rows,
            "conversations": self.conversations,
            "messages": self.messages,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Repair:
        taken = data.get("backup_taken_at")
        return cls(
            problem=str(data.get("problem", "")),
            at=float(data.get("at", 0.0)),
            damaged_copy=Path(str(data.get("damaged_copy", ""))),
            backup_name=data.get("backup") if isinstance(data.get("backup"), str) else None,
            backup_taken_at=float(taken) if isinstance(taken, int | float) else None,
            salvaged_rows=int(data.get("salvaged_rows", 0)),
            conversations=int(data.get("conversations", 0)),
            messages=int(data.get("messages", 0)),
        )


# -- what the history last knew of itself ----------------------------------------------------


def write_mark(history: Path, counts: Counts) -> None:
    """Record what the history holds now (after a backup, at a clean close)."""
    with contextlib.suppress(OSError):
        write_json_atomic(
            history.parent / MARK_FILE,
            {
                "conversations": counts.conversations,
                "messages": counts.messages,
                "last_message_id": counts.last_message_id,
                "schema": counts.schema,
                "at": time.time(),
            },
        )


def read_mark(history: Path) -> Counts | None:
    try:
        data = json.loads((history.parent / MARK_FILE).read_text(encoding="utf-8"))
        return Counts(
            int(data["conversations"]),
            int(data["messages"]),
            int(data["last_message_id"]),
            int(data.get("schema", 0)),
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None


def repairs_log(history: Path) -> list[Repair]:
    """The repairs done to this history, newest first."""
    try:
        data = json.loads((history.parent / LOG_FILE).read_text(encoding="utf-8"))
        return [Repair.from_json(item) for item in data if isinstance(item, dict)][::-1]
    except (OSError, ValueError, TypeError):
        return []


def _log(history: Path, repair: Repair) -> None:
    entries = [r.to_json() for r in repairs_log(history)[::-1]][-(LOG_KEPT - 1) :]
    with contextlib.suppress(OSError):
        write_json_atomic(history.parent / LOG_FILE, [*entries, repair.to_json()])


# -- noticing ------------------------------------------------------------------------------------


def problem_words(exc: BaseException) -> str:
    """What SQLite said, in a person's words (the window shows them)."""
    log.warning("the chat history could not be read: %s", exc)
    if "not a database" in str(exc).lower():
        return NOT_A_DATABASE
    return UNREADABLE


def diagnose(history: Path, backups: Backups, *, full: bool = False) -> str | None:
    """What is wrong with the history's file, in words; None when it is whole (or new).
    ``full``: SQLite's whole integrity check rather than its quick check (on demand only)."""
    try:
        if not history.exists() or history.stat().st_size == 0:
            return None
    except OSError:
        return None
    try:
        conn = sqlite3.connect(f"file:{history}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        return problem_words(exc) if sqlite_damaged(exc) else None
    try:
        try:
            problems = quick_check(conn, full=full)
            counts = Counts.of(conn) if not problems else None
        except sqlite3.Error as exc:
            return problem_words(exc) if sqlite_damaged(exc) else None
        if problems:
            log.warning("SQLite's check of %s failed: %s", history, "; ".join(problems[:5]))
            return UNREADABLE
        assert counts is not None
        mark, newest = read_mark(history), backups.newest()
        if (
            mark is not None
            and newest is not None
            and counts.last_message_id < mark.last_message_id
            and counts.messages < mark.messages
            and newest.last_message_id > counts.last_message_id
        ):
            return f"it holds {counts.messages} messages where it held {mark.messages} ({OLDER})"
        return None
    finally:
        conn.close()


# -- repairing -----------------------------------------------------------------------------------


def repair(history: Path, backups: Backups, problem: str) -> Repair:
    """Move the damaged file aside and build the history again where it was (this module's
    notes). The caller holds no connection to ``history``."""
    at = time.time()
    stamp = datetime.datetime.fromtimestamp(at, datetime.UTC).strftime("%Y-%m-%dT%H%M%SZ")
    aside = history.parent / DAMAGED_FOLDER / stamp
    n = 1
    while aside.exists():
        n += 1
        aside = history.parent / DAMAGED_FOLDER / f"{stamp}-{n}"
    aside.mkdir(parents=True)
    moved = aside / history.name
    for suffix in ("", *SIDE_FILES):
        source = Path(f"{history}{suffix}")
        if source.exists():
            os.replace(source, f"{moved}{suffix}")
    newest = backups.newest()
    scratch = history.parent / f".repair-{stamp}"
    rebuilt = Path(f"{history}.rebuilding")
    try:
        scratch.mkdir(exist_ok=True)
        for suffix in ("", "-wal"):
            if Path(f"{moved}{suffix}").exists():
                shutil.copyfile(f"{moved}{suffix}", scratch / f"{history.name}{suffix}")
        _pad_truncated(scratch / history.name)
        for suffix in ("", *SIDE_FILES):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(f"{rebuilt}{suffix}")
        prefer_file = OLDER not in problem
        try:
            salvaged = _rebuild(rebuilt, newest, scratch / history.name, prefer_file=prefer_file)
        except sqlite3.DatabaseError:  # what the damaged file gave broke the copy: backup alone
            for suffix in ("", *SIDE_FILES):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(f"{rebuilt}{suffix}")
            salvaged = _rebuild(rebuilt, newest, None, prefer_file=False)
        os.replace(rebuilt, history)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        for suffix in SIDE_FILES:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(f"{rebuilt}{suffix}")
    if newest is not None:
        with contextlib.suppress(OSError):
            backups.restore_images(newest)
    conn = sqlite3.connect(history)
    try:
        counts = Counts.of(conn)
    finally:
        conn.close()
    write_mark(history, counts)
    done = Repair(
        problem=problem,
        at=at,
        damaged_copy=aside,
        backup_name=newest.name if newest else None,
        backup_taken_at=newest.taken_at if newest else None,
        salvaged_rows=salvaged,
        conversations=counts.conversations,
        messages=counts.messages,
    )
    _log(history, done)
    return done


def _pad_truncated(path: Path) -> None:
    """A truncated copy is padded with zeros to the length its header gives: SQLite refuses the
    whole of a file shorter than it says it is, but reads the pages it still holds once the
    missing ones are there (as empty, damaged pages)."""
    with contextlib.suppress(OSError, ValueError), path.open("r+b") as file:
        header = file.read(100)
        if len(header) < 100 or not header.startswith(b"SQLite format 3\x00"):
            return
        page_size = int.from_bytes(header[16:18], "big")
        page_size = 65536 if page_size == 1 else page_size
        pages = int.from_bytes(header[28:32], "big")
        wanted = page_size * pages
        if 0 < wanted <= 2**40 and path.stat().st_size < wanted:
            file.truncate(wanted)


def _rebuild(
    rebuilt: Path, backup: Backup | None, damaged: Path | None, *, prefer_file: bool
) -> int:
    conn = sqlite3.connect(rebuilt, isolation_level=None)
    try:
        if backup is not None:
            src = sqlite3.connect(f"file:{backup.database}?mode=ro", uri=True)
            try:
                src.backup(conn)
            finally:
                src.close()
            conn.execute("PRAGMA journal_mode = DELETE")
        store_schema.migrate(conn)
        salvaged = _salvage(damaged, conn, prefer_file=prefer_file) if damaged else 0
        conn.execute("BEGIN IMMEDIATE")
        _mend(conn)
        conn.execute("COMMIT")
        store_schema.sync_search_index(conn)
        _rebuild_search(conn)
        problems = quick_check(conn)
        if problems:  # what was copied in is at fault: the backup alone, then
            raise sqlite3.DatabaseError("; ".join(problems))
        return salvaged
    finally:
        conn.close()


def _salvage(damaged: Path, into: sqlite3.Connection, *, prefer_file: bool) -> int:
    """Copy every readable row of ``damaged`` into ``into``; returns how many were copied."""
    try:
        src = sqlite3.connect(damaged, isolation_level=None)
    except sqlite3.Error:
        return 0
    try:
        with contextlib.suppress(sqlite3.Error):
            store_schema.migrate(src)  # rows in today's shape where the file still allows it
        try:
            names = {str(r[0]) for r in src.execute("SELECT name FROM sqlite_master").fetchall()}
        except sqlite3.Error:
            return 0
        copied = 0
        verb = "INSERT OR REPLACE" if prefer_file else "INSERT OR IGNORE"
        into.execute("PRAGMA foreign_keys = OFF")
        into.execute("BEGIN IMMEDIATE")
        try:
            for table in _tables(into):
                if table not in names:
                    continue
                try:
                    have = {str(r[1]) for r in src.execute(f'PRAGMA table_info("{table}")')}
                except sqlite3.Error:
                    continue
                columns = [c for c in _columns(into, table) if c in have]
                if not columns:
                    continue
                listed = ", ".join(f'"{c}"' for c in columns)
                marks = ", ".join("?" for _ in columns)
                insert = f'{verb} INTO "{table}" ({listed}) VALUES ({marks})'
                for row in _readable_rows(src, table, listed):
                    try:
                        into.execute(insert, row)
                        copied += 1
                    except sqlite3.IntegrityError:
                        continue  # a row a damaged page garbled into breaking a rule
            into.execute("COMMIT")
        except BaseException:
            into.execute("ROLLBACK")
            raise
        return copied
    finally:
        src.close()


def _tables(conn: sqlite3.Connection) -> list[str]:
    rows = conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
        "AND sql NOT LIKE 'CREATE VIRTUAL TABLE%'"
    ).fetchall()
    search = (store_schema.MESSAGES_FTS, store_schema.TITLES_FTS)
    return [str(r[0]) for r in rows if not str(r[0]).startswith(search)]


def _columns(conn: sqlite3.Connection, table: str) -> list[str]:
    return [str(r[1]) for r in conn.execute(f'PRAGMA table_info("{table}")')]


def _readable_rows(src: sqlite3.Connection, table: str, listed: str) -> Iterator[tuple[Any, ...]]:
    """Every row SQLite can read, in rowid order, a few hundred at a time (a large history is
    never held in memory whole). A range that fails past rows already read goes on after them;
    one that fails at its start is halved, down to the damaged rows alone."""
    query = f'SELECT rowid, {listed} FROM "{table}" WHERE rowid BETWEEN ? AND ? ORDER BY rowid'
    try:
        low, high = src.execute(f'SELECT min(rowid), max(rowid) FROM "{table}"').fetchone()
    except sqlite3.Error:
        low, high = -(2**63), 2**63 - 1
    if low is None or high is None:
        return
    if (high - low) // WINDOW > 100_000:  # rowids spread thin (or unknown): halve the whole
        ranges = [(low, high)]
    else:
        ranges = [(a, min(a + WINDOW - 1, high)) for a in range(low, high + 1, WINDOW)]
    ranges.reverse()
    failed = 0
    while ranges and failed < MAX_FAILED_READS:
        a, b = ranges.pop()
        last: int | None = None
        try:
            cursor = src.execute(query, (a, b))
            while rows := cursor.fetchmany(256):
                for row in rows:
                    last = int(row[0])
                    yield tuple(row[1:])
        except sqlite3.DatabaseError:
            failed += 1
            if last is not None and last < b:
                ranges.append((last + 1, b))  # on from where the reading stopped
            elif last is None and a < b:
                middle = (a + b) // 2
                ranges.extend([(middle + 1, b), (a, middle)])


def _mend(conn: sqlite3.Connection) -> None:
    """Make the rebuilt rows agree with each other: messages keep a chat, chats point at
    messages they hold, images at rows that exist."""
    conn.execute(
        """
        INSERT INTO conversations (id, title, created_at, updated_at)
        SELECT m.conversation_id, 'Recovered chat', min(m.created_at), max(m.created_at)
        FROM messages AS m LEFT JOIN conversations AS c ON c.id = m.conversation_id
        WHERE c.id IS NULL GROUP BY m.conversation_id"""
    )
    conn.execute(
        """
        UPDATE conversations SET leaf_id = (
            SELECT m.id FROM messages AS m WHERE m.conversation_id = conversations.id
            ORDER BY m.position DESC LIMIT 1)
        WHERE leaf_id IS NULL OR leaf_id NOT IN (
            SELECT id FROM messages WHERE conversation_id = conversations.id)"""
    )
    conn.execute(
        "UPDATE conversations SET folder_id = NULL "
        "WHERE folder_id IS NOT NULL AND folder_id NOT IN (SELECT id FROM folders)"
    )
    conn.execute("DELETE FROM message_images WHERE message_id NOT IN (SELECT id FROM messages)")
    conn.execute("DELETE FROM message_images WHERE sha256 NOT IN (SELECT sha256 FROM images)")


def _rebuild_search(conn: sqlite3.Connection) -> None:
    names = {str(r[0]) for r in conn.execute("SELECT name FROM sqlite_master").fetchall()}
    for table in (store_schema.MESSAGES_FTS, store_schema.TITLES_FTS):
        if table in names:
            conn.execute(f"INSERT INTO {table}({table}) VALUES ('rebuild')")
