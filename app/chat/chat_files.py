"""Files given to a chat: each conversation has a document collection of its own.

A PDF, DOCX, HTML, Markdown or text file dropped on the composer or attached is read into the
collection ``chat:<conversation id>`` in the background, exactly as the Documents page reads
files into a collection, and replies in that chat answer from it with file and page. The
collection is not listed on the Documents page nor under "Answer from": it belongs to the chat,
goes when a file is removed from the chat, and goes with the chat when the chat is deleted.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QObject, Qt, Signal

from app.common.chat_collections import collection_name, conversation_of
from app.common.i18n import tr
from app.common.workers import WorkerPool
from engine.documents import (
    SUPPORTED_SUFFIXES,
    Encoder,
    FileOutcome,
    IndexDB,
    Indexer,
    IndexProgress,
)


def is_document(path: Path) -> bool:
    """Whether a file given to the composer is read as a document (not shown as an image)."""
    return path.suffix.lower() in SUPPORTED_SUFFIXES


@dataclass(frozen=True, slots=True)
class ChatFile:
    """A file of the chat as the composer shows it."""

    path: str
    name: str
    state: str  # "reading" | "ready" | "failed"
    detail: str  # "12 pages", "Reading page 3…", the reason it could not be read


class _Relay(QObject):
    progressed = Signal(int, object)  # (conversation id, IndexProgress), from the worker


class ChatFiles(QObject):
    """The files of every chat; reading runs on one worker, a chat's files at a time."""

    changed = Signal(int)  # conversation id: its files or their state changed

    def __init__(
        self,
        db: IndexDB,
        encoder: Callable[[], Encoder | None],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.db = db
        self._encoder = encoder
        self.pool = WorkerPool("chat-files", 1)
        self._relay = _Relay()
        self._relay.progressed.connect(self._progressed, Qt.ConnectionType.QueuedConnection)
        self._reading: dict[int, dict[str, str]] = {}  # conversation -> path -> progress text
        self._failed: dict[int, dict[str, str]] = {}  # conversation -> path -> reason
        self._cancel = threading.Event()

    def add(self, conversation_id: int, paths: Sequence[Path]) -> None:
        """Read ``paths`` into the chat's collection (in the background)."""
        files = [Path(p).resolve() for p in paths]
        if not files:
            return
        waiting = self._reading.setdefault(conversation_id, {})
        failed = self._failed.setdefault(conversation_id, {})
        for path in files:
            waiting[str(path)] = tr("ChatFiles", "Waiting to be read…")
            failed.pop(str(path), None)
        self.changed.emit(conversation_id)
        name = collection_name(conversation_id)
        cancel = self._cancel

        def job() -> list[FileOutcome]:
            collection = self.db.collection(name, create=True)
            assert collection is not None
            indexer = Indexer(
                self.db,
                collection,
                self._encoder(),
                progress=lambda p: self._relay.progressed.emit(conversation_id, p),
                cancel=cancel,
            )
            return indexer.add(files)

        self.pool.submit(
            job,
            lambda outcomes: self._done(conversation_id, files, outcomes),
            lambda exc: self._done(
                conversation_id, files, [FileOutcome(str(p), "skipped", str(exc)) for p in files]
            ),
        )

    def files(self, conversation_id: int) -> list[ChatFile]:
        """The chat's files: those read, being read and those that could not be."""
        shown: dict[str, ChatFile] = {}
        collection = self.db.collection(collection_name(conversation_id))
        if collection is not None:
            for record in self.db.files(collection):
                if record.status == "indexed":
                    pages = record.pages or 0
                    detail = (
                        tr("ChatFiles", "{n} pages").format(n=pages)
                        if pages > 1
                        else tr("ChatFiles", "Read")
                    )
                    shown[record.path] = ChatFile(record.path, _name(record.path), "ready", detail)
                elif record.status == "needs_ocr":
                    reason = tr(
                        "ChatFiles",
                        "Its pages are pictures of text: turn on OCR on the Documents page",
                    )
                    shown[record.path] = ChatFile(record.path, _name(record.path), "failed", reason)
                elif record.status == "skipped":
                    reason = record.reason or tr("ChatFiles", "could not be read")
                    shown[record.path] = ChatFile(record.path, _name(record.path), "failed", reason)
        for path, reason in self._failed.get(conversation_id, {}).items():
            shown[path] = ChatFile(path, _name(path), "failed", reason)
        for path, text in self._reading.get(conversation_id, {}).items():
            shown[path] = ChatFile(path, _name(path), "reading", text)
        return sorted(shown.values(), key=lambda f: f.name.lower())

    def collection(self, conversation_id: int | None) -> str:
        """The chat's collection's name when it has files read (or being read), else ""."""
        if conversation_id is None:
            return ""
        if self._reading.get(conversation_id):
            return collection_name(conversation_id)
        collection = self.db.collection(collection_name(conversation_id))
        if collection is None or not self.db.files(collection):
            return ""
        return collection.name

    def reading(self, name: str) -> bool:
        """Whether files are being read into collection ``name`` now."""
        conversation = conversation_of(name)
        return conversation is not None and bool(self._reading.get(conversation))

    def remove(self, conversation_id: int, path: str) -> None:
        """Take a file out of the chat: its passages are no longer given to the model."""
        self._failed.get(conversation_id, {}).pop(path, None)
        collection = self.db.collection(collection_name(conversation_id))
        if collection is not None:
            self.db.remove_source(collection, path)
            if not self.db.files(collection) and not self._reading.get(conversation_id):
                self.db.remove_collection(collection)
        self.changed.emit(conversation_id)

    def forget(self, conversation_id: int) -> None:
        """The chat was deleted: its files' passages go with it (the files themselves stay)."""
        self._failed.pop(conversation_id, None)
        collection = self.db.collection(collection_name(conversation_id))
        if collection is not None:
            self.db.remove_collection(collection)

    def close(self) -> None:
        self._cancel.set()
        self.pool.wait(5_000)

    def _progressed(self, conversation_id: int, progress: IndexProgress) -> None:
        waiting = self._reading.get(conversation_id)
        if not waiting or progress.current is None:
            if waiting and progress.phase == "embedding" and progress.chunks_total:
                text = tr("ChatFiles", "Indexing {done} of {total} passages…").format(
                    done=progress.chunks_embedded, total=progress.chunks_total
                )
                for path in waiting:
                    waiting[path] = text
                self.changed.emit(conversation_id)
            return
        if progress.current in waiting:
            waiting[progress.current] = tr("ChatFiles", "Reading…")
            self.changed.emit(conversation_id)

    def _done(self, conversation_id: int, files: list[Path], outcomes: list[FileOutcome]) -> None:
        waiting = self._reading.get(conversation_id, {})
        for path in files:
            waiting.pop(str(path), None)
        if not waiting:
            self._reading.pop(conversation_id, None)
        failed = self._failed.setdefault(conversation_id, {})
        for outcome in outcomes:
            if outcome.outcome == "skipped" and outcome.reason:
                failed[outcome.path] = outcome.reason
        self.changed.emit(conversation_id)


def _name(path: str) -> str:
    return Path(path).name or path
