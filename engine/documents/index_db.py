"""The document index: collections, their files and chunks, in one SQLite file beside the chat
history (``documents.sqlite3``), with an FTS5 table for keyword search and each chunk's vector.

A file's row records its content hash and status; its chunks go in with the file in one
transaction and their vectors are filled in afterwards, batch by batch, so indexing that stops
(a crash, a cancel, a restart) goes on where it stopped: files still ``pending`` are read again,
chunks without a vector are embedded. A collection remembers which encoder built its vectors.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from engine.documents.chunker import Chunk
from engine.errors import DocumentIndexError
from engine.paths import data_dir

DB_FILENAME = "documents.sqlite3"
SCHEMA_VERSION = 1
BUSY_TIMEOUT_S = 10.0

FileStatus = Literal["pending", "indexed", "needs_ocr", "skipped"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS collections (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    encoder TEXT,            -- the encoder that built the vectors: name and dimensions
    dims INTEGER,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS sources (      -- what the user added: files and folders
    id INTEGER PRIMARY KEY,
    collection_id INTEGER NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
    path TEXT NOT NULL,
    UNIQUE (collection_id, path)
);
CREATE TABLE IF NOT EXISTS files (
    id INTEGER PRIMARY KEY,
    collection_id INTEGER NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
    path TEXT NOT NULL,
    sha256 TEXT,
    size INTEGER NOT NULL DEFAULT 0,
    mtime REAL NOT NULL DEFAULT 0,
    status TEXT NOT NULL,
    reason TEXT,
    pages INTEGER,
    ocr_pages TEXT,          -- pages without a text layer, comma-separated
    indexed REAL,
    UNIQUE (collection_id, path)
);
CREATE TABLE IF NOT EXISTS chunks (
    id INTEGER PRIMARY KEY,
    file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    ordinal INTEGER NOT NULL,
    page INTEGER,
    headings TEXT NOT NULL,  -- the heading path, joined with U+001F
    text TEXT NOT NULL,
    body TEXT NOT NULL,      -- what is searched: heading path and text
    vector BLOB              -- float32, L2-normalised; NULL until embedded
);
CREATE INDEX IF NOT EXISTS chunks_by_file ON chunks(file_id);
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
    body, content='chunks', content_rowid='id', tokenize='porter unicode61'
);
CREATE TRIGGER IF NOT EXISTS chunks_ai AFTER INSERT ON chunks BEGIN
    INSERT INTO chunks_fts(rowid, body) VALUES (new.id, new.body);
END;
CREATE TRIGGER IF NOT EXISTS chunks_ad AFTER DELETE ON chunks BEGIN
    INSERT INTO chunks_fts(chunks_fts, rowid, body) VALUES ('delete', old.id, old.body);
END;
"""
_SEP = "\x1f"


@dataclass(frozen=True, slots=True)
class Collection:
    id: int
    name: str
    encoder: str | None
    dims: int | None


@dataclass(frozen=True, slots=True)
class FileRecord:
    id: int
    path: str
    sha256: str | None
    status: FileStatus
    reason: str | None
    pages: int | None
    ocr_pages: tuple[int, ...]
    chunks: int
    embedded: int
    size: int = 0
    mtime: float = 0.0  # the file's, when it was read


@dataclass(frozen=True, slots=True)
class StoredChunk:
    id: int
    path: str
    page: int | None
    headings: tuple[str, ...]
    text: str


