"""Add files and folders to a collection: walk, read, chunk, store, embed, with progress and
cancel. A file is read again only when its content hash changed, or the way files are read did
(``READING``: a file indexed by an older reader is read again when it is next added or its
folder caught up with, re-embedding only the passages that changed); files gone from a folder
leave the index; a file that cannot be read is skipped with its reason and the rest goes on.
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from engine.documents.blocks import PageIssue
from engine.documents.chunker import chunk_blocks
from engine.documents.index_db import Collection, FileRecord, IndexDB
from engine.errors import EngineError

if TYPE_CHECKING:
    from engine.documents.encoder import Encoder
    from engine.documents.ocr import PageOcr

CHUNK_BATCH = 256
EMBED_BATCH = 64  # texts per call to the encoder: progress and cancel between calls
EMBED_WINDOW = 1024  # passages taken at once, shortest first, to share vectors and lengths
HASH_BLOCK = 1 << 20
# Raised when a reader or the chunker changes what a file becomes (2: a PDF's headings confirmed
# by its bookmarks), so that files indexed before are read again.
READING = 2

Outcome = Literal["indexed", "unchanged", "needs_ocr", "skipped", "removed", "cancelled"]


@dataclass(frozen=True, slots=True)
class FileOutcome:
    path: str
    outcome: Outcome
    reason: str | None = None
    chunks: int = 0
    pages: int | None = None
    ocr_pages: tuple[int, ...] = ()  # scanned pages not read (no OCR, or it found nothing)
    ocr_read: tuple[int, ...] = ()  # scanned pages read by OCR

    def to_dict(self) -> dict[str, object]:
        return {
            "path": self.path,
            "outcome": self.outcome,
            "reason": self.reason,
            "chunks": self.chunks,
            "pages": self.pages,
            "needs_ocr_pages": list(self.ocr_pages),
            "ocr_pages_read": list(self.ocr_read),
        }


@dataclass(frozen=True, slots=True)
class IndexProgress:
    phase: Literal["reading", "embedding", "done"]
    files_done: int
    files_total: int
    chunks_embedded: int
    chunks_total: int
    current: str | None = None
    eta_s: float | None = None
    rate: float | None = None  # pages a second while reading, passages a second embedding


def encoder_id(encoder: Encoder) -> str:
    return f"{encoder.name}:{encoder.dimensions}"


class Indexer:
    def __init__(
        self,
        db: IndexDB,
        collection: Collection,
        encoder: Encoder | None = None,
        *,
        progress: Callable[[IndexProgress], None] | None = None,
        cancel: threading.Event | None = None,
        ocr: bool = False,
    ) -> None:
        self.db = db
        self.ocr = ocr  # read scanned PDF pages by OCR (Cove's ocr extra)
        if ocr:
            from engine.documents.ocr import require_ocr

            require_ocr()  # before anything is read: a clear error, not a skip per file
        self._ocr: PageOcr | None = None
        self._position = (0, 1)  # (files done, files in all) while adding, for progress
        self.collection = collection
        self.encoder = encoder
        self._progress = progress or (lambda _p: None)
        self._cancel = cancel or threading.Event()
        if encoder is not None:
            self.collection = check_encoder(db, collection, encoder)

    def add(self, paths: Sequence[Path]) -> list[FileOutcome]:
        """Index ``paths`` (files, folders) into the collection; then embed what is new."""
        outcomes: list[FileOutcome] = []
        found: list[Path] = []
        for path in paths:
            absolute = Path(os.path.abspath(path.expanduser()))
            if not absolute.exists():
                outcomes.append(FileOutcome(str(absolute), "skipped", "no such file or folder"))
                continue
            self.db.add_source(self.collection, str(absolute))
            for item in walk(absolute):
                if isinstance(item, FileOutcome):
                    outcomes.append(item)
                else:
                    found.append(item)
            if absolute.is_dir():
                outcomes += self._forget_missing(absolute)
        pages, started = 0, time.monotonic()
        for done, path in enumerate(found):
            if self._cancel.is_set():
                outcomes.append(FileOutcome(str(path), "cancelled"))
                continue
            rate = pages / (time.monotonic() - started) if pages else None
            self._report("reading", done, len(found), current=str(path), rate=rate)
            self._position = (done, len(found))
            outcome = self.index_file(path)
            if outcome.outcome == "indexed":
                pages += outcome.pages or 1
            outcomes.append(outcome)
        self._report("reading", len(found), len(found))
        self.embed_pending()
        return outcomes

    def index_file(self, path: Path) -> FileOutcome:
        from engine.documents.readers import read_document
        from engine.errors import DocumentError

        name = str(path)
        try:
            stat = path.stat()
            digest = file_sha256(path)
        except OSError as exc:
            self.db.mark(self.collection, name, "skipped", reason=_os_reason(exc))
            return FileOutcome(name, "skipped", _os_reason(exc))
        known = self.db.file(self.collection, name)
        # A file with scanned pages is read again once OCR is on: its hash has not changed.
        scanned = self.ocr and known is not None and bool(known.ocr_pages)
        if (
            known is not None
            and known.sha256 == digest
            and known.status != "pending"
            and not scanned
        ):
            if (known.size, known.mtime) != (stat.st_size, stat.st_mtime):
                self.db.touch(self.collection, name, stat.st_size, stat.st_mtime)
            outcome: Outcome = "unchanged" if known.status == "indexed" else known.status
            return FileOutcome(
                name, outcome, known.reason, known.chunks, known.pages, known.ocr_pages
            )
        self.db.mark(
            self.collection, name, "pending", sha256=digest, size=stat.st_size, mtime=stat.st_mtime
        )
        file_id = self.db.file_id(self.collection, name)
        issues: list[PageIssue] = []
        count, last_page = 0, None
        try:
            batch = []
            blocks = read_document(path, ocr=self._page_ocr(path))
            for chunk in chunk_blocks(blocks, issues=issues):
                if self._cancel.is_set():
                    return FileOutcome(name, "cancelled")
                batch.append(chunk)
                last_page = chunk.page or last_page
                if len(batch) >= CHUNK_BATCH:
                    self.db.add_chunks(file_id, batch, [c.indexed_text(path.name) for c in batch])
                    count += len(batch)
                    batch = []
            if batch:
                self.db.add_chunks(file_id, batch, [c.indexed_text(path.name) for c in batch])
                count += len(batch)
        except DocumentError as exc:
            self.db.finish_file(file_id, "skipped", pages=None, ocr_pages=(), reason=str(exc))
            return FileOutcome(name, "skipped", str(exc))
        except (OSError, ValueError, RuntimeError) as exc:  # a reader's library failing oddly
            reason = f"could not be read ({exc})"
            self.db.finish_file(file_id, "skipped", pages=None, ocr_pages=(), reason=reason)
            return FileOutcome(name, "skipped", reason)
        ocr = tuple(sorted({i.page for i in issues if i.reason == "needs_ocr"}))
        read = tuple(sorted({i.page for i in issues if i.reason == "read_by_ocr"}))
        pages = max([last_page or 0, *(i.page for i in issues)]) or None
        if count == 0:
            status: Literal["needs_ocr", "skipped"] = "needs_ocr" if ocr else "skipped"
            reason = (
                "scanned pages without a text layer: needs OCR" if ocr else "no text in the file"
            )
            self.db.finish_file(file_id, status, pages=pages, ocr_pages=ocr, reason=reason)
            return FileOutcome(name, status, reason, 0, pages, ocr, read)
        notes = []
        if read:
            notes.append(f"pages {_ranges(read)} read by OCR")
        if ocr:
            notes.append(f"pages {_ranges(ocr)} need OCR")
        note = "; ".join(notes) or None
        self.db.finish_file(file_id, "indexed", pages=pages, ocr_pages=ocr, reason=note)
        return FileOutcome(name, "indexed", note, count, pages, ocr, read)

    def _page_ocr(self, path: Path) -> PageOcr | None:
        """The OCR engine, for a PDF when OCR is on (its models load on first use)."""
        if not self.ocr or path.suffix.lower() != ".pdf":
            return None
        if self._ocr is None:
            from engine.documents.ocr import PageOcr

            self._ocr = PageOcr()
        name, (done, total) = str(path), self._position
        self._ocr.on_page = lambda page: self._report(
            "reading", done, total, current=f"{name} (page {page}, by OCR)"
        )
        return self._ocr

    def embed_pending(self) -> int:
        """Embed every chunk still without a vector; returns how many were embedded."""
        import numpy as np

        if self.encoder is None:
            return 0
        total = self.db.count_unembedded(self.collection)
        done, started = 0, time.monotonic()
        while not self._cancel.is_set():
            rows = self.db.unembedded(self.collection, EMBED_WINDOW)
            if not rows:
                break
            # A text the collection already has a vector for (an unchanged page of a file
            # read again, boilerplate repeated across files) is not embedded again, and a text
            # repeated within the window is embedded once.
            known = self.db.known_vectors(self.collection, [body for _id, body in rows])
            done += self._store(rows, known)
            fresh = list(dict.fromkeys(body for _id, body in rows if body not in known))
            for start in range(0, len(fresh), EMBED_BATCH):
                if self._cancel.is_set():
                    break
                part = fresh[start : start + EMBED_BATCH]
                embedded = np.asarray(self.encoder.embed(part, batch_size=32), np.float32)
                done += self._store(
                    rows, {body: embedded[i].tobytes() for i, body in enumerate(part)}
                )
                rate = done / max(time.monotonic() - started, 1e-6)
                self._report("embedding", 0, 0, done, total, eta=(total - done) / rate, rate=rate)
        self._report("done", 0, 0, done, total)
        return done

    def _store(self, rows: list[tuple[int, str]], vectors: dict[str, bytes]) -> int:
        """Store the vector of each row whose text ``vectors`` has; returns how many."""
        ready = [(chunk_id, vectors[body]) for chunk_id, body in rows if body in vectors]
        if ready:
            self.db.store_vectors(ready)
        return len(ready)

    def update(self, changed: Iterable[Path], gone: Iterable[Path]) -> list[FileOutcome]:
        """A watched folder's changes: files changed or added under the collection's sources
        are read (when their content changed), files and folders gone leave the index."""
        sources = [Path(s) for s in self.db.sources(self.collection)]
        outcomes: list[FileOutcome] = []
        known = {f.path for f in self.db.files(self.collection)}
        for path in gone:
            prefix = str(path).rstrip(os.sep) + os.sep
            for name in sorted(known):
                if (name == str(path) or name.startswith(prefix)) and not Path(name).exists():
                    self.db.remove_file(self.collection, name)
                    outcomes.append(FileOutcome(name, "removed", "deleted or moved away"))
        wanted = [p for p in sorted(changed) if _under(p, sources) and p.is_file()]
        for done, path in enumerate(wanted):
            if self._cancel.is_set():
                break
            self._report("reading", done, len(wanted), current=str(path))
            outcomes.append(self.index_file(path))
        self.embed_pending()
        return outcomes

    def refresh(self) -> list[FileOutcome]:
        """Catch up with what changed while Cove was closed: a file whose size or modification
        time differs from when it was read, or that an older reader read, is read again (its
        content hash decides whether it changed), new files are added, files gone leave the
        index, and work left pending (files half read, passages not embedded) is finished.
        Unchanged files are not read."""
        outcomes: list[FileOutcome] = []
        records = {f.path: f for f in self.db.files(self.collection)}
        found: list[Path] = []
        for source in self.db.sources(self.collection):
            root = Path(source)
            if not root.exists():
                continue  # an unplugged drive: its files stay until it is back or removed
            for item in walk(root):
                if isinstance(item, Path):
                    found.append(item)
            if root.is_dir():
                outcomes += self._forget_missing(root)
        stale = [p for p in found if _stale(p, records.get(str(p)))]
        for done, path in enumerate(stale):
            if self._cancel.is_set():
                break
            self._report("reading", done, len(stale), current=str(path))
            outcomes.append(self.index_file(path))
        self.embed_pending()
        return outcomes

    def _forget_missing(self, folder: Path) -> list[FileOutcome]:
        prefix = str(folder).rstrip(os.sep) + os.sep
        gone = [
            f.path
            for f in self.db.files(self.collection)
            if f.path.startswith(prefix) and not Path(f.path).exists()
        ]
        for path in gone:
            self.db.remove_file(self.collection, path)
        return [FileOutcome(p, "removed", "no longer in the folder") for p in gone]

    def _report(
        self,
        phase: Literal["reading", "embedding", "done"],
        files_done: int,
        files_total: int,
        chunks_done: int = 0,
        chunks_total: int = 0,
        *,
        current: str | None = None,
        eta: float | None = None,
        rate: float | None = None,
    ) -> None:
        self._progress(
            IndexProgress(
                phase, files_done, files_total, chunks_done, chunks_total, current, eta, rate
            )
        )


def _under(path: Path, sources: Sequence[Path]) -> bool:
    return any(path == s or s in path.parents for s in sources)


def _stale(path: Path, record: FileRecord | None) -> bool:
    if record is None or record.status == "pending":
        return True
    if not (record.sha256 or "").startswith(_reading()):
        return True  # read by an older reader
    try:
        stat = path.stat()
    except OSError:
        return True  # read it, to record why it cannot be
    return stat.st_size != record.size or stat.st_mtime != record.mtime


def check_encoder(db: IndexDB, collection: Collection, encoder: Encoder) -> Collection:
    """The collection's encoder is this one (set on first use); another is a clear error."""
    wanted = encoder_id(encoder)
    if collection.encoder is None:
        return db.set_encoder(collection, wanted, encoder.dimensions)
    if collection.encoder != wanted:
        raise EngineError(
            f"The collection {collection.name!r} was built with the embedding model "
            f"{collection.encoder}; {wanted} would give vectors that cannot be compared with "
            "its own. Use the same model, or index into a new collection."
        )
    return collection


