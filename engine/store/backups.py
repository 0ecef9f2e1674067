"""Backups of the chat history, made without being asked.

A backup is a folder in ``backups/`` beside the history: ``cove.sqlite3`` written by SQLite's
online backup from a connection of its own (never a file copy of a live database, which can catch
a page half-written, nor the window's connection, so a backup never waits on a reply being saved
and a reply never waits on a backup: in WAL mode a reader does not block the writer), and
``backup.json``, what it holds. A backup is written into a hidden folder and renamed into place
once it is whole and SQLite's ``quick_check`` passes on the copy, so a crash or a full disk never
leaves a half backup that looks whole, and a damaged history never replaces a good backup.

Images are files named by their SHA-256 (image_files.py) and never change, so every backup shares
one pool of copies (``backups/images/``): a year of daily backups holds each image once. A copy,
not a hard link, since a link shares the very bytes a failing disk might damage.

Kept (``prune``): the newest backup of each of the last 7 days that have one, the newest of each of
the 4 weeks before, and the 3 newest whatever they are; then the oldest are dropped while all of
them together pass ``max_bytes`` (the newest is always kept).
"""

from __future__ import annotations

import contextlib
import datetime
import json
import os
import shutil
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, get_args

from engine.errors import HistoryDamaged, StoreError
from engine.json_file import written_whole

FOLDER = "backups"
POOL = "images"
MANIFEST = "backup.json"
DB_NAME = "cove.sqlite3"
PART_PREFIX = ".part-"
DAYS_KEPT = 7
WEEKS_KEPT = 4
NEWEST_KEPT = 3
DEFAULT_MAX_BYTES = 2 * 2**30
DUE_AFTER_S = 24 * 3600.0
BUSY_TIMEOUT_S = 30.0

Reason = Literal[
    "daily", "manual", "before-migration", "before-restore", "before-repair", "before-import"
]
REASONS: tuple[str, ...] = get_args(Reason)


@dataclass(frozen=True, slots=True)
class Backup:
    """One backup: its folder, when it was taken and why, and what it holds."""

    name: str
    path: Path
    taken_at: float
    reason: str
    schema: int
    conversations: int
    messages: int
    last_message_id: int
    images: tuple[str, ...]  # paths in the pool, e.g. "3f/3fa9….png"
    bytes: int

    @property
    def database(self) -> Path:
        return self.path / DB_NAME

    @property
    def counts(self) -> Counts:
        return Counts(self.conversations, self.messages, self.last_message_id, self.schema)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "path": str(self.path),
            "taken_at": self.taken_at,
            "taken": _iso(self.taken_at),
            "reason": self.reason,
            "schema": self.schema,
            "conversations": self.conversations,
            "messages": self.messages,
            "images": len(self.images),
            "bytes": self.bytes,
        }


@dataclass(frozen=True, slots=True)
class Counts:
    """What a history holds, for a backup's manifest and for noticing rows lost since."""

    conversations: int
    messages: int
    last_message_id: int
    schema: int

    @classmethod
    def of(cls, conn: sqlite3.Connection) -> Counts:
        schema = int(conn.execute("PRAGMA user_version").fetchone()[0])
        if schema == 0:
            return cls(0, 0, 0, 0)
        conversations = int(conn.execute("SELECT count(*) FROM conversations").fetchone()[0])
        count, last = conn.execute("SELECT count(*), coalesce(max(id), 0) FROM messages").fetchone()
        return cls(conversations, int(count), int(last), schema)


