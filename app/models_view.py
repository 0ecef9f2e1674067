"""Models: what is installed, whether each fits on this machine (before loading), and loading."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtGui import QColor, QDesktopServices
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.theme import Colors
from app.verdicts import Verdict, verdict_from_error, verdict_from_plan
from app.workers import WorkerPool
from engine.library import ModelEntry, scan_models
from engine.paths import models_dir, shown
from engine.planner import Plan
from engine.units import format_bytes

IMPORTED_SETTING = "imported_models"  # the paths the user imported, as a saved setting
COLUMNS = ("Model", "Format", "Size", "On this computer")
LEVEL_COLORS = {"ok": "ok", "warn": "warning_text", "bad": "error_text", "unknown": "muted"}

# (model id, on_done(plan), on_error(exception))
PlanFn = Callable[[str, Callable[[Plan], None], Callable[[BaseException], None]], None]


class ModelsView(QWidget):
    load_requested = Signal(str)
    imported_changed = Signal(list)  # the imported paths, to be saved
    back_requested = Signal()
    models_listed = Signal()
    verdicts_ready = Signal()

    def __init__(self, colors: Colors, plan: PlanFn) -> None:
        super().__init__()
        self.colors = colors
        self._plan = plan
        self.pool = WorkerPool("models", 1)
        self.entries: list[ModelEntry] = []
        self.verdicts: dict[str, Verdict] = {}
        self.imported: list[str] = []
        self.loaded_id: str | None = None  # the id the engine was asked to load
        self._scan_token = 0

        layout = QVBoxLayout(self)
        layout.setContentsMargins(28, 20, 28, 20)
        layout.setSpacing(10)
        header = QHBoxLayout()
        back = QPushButton("← Chat")
        back.setObjectName("Secondary")
        back.clicked.connect(self.back_requested)
        title = QLabel("<b style='font-size:15pt'>Models</b>")
        header.addWidget(back)
        header.addSpacing(8)
        header.addWidget(title)
        header.addStretch(1)
        self.refresh_button = QPushButton("Refresh")
        self.refresh_button.setObjectName("Secondary")
        self.refresh_button.clicked.connect(self.refresh)
        self.import_button = QPushButton("Import file…")
        self.import_button.setObjectName("Secondary")
        self.import_button.clicked.connect(self._import_dialog)
        self.folder_button = QPushButton("Open models folder")
        self.folder_button.setObjectName("Secondary")
        self.folder_button.clicked.connect(self._open_folder)
        for button in (self.refresh_button, self.import_button, self.folder_button):
            header.addWidget(button)
        layout.addLayout(header)
        intro = QLabel(
            "Cove checks each model against the memory that is free right now, before loading "
            f"it. Put GGUF files or ONNX model folders in {shown(models_dir())} or import them."
        )
        intro.setWordWrap(True)
        intro.setProperty("muted", True)
        layout.addWidget(intro)

        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.verticalHeader().setVisible(False)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setShowGrid(False)
        self.table.setWordWrap(False)
        head = self.table.horizontalHeader()
        head.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for col in (1, 2):
            head.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        head.setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        self.table.itemSelectionChanged.connect(self._show_details)
        self.table.itemDoubleClicked.connect(lambda _item: self._load_selected())
        layout.addWidget(self.table, 1)

        self.details = QLabel("")
        self.details.setWordWrap(True)
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.details)
        actions = QHBoxLayout()
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.progress.setVisible(False)
        self.cancel_button = QPushButton("Cancel loading")
        self.cancel_button.setObjectName("Secondary")
        self.cancel_button.setVisible(False)
        self.load_button = QPushButton("Load")
        self.load_button.setObjectName("Primary")
        self.load_button.setEnabled(False)
        self.load_button.clicked.connect(self._load_selected)
        actions.addWidget(self.progress, 1)
        actions.addWidget(self.cancel_button)
        actions.addStretch(0)
        actions.addWidget(self.load_button)
        layout.addLayout(actions)

    # -- listing -------------------------------------------------------------------------------

    def set_imported(self, paths: Sequence[str]) -> None:
        self.imported = list(paths)

    def refresh(self) -> None:
        """Scan the disk off the UI thread, then ask the engine for a plan per model."""
        self._scan_token += 1
        token = self._scan_token
        imported = list(self.imported)
        self.pool.submit(
            lambda: scan_models(imported=imported),
            lambda entries: self._listed(token, entries),
            lambda exc: self.details.setText(f"Could not list the models: {exc}"),
        )

    def _listed(self, token: int, entries: list[ModelEntry]) -> None:
        if token != self._scan_token:
            return
        self.entries = entries
        self.verdicts = {}
        self.table.setRowCount(len(entries))
        for row, entry in enumerate(entries):
            name = entry.name
            if entry.id == self.loaded_id:
                name += "  ● loaded"
            kind = f"{entry.kind} {entry.quantization}".strip()
            cells = (name, kind, format_bytes(entry.size_bytes), "Checking…")
            for col, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(where(entry) if col == 0 else text)
                self.table.setItem(row, col, item)
        if entries and not self.table.selectedItems():
            self.table.selectRow(0)
        self.models_listed.emit()
        self._request_plans(token)

    def _request_plans(self, token: int) -> None:
        for entry in self.entries:
            model_id = entry.id

            def done(plan: Plan, model_id: str = model_id) -> None:
                self._set_verdict(token, model_id, verdict_from_plan(plan))

            def failed(exc: BaseException, model_id: str = model_id) -> None:
                self._set_verdict(token, model_id, verdict_from_error(str(exc)))

            self._plan(model_id, done, failed)

    def _set_verdict(self, token: int, model_id: str, verdict: Verdict) -> None:
        if token != self._scan_token:
            return
        self.verdicts[model_id] = verdict
        for row, entry in enumerate(self.entries):
            if entry.id == model_id:
                item = QTableWidgetItem(verdict.text)
                item.setToolTip("\n".join(verdict.details) or verdict.text)
                color = getattr(self.colors, LEVEL_COLORS[verdict.level])
                item.setForeground(QColor(color))
                self.table.setItem(row, 3, item)
        self._show_details()
        if len(self.verdicts) == len(self.entries):
            self.verdicts_ready.emit()

    def set_colors(self, colors: Colors) -> None:
        self.colors = colors
        for row, entry in enumerate(self.entries):
            verdict = self.verdicts.get(entry.id)
            item = self.table.item(row, 3)
            if verdict is not None and item is not None:
                item.setForeground(QColor(getattr(colors, LEVEL_COLORS[verdict.level])))

    def selected(self) -> ModelEntry | None:
        rows = {index.row() for index in self.table.selectedIndexes()}
        if len(rows) != 1:
            return None
        row = rows.pop()
        return self.entries[row] if row < len(self.entries) else None

    def _show_details(self) -> None:
        entry = self.selected()
        if entry is None:
            self.details.setText("")
            self.load_button.setEnabled(False)
            return
        verdict = self.verdicts.get(entry.id)
        kind = f"{entry.kind} {entry.quantization}".strip()
        lines = [f"<b>{entry.name}</b> — {kind}, {format_bytes(entry.size_bytes)}"]
        lines.append(f"<span style='color:{self.colors.muted}'>{where(entry)}</span>")
        if entry.tensor_types:
            mix = f"Tensor types: {entry.tensor_types}"
            lines.append(f"<span style='color:{self.colors.muted}'>{mix}</span>")
        if verdict is not None:
            lines.append(verdict.text)
            lines += [
                f"<span style='color:{self.colors.muted}'>{d}</span>" for d in verdict.details
            ]
        self.details.setText("<br>".join(lines))
        self.load_button.setEnabled(verdict is not None and verdict.level != "bad")
        if verdict is not None and verdict.level == "bad":
            self.load_button.setToolTip("This model does not fit in the memory that is free.")
        else:
            self.load_button.setToolTip("")

    # -- loading -------------------------------------------------------------------------------

    def _load_selected(self) -> None:
        entry = self.selected()
        if entry is not None and self.load_button.isEnabled():
            self.load_requested.emit(entry.id)

    def show_loading(self, loading: bool) -> None:
        self.progress.setVisible(loading)
        self.cancel_button.setVisible(loading)
        self.load_button.setEnabled(not loading and self.selected() is not None)
        if loading:
            self.progress.setValue(0)

    def set_progress(self, fraction: float) -> None:
        self.progress.setValue(round(max(0.0, min(1.0, fraction)) * 1000))

    def set_loaded(self, model_id: str | None) -> None:
        self.loaded_id = model_id
        for row, entry in enumerate(self.entries):
            item = self.table.item(row, 0)
            if item is not None:
                loaded = model_id is not None and entry.id == model_id
                item.setText(entry.name + ("  ● loaded" if loaded else ""))

    # -- importing -----------------------------------------------------------------------------

    def import_paths(self, paths: Sequence[str]) -> None:
        """Register model files or folders where they are (nothing is copied)."""
        added = [p for p in paths if p and p not in self.imported]
        if not added:
            return
        self.imported += added
        self.imported_changed.emit(list(self.imported))
        self.refresh()

    def _import_dialog(self) -> None:
        path, _filter = QFileDialog.getOpenFileName(
            self,
            "Import a model",
            str(Path.home()),
            "GGUF models (*.gguf);;ONNX model config (genai_config.json)",
        )
        if path:
            chosen = Path(path)
            self.import_paths([str(chosen.parent if chosen.name == "genai_config.json" else path)])

    def _open_folder(self) -> None:
        folder = models_dir()
        folder.mkdir(parents=True, exist_ok=True)
        QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder)))


def where(entry: ModelEntry) -> str:
    """Where a model lives, as the user knows it: the starter ships inside Cove."""
    if entry.source == "starter":
        return f"Built into Cove ({entry.path.name})"
    return shown(entry.path)