class IndexDB:
    """One connection behind a lock, shared by the indexing and the asking threads."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or data_dir() / DB_FILENAME
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.RLock()
        try:
            self._db = sqlite3.connect(
                self.path, timeout=BUSY_TIMEOUT_S, check_same_thread=False, isolation_level=None
            )
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA foreign_keys=ON")
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise DocumentIndexError(
                    f"{self.path} was written by a newer Cove; it is left untouched. Update Cove."
                )
            self._db.executescript(_SCHEMA)
            self._db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        except sqlite3.DatabaseError as exc:
            raise DocumentIndexError(
                f"The document index {self.path} cannot be opened ({exc})."
            ) from None

    def close(self) -> None:
        with self._lock:
            self._db.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def _all(self, sql: str, args: Sequence[Any] = ()) -> list[Any]:
        with self._lock:
            return self._db.execute(sql, args).fetchall()

    # -- collections -----------------------------------------------------------------------

    def collection(self, name: str, *, create: bool = False) -> Collection | None:
        rows = self._all("SELECT id, name, encoder, dims FROM collections WHERE name = ?", [name])
        if rows:
            return Collection(*rows[0])
        if not create:
            return None
        with self.transaction() as db:
            db.execute("INSERT INTO collections(name, created) VALUES (?, ?)", [name, time.time()])
        return self.collection(name)

    def collections(self) -> list[Collection]:
        rows = self._all("SELECT id, name, encoder, dims FROM collections ORDER BY name")
        return [Collection(*r) for r in rows]

    def set_encoder(self, collection: Collection, encoder: str, dims: int) -> Collection:
        with self.transaction() as db:
            db.execute(
                "UPDATE collections SET encoder = ?, dims = ? WHERE id = ?",
                [encoder, dims, collection.id],
            )
        return Collection(collection.id, collection.name, encoder, dims)

    def remove_collection(self, collection: Collection) -> None:
        with self.transaction() as db:
            db.execute(
                "DELETE FROM chunks WHERE file_id IN (SELECT id FROM files WHERE collection_id=?)",
                [collection.id],
            )
            db.execute("DELETE FROM collections WHERE id = ?", [collection.id])

    def add_source(self, collection: Collection, path: str) -> None:
        with self.transaction() as db:
            db.execute(
                "INSERT OR IGNORE INTO sources(collection_id, path) VALUES (?, ?)",
                [collection.id, path],
            )

    def sources(self, collection: Collection) -> list[str]:
        rows = self._all("SELECT path FROM sources WHERE collection_id = ?", [collection.id])
        return [r[0] for r in rows]

    def remove_source(self, collection: Collection, path: str) -> int:
        """Forget a source and every file under it; returns the number of files removed."""
        prefix = path.rstrip("/") + "/"
        with self.transaction() as db:
            db.execute(
                "DELETE FROM sources WHERE collection_id = ? AND (path = ? OR path LIKE ? "
                "ESCAPE '\\')",
                [collection.id, path, _like(prefix)],
            )
            ids = [
                r[0]
                for r in db.execute(
                    "SELECT id FROM files WHERE collection_id = ? AND (path = ? OR path LIKE ? "
                    "ESCAPE '\\')",
                    [collection.id, path, _like(prefix)],
                )
            ]
            for file_id in ids:
                db.execute("DELETE FROM chunks WHERE file_id = ?", [file_id])
                db.execute("DELETE FROM files WHERE id = ?", [file_id])
        return len(ids)

    # -- files -----------------------------------------------------------------------------

    _FILE_COLUMNS = (
        "SELECT f.id, f.path, f.sha256, f.status, f.reason, f.pages, f.ocr_pages, "
        "COUNT(c.id), COUNT(c.vector), f.size, f.mtime "
        "FROM files f LEFT JOIN chunks c ON c.file_id = f.id "
    )

    def files(self, collection: Collection) -> list[FileRecord]:
        rows = self._all(
            self._FILE_COLUMNS + "WHERE f.collection_id = ? GROUP BY f.id ORDER BY f.path",
            [collection.id],
        )
        return [_file_record(r) for r in rows]

    def file(self, collection: Collection, path: str) -> FileRecord | None:
        rows = self._all(
            self._FILE_COLUMNS + "WHERE f.collection_id = ? AND f.path = ? GROUP BY f.id",
            [collection.id, path],
        )
        return _file_record(rows[0]) if rows else None

    def mark(
        self,
        collection: Collection,
        path: str,
        status: FileStatus,
        *,
        reason: str | None = None,
        sha256: str | None = None,
        size: int = 0,
        mtime: float = 0.0,
    ) -> None:
        """Record a file's status; it loses its chunks unless it is indexed (a pending file is
        read again from the start)."""
        with self.transaction() as db:
            db.execute(
                "INSERT INTO files(collection_id, path, sha256, size, mtime, status, reason) "
                "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(collection_id, path) DO UPDATE SET "
                "sha256 = excluded.sha256, size = excluded.size, mtime = excluded.mtime, "
                "status = excluded.status, reason = excluded.reason",
                [collection.id, path, sha256, size, mtime, status, reason],
            )
            if status != "indexed":
                db.execute(
                    "DELETE FROM chunks WHERE file_id = (SELECT id FROM files "
                    "WHERE collection_id = ? AND path = ?)",
                    [collection.id, path],
                )

    def touch(self, collection: Collection, path: str, size: int, mtime: float) -> None:
        """Record a file's size and time again (its content is as indexed)."""
        with self.transaction() as db:
            db.execute(
                "UPDATE files SET size = ?, mtime = ? WHERE collection_id = ? AND path = ?",
                [size, mtime, collection.id, path],
            )

    def file_id(self, collection: Collection, path: str) -> int:
        rows = self._all(
            "SELECT id FROM files WHERE collection_id = ? AND path = ?", [collection.id, path]
        )
        if not rows:
            raise DocumentIndexError(f"{path} is not in the collection {collection.name!r}.")
        return int(rows[0][0])

    def add_chunks(self, file_id: int, chunks: Sequence[Chunk], bodies: Sequence[str]) -> None:
        """Add a batch of a pending file's chunks (their vectors come later)."""
        with self.transaction() as db:
            db.executemany(
                "INSERT INTO chunks(file_id, ordinal, page, headings, text, body) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                [
                    (file_id, c.ordinal, c.page, _SEP.join(c.headings), c.text, body)
                    for c, body in zip(chunks, bodies, strict=True)
                ],
            )

    def finish_file(
        self,
        file_id: int,
        status: FileStatus,
        *,
        pages: int | None,
        ocr_pages: Sequence[int],
        reason: str | None = None,
    ) -> None:
        with self.transaction() as db:
            if status != "indexed":
                db.execute("DELETE FROM chunks WHERE file_id = ?", [file_id])
            db.execute(
                "UPDATE files SET status = ?, reason = ?, pages = ?, ocr_pages = ?, indexed = ? "
                "WHERE id = ?",
                [
                    status,
                    reason,
                    pages,
                    ",".join(str(p) for p in ocr_pages) or None,
                    time.time(),
                    file_id,
                ],
            )

    def remove_file(self, collection: Collection, path: str) -> None:
        with self.transaction() as db:
            db.execute(
                "DELETE FROM chunks WHERE file_id = (SELECT id FROM files "
                "WHERE collection_id = ? AND path = ?)",
                [collection.id, path],
            )
            db.execute(
                "DELETE FROM files WHERE collection_id = ? AND path = ?", [collection.id, path]
            )

    # -- vectors ---------------------------------------------------------------------------

    def unembedded(self, collection: Collection, limit: int) -> list[tuple[int, str]]:
        """(chunk id, body) of chunks still without a vector, shortest first: texts of one
        length are embedded together, so little of the encoder's work goes on padding."""
        return [
            (r[0], r[1])
            for r in self._all(
                "SELECT c.id, c.body FROM chunks c JOIN files f ON f.id = c.file_id "
                "WHERE f.collection_id = ? AND c.vector IS NULL "
                "ORDER BY length(c.body), c.id LIMIT ?",
                [collection.id, limit],
            )
        ]

    def known_vectors(self, collection: Collection, bodies: Sequence[str]) -> dict[str, bytes]:
        """Vectors the collection already has for these texts (a page unchanged in a file
        read again, a passage repeated in another file): they need no embedding."""
        found: dict[str, bytes] = {}
        unique = list(dict.fromkeys(bodies))
        for start in range(0, len(unique), 500):
            part = unique[start : start + 500]
            marks = ",".join("?" * len(part))
            rows = self._all(
                "SELECT c.body, c.vector FROM chunks c JOIN files f ON f.id = c.file_id "
                f"WHERE f.collection_id = ? AND c.vector IS NOT NULL AND c.body IN ({marks})",
                [collection.id, *part],
            )
            found.update((r[0], r[1]) for r in rows)
        return found

    def count_chunks(self, collection: Collection) -> int:
        rows = self._all(
            "SELECT count(*) FROM chunks c JOIN files f ON f.id = c.file_id "
            "WHERE f.collection_id = ?",
            [collection.id],
        )
        return int(rows[0][0])

    def count_unembedded(self, collection: Collection) -> int:
        rows = self._all(
            "SELECT COUNT(*) FROM chunks c JOIN files f ON f.id = c.file_id "
            "WHERE f.collection_id = ? AND c.vector IS NULL",
            [collection.id],
        )
        return int(rows[0][0])

    def store_vectors(self, rows: Sequence[tuple[int, bytes]]) -> None:
        with self.transaction() as db:
            db.executemany("UPDATE chunks SET vector = ? WHERE id = ?", [(v, i) for i, v in rows])

    def clear_vectors(self, collection: Collection) -> None:
        with self.transaction() as db:
            db.execute(
                "UPDATE chunks SET vector = NULL WHERE file_id IN "
                "(SELECT id FROM files WHERE collection_id = ?)",
                [collection.id],
            )

    def vectors(self, collection: Collection) -> tuple[list[int], list[bytes]]:
        rows = self._all(
            "SELECT c.id, c.vector FROM chunks c JOIN files f ON f.id = c.file_id "
            "WHERE f.collection_id = ? AND c.vector IS NOT NULL ORDER BY c.id",
            [collection.id],
        )
        return [r[0] for r in rows], [r[1] for r in rows]

    # -- search ----------------------------------------------------------------------------

    def keyword(self, collection: Collection, query: str, limit: int) -> list[tuple[int, float]]:
        """(chunk id, BM25 score, higher is better) for an FTS5 query."""
        if not query:
            return []
        try:
            rows = self._all(
                "SELECT c.id, -bm25(chunks_fts) AS score FROM chunks_fts "
                "JOIN chunks c ON c.id = chunks_fts.rowid JOIN files f ON f.id = c.file_id "
                "WHERE chunks_fts MATCH ? AND f.collection_id = ? ORDER BY bm25(chunks_fts) "
                "LIMIT ?",
                [query, collection.id, limit],
            )
        except sqlite3.OperationalError:
            return []
        return [(int(r[0]), float(r[1])) for r in rows]

    def term_counts(
        self, collection: Collection, terms: Sequence[str], cap: int = 1000
    ) -> dict[str, int]:
        """How many of the collection's passages hold each term (an FTS5 phrase, stemmed as
        the index is), counted up to ``cap``."""
        counts: dict[str, int] = {}
        for term in terms:
            phrase = '"' + term.replace('"', "") + '"'
            try:
                row = self._all(
                    "SELECT count(*) FROM (SELECT 1 FROM chunks_fts "
                    "JOIN chunks c ON c.id = chunks_fts.rowid JOIN files f ON f.id = c.file_id "
                    "WHERE chunks_fts MATCH ? AND f.collection_id = ? LIMIT ?)",
                    [phrase, collection.id, cap],
                )
            except sqlite3.OperationalError:
                row = [(0,)]
            counts[term] = int(row[0][0])
        return counts

    def chunks_by_id(self, ids: Sequence[int]) -> dict[int, StoredChunk]:
        if not ids:
            return {}
        marks = ",".join("?" * len(ids))
        rows = self._all(
            "SELECT c.id, f.path, c.page, c.headings, c.text FROM chunks c "
            f"JOIN files f ON f.id = c.file_id WHERE c.id IN ({marks})",
            list(ids),
        )
        return {
            r[0]: StoredChunk(r[0], r[1], r[2], tuple(h for h in r[3].split(_SEP) if h), r[4])
            for r in rows
        }

    def version(self) -> tuple[int, int]:
        """Changes since opening: this connection's writes and other processes' commits. Equal
        versions mean nothing was written in between."""
        with self._lock:
            other = self._db.execute("PRAGMA data_version").fetchone()[0]
            return self._db.total_changes, int(other)


def _file_record(r: Any) -> FileRecord:
    return FileRecord(
        r[0], r[1], r[2], r[3], r[4], r[5], _pages(r[6]), int(r[7]), int(r[8]), int(r[9]), r[10]
    )


def _pages(text: str | None) -> tuple[int, ...]:
    return tuple(int(p) for p in text.split(",") if p) if text else ()


def _like(prefix: str) -> str:
    escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return escaped + "%"