def walk(root: Path) -> Iterator[Path | FileOutcome]:
    """Files under ``root`` (or ``root`` itself), following symbolic links once: a link back up
    the tree is skipped, as are folders and files that cannot be read, with their reason."""
    from engine.documents.readers import SUPPORTED_SUFFIXES
    from engine.documents.watch import is_document

    if root.is_file():
        yield root
        return
    seen: set[tuple[int, int]] = set()
    stack = [root]
    while stack:
        folder = stack.pop()
        try:
            info = folder.stat()
            key = (info.st_dev, info.st_ino)
            if key in seen:
                yield FileOutcome(str(folder), "skipped", "a link to a folder already added")
                continue
            seen.add(key)
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as exc:
            yield FileOutcome(str(folder), "skipped", _os_reason(exc))
            continue
        subfolders = []
        for entry in entries:
            if entry.name.startswith("."):
                continue  # hidden files and folders (.git, .DS_Store)
            path = Path(entry.path)
            try:
                if entry.is_dir():
                    subfolders.append(path)
                elif entry.is_file():
                    if path.suffix.lower() in SUPPORTED_SUFFIXES and is_document(path, (root,)):
                        yield path  # not office lock files, editors' backups, partial downloads
                elif entry.is_symlink():
                    yield FileOutcome(str(path), "skipped", "a broken link")
            except OSError as exc:
                yield FileOutcome(str(path), "skipped", _os_reason(exc))
        stack.extend(reversed(subfolders))


def file_sha256(path: Path) -> str:
    """The file's SHA-256 as it is kept: after the version of the reading it is indexed by
    (``r2:<hex>``), so that a file read by an older reader is told apart without hashing it."""
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(HASH_BLOCK):
            digest.update(block)
    return f"{_reading()}{digest.hexdigest()}"


def _reading() -> str:
    return f"r{READING}:"


def _os_reason(exc: OSError) -> str:
    if isinstance(exc, PermissionError):
        return "permission denied"
    return exc.strerror or str(exc)


def _ranges(pages: Sequence[int]) -> str:
    out: list[str] = []
    for page in pages:
        if out and "-" not in out[-1] and int(out[-1]) == page - 1:
            out[-1] = f"{out[-1]}-{page}"
        elif out and "-" in out[-1] and int(out[-1].split("-")[1]) == page - 1:
            out[-1] = f"{out[-1].split('-')[0]}-{page}"
        else:
            out.append(str(page))
    return ", ".join(out)