def _iso(at: float) -> str:
    return datetime.datetime.fromtimestamp(at, datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def quick_check(conn: sqlite3.Connection, *, full: bool = False) -> list[str]:
    """SQLite's quick_check (``full``: its integrity_check, which also compares every index with
    its table): [] when the file is whole, else what it found (at most 20 lines)."""
    pragma = "integrity_check" if full else "quick_check"
    rows = [str(row[0]) for row in conn.execute(f"PRAGMA {pragma}(20)").fetchall()]
    return [] if rows == ["ok"] else rows


def _image_paths(conn: sqlite3.Connection, schema: int) -> tuple[str, ...]:
    from engine.store.types import image_extension

    if schema < 3:
        return ()
    rows = conn.execute(
        "SELECT DISTINCT i.sha256, i.mime FROM images AS i "
        "JOIN message_images AS m ON m.sha256 = i.sha256"
    ).fetchall()
    return tuple(f"{sha[:2]}/{sha}.{image_extension(mime)}" for sha, mime in rows)


def _copy_whole(source: Path, dest: Path) -> None:
    with written_whole(dest) as out, source.open("rb") as src:
        shutil.copyfileobj(src, out, 1 << 20)


def _folder_bytes(folder: Path) -> int:
    total = 0
    for path in folder.rglob("*"):
        with contextlib.suppress(OSError):
            if path.is_file():
                total += path.stat().st_size
    return total


def _fsync_folder(folder: Path) -> None:
    # Where the platform allows it: the rename that publishes a backup survives a power cut.
    with contextlib.suppress(OSError, AttributeError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


class Backups:
    """The backups of one history (``history`` is its SQLite file; images beside it)."""

    def __init__(
        self,
        history: Path,
        *,
        folder: Path | None = None,
        images_folder: Path | None = None,
        clock: Callable[[], float] = time.time,
        max_bytes: int = DEFAULT_MAX_BYTES,
    ) -> None:
        self.history = history
        self.folder = folder or history.parent / FOLDER
        self.images_folder = images_folder or history.parent / "images"
        self._clock = clock
        self.max_bytes = max_bytes

    # -- reading ---------------------------------------------------------------------------------

    def taken(self) -> list[Backup]:
        """The whole backups, newest first; a folder without a readable manifest is not one."""
        found: list[Backup] = []
        try:
            entries = list(self.folder.iterdir())
        except OSError:
            return []
        for entry in entries:
            if entry.name.startswith(".") or entry.name == POOL or not entry.is_dir():
                continue
            backup = self._read(entry)
            if backup is not None:
                found.append(backup)
        found.sort(key=lambda b: (b.taken_at, b.name), reverse=True)
        return found

    def _read(self, folder: Path) -> Backup | None:
        try:
            data = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
            if not (folder / DB_NAME).is_file() or not isinstance(data, dict):
                return None
            return Backup(
                name=folder.name,
                path=folder,
                taken_at=float(data["taken_at"]),
                reason=str(data.get("reason", "manual")),
                schema=int(data.get("schema", 0)),
                conversations=int(data.get("conversations", 0)),
                messages=int(data.get("messages", 0)),
                last_message_id=int(data.get("last_message_id", 0)),
                images=tuple(str(p) for p in data.get("images", [])),
                bytes=int(data.get("bytes", 0)),
            )
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def newest(self) -> Backup | None:
        backups = self.taken()
        return backups[0] if backups else None

    def due(self) -> bool:
        """True when no backup was taken in the last day."""
        newest = self.newest()
        return newest is None or self._clock() - newest.taken_at >= DUE_AFTER_S

    def find(self, name: str | None) -> Backup:
        """The backup called ``name`` (its name, or the start of it: "2026-12-01"); the newest
        when None."""
        backups = self.taken()
        if not backups:
            raise StoreError(
                f"There is no backup of the chat history yet in {self.folder}. "
                "'cove history backup' makes one."
            )
        if name is None:
            return backups[0]
        matches = [b for b in backups if b.name == name] or [
            b for b in backups if b.name.startswith(name)
        ]
        if not matches:
            names = ", ".join(b.name for b in backups[:8])
            raise StoreError(f"No backup is called {name!r}. The newest are: {names}.")
        return matches[0]

    # -- writing ---------------------------------------------------------------------------------

    def take(self, reason: Reason, source: sqlite3.Connection | None = None) -> Backup:
        """Back the history up now, from ``source`` (a connection to it, whose caller keeps
        writers out meanwhile) or from a connection of its own. Raises ``HistoryDamaged`` when the
        copy fails SQLite's check (nothing is kept then) and ``StoreError`` on other failures."""
        if reason not in REASONS:
            raise ValueError(f"unknown backup reason {reason!r}")
        now = self._clock()
        stamp = datetime.datetime.fromtimestamp(now, datetime.UTC).strftime("%Y-%m-%dT%H%M%SZ")
        name = f"{stamp}-{reason}"
        n = 1
        while (self.folder / name).exists():
            n += 1
            name = f"{stamp}-{reason}-{n}"
        part = self.folder / f"{PART_PREFIX}{name}"
        try:
            part.mkdir(parents=True)
            counts, images = self._copy_database(source, part / DB_NAME)
            self._copy_images(images)
            size = (part / DB_NAME).stat().st_size
            manifest = {
                "format": "cove.backup",
                "version": 1,
                "taken_at": now,
                "reason": reason,
                "schema": counts.schema,
                "conversations": counts.conversations,
                "messages": counts.messages,
                "last_message_id": counts.last_message_id,
                "images": list(images),
                "bytes": size,
            }
            with (part / MANIFEST).open("w", encoding="utf-8") as out:
                json.dump(manifest, out, indent=1)
                out.flush()
                os.fsync(out.fileno())
            os.replace(part, self.folder / name)
            _fsync_folder(self.folder)
        except sqlite3.Error as exc:
            shutil.rmtree(part, ignore_errors=True)
            if sqlite_damaged(exc):
                raise HistoryDamaged(
                    f"The chat history is damaged ({exc}), so it was not backed up; the backups "
                    "made before stay as they are."
                ) from exc
            raise StoreError(f"Could not back up the chat history: {exc}.") from exc
        except OSError as exc:
            shutil.rmtree(part, ignore_errors=True)
            full = "full" in str(exc).lower() or getattr(exc, "errno", None) == 28
            hint = " The disk is full." if full else ""
            raise StoreError(f"Could not back up the chat history: {exc}.{hint}") from exc
        except BaseException:
            shutil.rmtree(part, ignore_errors=True)
            raise
        backup = self._read(self.folder / name)
        assert backup is not None
        self.prune()
        return backup

    def _copy_database(
        self, source: sqlite3.Connection | None, dest: Path
    ) -> tuple[Counts, tuple[str, ...]]:
        own = source is None
        src = source or sqlite3.connect(self.history, timeout=BUSY_TIMEOUT_S)
        copy = sqlite3.connect(dest)
        try:
            # One step: the copy is one consistent snapshot, read in a single transaction.
            src.backup(copy)
            # A backup stands alone: no write-ahead log to lose beside it.
            copy.execute("PRAGMA journal_mode = DELETE")
            problems = quick_check(copy)
            if problems:
                raise HistoryDamaged(
                    "The chat history is damaged, so it was not backed up (the backups made "
                    f"before stay as they are): {'; '.join(problems[:3])}"
                )
            counts = Counts.of(copy)
            return counts, _image_paths(copy, counts.schema)
        finally:
            copy.close()
            if own:
                src.close()

    def _copy_images(self, images: tuple[str, ...]) -> None:
        pool = self.folder / POOL
        for relative in images:
            kept = pool / relative
            if kept.is_file():
                continue
            source = self.images_folder / relative
            if source.is_file():  # an image lost before is not the backup's to fail on
                _copy_whole(source, kept)

    def restore_images(self, backup: Backup) -> int:
        """Copy back the backup's images the images folder lacks; returns how many."""
        restored = 0
        for relative in backup.images:
            target = self.images_folder / relative
            kept = self.folder / POOL / relative
            if not target.is_file() and kept.is_file():
                _copy_whole(kept, target)
                restored += 1
        return restored

    def prune(self) -> list[Backup]:
        """Drop the backups the rule in this module's notes does not keep; returns them."""
        backups = self.taken()
        keep: set[str] = {b.name for b in backups[:NEWEST_KEPT]}
        days: dict[datetime.date, Backup] = {}
        weeks: dict[tuple[int, int], Backup] = {}
        for backup in backups:  # newest first: the first of a day or week is its newest
            day = datetime.datetime.fromtimestamp(backup.taken_at, datetime.UTC).date()
            if day not in days and len(days) < DAYS_KEPT:
                days[day] = backup
                continue
            if day in days:
                continue
            week = day.isocalendar()[:2]
            if week not in weeks and len(weeks) < WEEKS_KEPT:
                weeks[(week[0], week[1])] = backup
        keep |= {b.name for b in days.values()} | {b.name for b in weeks.values()}
        kept = [b for b in backups if b.name in keep]
        dropped = [b for b in backups if b.name not in keep]
        total = sum(b.bytes for b in kept) + _folder_bytes(self.folder / POOL)
        while len(kept) > 1 and total > self.max_bytes:
            oldest = kept.pop()
            dropped.append(oldest)
            total -= oldest.bytes
        for backup in dropped:
            shutil.rmtree(backup.path, ignore_errors=True)
        for stale in self.folder.glob(f"{PART_PREFIX}*"):  # a backup a crash interrupted
            shutil.rmtree(stale, ignore_errors=True)
        self._prune_pool({p for b in kept for p in b.images})
        return dropped

    def _prune_pool(self, wanted: set[str]) -> None:
        pool = self.folder / POOL
        if not pool.is_dir():
            return
        for path in pool.glob("*/*"):
            if path.is_file() and path.relative_to(pool).as_posix() not in wanted:
                with contextlib.suppress(OSError):
                    path.unlink()

    def total_bytes(self) -> int:
        return _folder_bytes(self.folder)


def copy_into(backup: Backup, conn: sqlite3.Connection) -> None:
    """Replace the history behind ``conn`` with the backup's, in one step (SQLite's backup into
    the live connection: other connections see the old history or the new one, never a mix)."""
    src = sqlite3.connect(f"file:{backup.database}?mode=ro", uri=True)
    try:
        problems = quick_check(src)
        if problems:
            raise HistoryDamaged(
                f"The backup {backup.name} is damaged ({'; '.join(problems[:3])}); "
                "choose another one."
            )
        src.backup(conn)
    finally:
        src.close()


def sqlite_damaged(exc: BaseException) -> bool:
    """True when SQLite says the file itself is damaged (not busy, not full, not read-only)."""
    text = str(exc).lower()
    return isinstance(exc, sqlite3.DatabaseError) and (
        "malformed" in text or "not a database" in text or "corrupt" in text
    )


def sqlite_full(exc: BaseException) -> bool:
    """True for SQLite's "database or disk is full" (SQLITE_FULL)."""
    code = getattr(exc, "sqlite_errorcode", None)
    return code == 13 or "full" in str(exc).lower()
