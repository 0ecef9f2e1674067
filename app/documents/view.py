"""Documents: collections of the user's files, each file's state (indexed, needs OCR, skipped and
why), adding files and folders with progress, time left and cancel, and asking a collection.

Indexing runs on a worker thread in the window's process (reading and chunking need no runtime);
vectors come from the engine host's embedding model through its API. Until the host has one,
files are indexed for keyword search and their vectors are added later, where indexing stopped.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, Qt, QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QLineEdit,
    QListWidget,
    QProgressBar,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from app.common.chat_collections import is_chat_collection
from app.common.i18n import tr
from app.common.idle_runner import IdleRunner
from app.common.open_source import open_source
from app.common.page_header import page_header
from app.common.workers import WorkerPool
from app.documents.folder_updates import FolderUpdates
from app.documents.words import columns, display_path, escape, outcome_count, status_word
from engine.documents import (
    Collection,
    Encoder,
    FileOutcome,
    FileRecord,
    IndexDB,
    Indexer,
    IndexProgress,
    Retriever,
    Source,
    ocr_installed,
)

DOCUMENT_PATTERNS = "*.pdf *.docx *.md *.markdown *.txt *.html *.htm"


# Gives the encoder to index and ask with, or None (keyword search only); may block: it is
# called on a worker thread.
EncoderSource = Callable[[], Encoder | None]


class _Relay(QObject):
    progressed = Signal(object)  # IndexProgress, from the indexing thread


class DocumentsView(QWidget):
    indexing_finished = Signal(list)  # list[FileOutcome]
    answered = Signal(list)  # list[Source]
    back_requested = Signal()
    collections_changed = Signal(list)  # list[str], the collections' names
    folders_updated = Signal(str, list)  # a collection brought up to date: (name, outcomes)

    def __init__(
        self,
        db: IndexDB | None = None,
        encoder: EncoderSource = lambda: None,
        idle: IdleRunner | None = None,
    ) -> None:
        super().__init__()
        self.db = db or IndexDB()
        self._encoder = encoder
        # Catching up with watched folders waits for a quiet computer (app/common/idle_runner.py).
        self.idle = idle or IdleRunner(self)
        self.idle.setParent(self)
        self.pool = WorkerPool("documents", 1)
        # Asking has its own worker, so that a question asked while indexing runs is answered
        # from what is indexed so far (and says so) rather than after it.
        self.ask_pool = WorkerPool("documents-ask", 1)
        self._cancel: threading.Event | None = None
        self._indexing: str | None = None  # the collection files are being added to
        self._relay = _Relay()
        self._relay.progressed.connect(self._show_progress, Qt.ConnectionType.QueuedConnection)
        self.collection: Collection | None = None
        self.records: list[FileRecord] = []
        self._shown_sources: list[Source] = []

        layout = QVBoxLayout(self)
        layout.setContentsMargins(28, 20, 28, 20)
        layout.setSpacing(10)
        layout.addLayout(page_header(tr("Documents", "Documents"), self.back_requested))

        body = QHBoxLayout()
        left = QVBoxLayout()
        self.collections = QListWidget()
        self.collections.setMaximumWidth(220)
        self.new_button = QPushButton(tr("Documents", "New collection…"))
        self.new_button.setObjectName("Secondary")
        self.watch_line = QLabel("")
        self.watch_line.setObjectName("Muted")
        self.watch_line.setWordWrap(True)
        left.addWidget(QLabel(tr("Documents", "Collections")))
        left.addWidget(self.collections, 1)
        left.addWidget(self.watch_line)
        left.addWidget(self.new_button)
        body.addLayout(left)

        right = QVBoxLayout()
        actions = QHBoxLayout()
        self.add_files_button = QPushButton(tr("Documents", "Add files…"))
        self.add_folder_button = QPushButton(tr("Documents", "Add folder…"))
        self.remove_button = QPushButton(tr("Documents", "Remove"))
        for button in (self.add_files_button, self.add_folder_button, self.remove_button):
            button.setObjectName("Secondary")
            actions.addWidget(button)
        actions.addStretch(1)
        self.ocr_box = QCheckBox(tr("Documents", "Read scanned pages (OCR)"))
        self.ocr_box.setToolTip(
            tr(
                "Documents",
                "Read PDF pages that are pictures of text (scans) by OCR. Slower: seconds a page. "
                "Add the files again to read their scanned pages.",
            )
        )
        if not ocr_installed():
            self.ocr_box.setEnabled(False)
            self.ocr_box.setToolTip(
                tr("Documents", "Needs Cove's OCR extra: {command}").format(
                    command="pip install 'cove[ocr]'"
                )
            )
        actions.addWidget(self.ocr_box)
        right.addLayout(actions)
        headers = columns()
        self.table = QTableWidget(0, len(headers))
        self.table.setHorizontalHeaderLabels(headers)
        self.table.verticalHeader().setVisible(False)
        self.table.setWordWrap(False)
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        head = self.table.horizontalHeader()
        head.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        head.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        progress_row = QHBoxLayout()
        self.progress = QProgressBar()
        self.progress.setTextVisible(False)
        self.progress.setMaximumHeight(8)
        self.cancel_button = QPushButton(tr("Documents", "Cancel"))
        self.cancel_button.setObjectName("Secondary")
        progress_row.addWidget(self.progress, 1)
        progress_row.addWidget(self.cancel_button)
        right.addLayout(progress_row)
        self.status = QLabel("")
        self.status.setObjectName("Muted")
        self.status.setWordWrap(True)
        right.addWidget(self.status)
        ask = QWidget()
        ask_layout = QVBoxLayout(ask)
        ask_layout.setContentsMargins(0, 8, 0, 0)
        self.question = QLineEdit()
        self.question.setPlaceholderText(tr("Documents", "Ask this collection… (Enter)"))
        self.question.setAccessibleName(tr("Documents", "Ask this collection"))
        ask_layout.addWidget(self.question)
        self.sources = QTextBrowser()
        self.sources.setOpenLinks(False)
        self.sources.anchorClicked.connect(self._open_source)
        self.sources.setPlaceholderText(
            tr("Documents", "The passages that answer it, with file and page.")
        )
        ask_layout.addWidget(self.sources, 1)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.table)
        split.addWidget(ask)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        split.setChildrenCollapsible(False)
        right.insertWidget(1, split, 1)
        body.addLayout(right, 1)
        layout.addLayout(body, 1)

        self.new_button.clicked.connect(self._new_collection)
        self.collections.currentTextChanged.connect(self.select)
        self.add_files_button.clicked.connect(self._add_files)
        self.add_folder_button.clicked.connect(self._add_folder)
        self.remove_button.clicked.connect(self.remove_selected)
        self.cancel_button.clicked.connect(self.cancel)
        self.question.returnPressed.connect(lambda: self.ask(self.question.text()))
        self.updates = FolderUpdates(
            self.db,
            self.pool,
            self.idle,
            self._encoder,
            (self.watch_line, self.status),
            lambda: self.collection.name if self.collection is not None else None,
            self._show_files,
            self.folders_updated.emit,
            self,
        )
        self._show_busy(False)
        self.refresh()

    # -- watched folders (folder_updates.py) -------------------------------------------------

    def start_watching(self) -> None:
        self.updates.start()

    def stop_watching(self) -> None:
        self.updates.stop()

    # -- collections ---------------------------------------------------------------------------

    def refresh(self) -> None:
        # A chat's own files are that chat's (app/chat/chat_files.py), not a collection to list.
        names = [c.name for c in self.db.collections() if not is_chat_collection(c.name)]
        self.collections_changed.emit(names)
        current = self.collection.name if self.collection else None
        self.collections.blockSignals(True)
        self.collections.clear()
        self.collections.addItems(names)
        self.collections.blockSignals(False)
        if current in names:
            self.collections.setCurrentRow(names.index(current))
        elif names:
            self.collections.setCurrentRow(0)
        self.select(self.collections.currentItem().text() if self.collections.currentItem() else "")

    def new_collection(self, name: str) -> None:
        name = name.strip()
        if not name:
            return
        self.collection = self.db.collection(name, create=True)
        self.refresh()

    def select(self, name: str) -> None:
        self.collection = self.db.collection(name) if name else None
        enabled = self.collection is not None
        for widget in (self.add_files_button, self.add_folder_button, self.question):
            widget.setEnabled(enabled)
        self._show_files()

    def _show_files(self) -> None:
        self.records = self.db.files(self.collection) if self.collection else []
        sources = self.db.sources(self.collection) if self.collection else []
        self.table.setRowCount(len(self.records))
        for row, record in enumerate(self.records):
            state = status_word(record.status)
            if record.reason:
                state = tr("Documents", "{state}: {reason}").format(
                    state=state, reason=record.reason
                )
            cells = (
                display_path(record.path, sources),
                state,
                str(record.chunks) if record.chunks else "",
                str(record.pages) if record.pages else "",
            )
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(record.path if column == 0 else text)
                self.table.setItem(row, column, item)
        if self.collection is None:
            self.status.setText(
                tr("Documents", "Make a collection, then add files or folders to it.")
            )
        elif not self.records:
            self.status.setText(
                tr("Documents", "Add files or folders: PDF, Word, Markdown, HTML and text.")
            )

    # -- indexing ------------------------------------------------------------------------------

    def add_paths(self, paths: list[Path]) -> None:
        if self.collection is None or not paths or self._cancel is not None:
            return
        collection, cancel = self.collection, threading.Event()
        self._cancel = cancel
        self._indexing = collection.name
        self._show_busy(True)
        self.status.setText(
            tr("Documents", "Reading 1 item…")
            if len(paths) == 1
            else tr("Documents", "Reading {n} items…").format(n=len(paths))
        )

        ocr = self.ocr_box.isChecked()

        def job() -> list[FileOutcome]:
            encoder = self._encoder()
            indexer = Indexer(
                self.db,
                collection,
                encoder,
                progress=self._relay.progressed.emit,
                cancel=cancel,
                ocr=ocr,
            )
            return indexer.add(paths)

        self.pool.submit(job, self._indexed, self._failed)

    def indexing(self, name: str) -> bool:
        """Whether files are being added to collection ``name`` now (from any thread)."""
        return self._indexing == name

    def cancel(self) -> None:
        if self._cancel is not None:
            self._cancel.set()
            self.status.setText(
                tr("Documents", "Stopping… what was read is kept; adding the same files resumes.")
            )

    def remove_selected(self) -> None:
        if self.collection is None:
            return
        rows = sorted({i.row() for i in self.table.selectedIndexes()})
        for row in rows:
            self.db.remove_source(self.collection, self.records[row].path)
        self.updates.update_watched()
        self._show_files()

    def _indexed(self, outcomes: list[FileOutcome]) -> None:
        self._cancel = self._indexing = None
        self.updates.update_watched()  # a folder added is watched from now on
        if self.collection is not None:  # indexing may have set its encoder
            self.collection = self.db.collection(self.collection.name)
        self._show_busy(False)
        counts: dict[str, int] = {}
        for outcome in outcomes:
            counts[outcome.outcome] = counts.get(outcome.outcome, 0) + 1
        self.status.setText(
            ", ".join(outcome_count(kind, n) for kind, n in counts.items())
            or tr("Documents", "Nothing to add.")
        )
        self._show_files()
        self.indexing_finished.emit(outcomes)

    def _failed(self, exc: BaseException) -> None:
        self._cancel = self._indexing = None
        self._show_busy(False)
        self.status.setText(str(exc))
        self._show_files()
        self.indexing_finished.emit([])

    def _show_progress(self, progress: IndexProgress) -> None:
        if progress.phase == "reading" and progress.files_total:
            self.progress.setRange(0, progress.files_total)
            self.progress.setValue(progress.files_done)
            name = Path(progress.current).name if progress.current else ""
            reading = (
                tr("Documents", "Reading {at} of {total}: {name} ({rate} pages a second)")
                if progress.rate
                else tr("Documents", "Reading {at} of {total}: {name}")
            )
            self.status.setText(
                reading.format(
                    at=progress.files_done + 1,
                    total=progress.files_total,
                    name=name,
                    rate=f"{progress.rate or 0:.0f}",
                )
            )
        elif progress.phase == "embedding" and progress.chunks_total:
            self.progress.setRange(0, progress.chunks_total)
            self.progress.setValue(progress.chunks_embedded)
            if progress.rate and progress.eta_s:
                said = tr(
                    "Documents",
                    "Indexing meaning: {done} of {total} passages ({rate} a second), about "
                    "{eta} s left",
                )
            elif progress.rate:
                said = tr(
                    "Documents", "Indexing meaning: {done} of {total} passages ({rate} a second)"
                )
            elif progress.eta_s:
                said = tr(
                    "Documents", "Indexing meaning: {done} of {total} passages, about {eta} s left"
                )
            else:
                said = tr("Documents", "Indexing meaning: {done} of {total} passages")
            self.status.setText(
                said.format(
                    done=progress.chunks_embedded,
                    total=progress.chunks_total,
                    rate=f"{progress.rate or 0:.0f}",
                    eta=f"{progress.eta_s or 0:.0f}",
                )
            )

    def _show_busy(self, busy: bool) -> None:
        self.progress.setVisible(busy)
        self.cancel_button.setVisible(busy)
        self.progress.setRange(0, 0)

    # -- asking --------------------------------------------------------------------------------

    def ask(self, question: str) -> None:
        if self.collection is None or not question.strip():
            return
        collection = self.collection
        indexing = self._indexing == collection.name or self.updates.updating > 0

        def job() -> tuple[list[Source], bool, bool]:
            encoder = self._encoder()
            sources = Retriever(self.db, collection, encoder).search(question, 5)
            pending = self.db.count_unembedded(collection) if encoder is not None else 0
            partial = indexing or pending > 0
            return sources, partial, encoder is None

        def failed(exc: BaseException) -> None:
            self.sources.setHtml(f"<p>{escape(str(exc))}</p>")
            self.answered.emit([])

        self.ask_pool.submit(job, lambda found: self._show_sources(*found), failed)

    def _show_sources(
        self, sources: list[Source], partial: bool = False, keywords_only: bool = False
    ) -> None:
        notes = []
        if partial:
            notes.append(
                tr(
                    "Documents",
                    "The collection is still being indexed: these are from what is read so far.",
                )
            )
        if keywords_only:
            notes.append(
                tr(
                    "Documents",
                    "Searching by keywords only: no embedding model yet (get {model} under "
                    "Models to search by meaning).",
                ).format(model="all-MiniLM-L6-v2")
            )
        items = [f"<p><i>{escape(n)}</i></p>" for n in notes]
        if not sources:
            items.append("<p>" + tr("Documents", "Nothing in this collection matches.") + "</p>")
        self._shown_sources = sources
        for n, source in enumerate(sources, 1):
            where = Path(source.path).name
            if source.page:
                where = tr("Documents", "{file}, page {page}").format(file=where, page=source.page)
            heading = f" — {source.heading}" if source.heading else ""
            if source.sentence:  # the sentence that answers, as the reader finds it
                quote = " ".join(source.sentence.split())[:220]
                excerpt = f"… <b>{escape(quote)}</b> …"
            else:
                excerpt = escape(" ".join(source.text.split())[:220])
            items.append(
                f"<p><b>[{n}]</b> <a href='source:{n}'>{escape(where)}</a>{escape(heading)}<br>"
                f"<span>{excerpt}</span></p>"
            )
        self.sources.setHtml("".join(items))
        self.answered.emit(sources)

    def _open_source(self, link: QUrl) -> None:
        text = link.toString()
        if text.startswith("source:"):
            n = int(text.removeprefix("source:"))
            if 1 <= n <= len(self._shown_sources):
                source = self._shown_sources[n - 1]
                open_source(source.path, source.page)
            return
        QDesktopServices.openUrl(link)

    # -- dialogs -------------------------------------------------------------------------------

    def _new_collection(self) -> None:
        name, ok = QInputDialog.getText(
            self, tr("Documents", "New collection"), tr("Documents", "Name:")
        )
        if ok:
            self.new_collection(name)

    def _add_files(self) -> None:
        paths, _ = QFileDialog.getOpenFileNames(
            self,
            tr("Documents", "Add files"),
            str(Path.home()),
            tr("Documents", "Documents ({patterns})").format(patterns=DOCUMENT_PATTERNS)
            + ";;"
            + tr("Documents", "All files ({patterns})").format(patterns="*"),
        )
        self.add_paths([Path(p) for p in paths])

    def _add_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(
            self, tr("Documents", "Add a folder"), str(Path.home())
        )
        if folder:
            self.add_paths([Path(folder)])
