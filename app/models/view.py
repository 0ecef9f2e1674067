"""Models: what is installed, whether each fits on this machine (before loading) and how fast it
replies here (measured once it has run here, predicted before), and loading."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtGui import QColor, QDesktopServices
from PySide6.QtWidgets import (
    QMessageBox,
    QPushButton,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from app.common.i18n import tr
from app.common.page_header import page_header
from app.common.theme import Colors
from app.common.verdicts import Verdict, verdict_from_error, verdict_from_plan
from app.common.workers import WorkerPool
from app.models.compare import CompareDialog, ScorerFn, UnloadFn
from app.models.download_controller import DownloadController
from app.models.downloads import DownloadsView
from app.models.installed_tab import SPEED_COLUMN, VERDICT_COLUMN, InstalledTab
from app.models.model_files import ModelFiles
from app.models.model_words import (
    details_html,
    downloads_tab_text,
    format_text,
    format_tip,
    loaded_mark,
    speed_tip,
    where,
)
from engine.client import ResidentModel
from engine.hardware.report import HardwareReport
from engine.library import (
    ModelEntry,
    PartialDownload,
    list_partials,
    other_builds,
    processes_using,
    scan_models,
)
from engine.paths import models_dir
from engine.planner import Plan
from engine.speed import DEFAULT_COMFORTABLE_TPS
from engine.units import format_bytes

if TYPE_CHECKING:
    from engine.speed import ModelSpeed

log = logging.getLogger(__name__)

IMPORTED_SETTING = "imported_models"  # the paths the user imported, as a saved setting
LEVEL_COLORS = {"ok": "ok", "warn": "warning_text", "bad": "error_text", "unknown": "muted"}

# (model id, on_done(plan), on_error(exception))
PlanFn = Callable[[str, Callable[[Plan], None], Callable[[BaseException], None]], None]


class ModelsView(QWidget):
    load_requested = Signal(str)
    unload_requested = Signal(str)  # a model in memory, by name
    imported_changed = Signal(list)  # the imported paths, to be saved
    back_requested = Signal()
    models_listed = Signal()
    model_deleted = Signal(object)  # engine.library.installed.Removed
    delete_failed = Signal(str)  # the model's id; the reason is in the details line
    verdicts_ready = Signal()
    speeds_ready = Signal()  # every planned model's speed is shown (or known to be unknown)
    discover_shown = Signal()  # the Discover tab came into view

    def __init__(
        self,
        colors: Colors,
        plan: PlanFn,
        downloads: DownloadController | None = None,
        *,
        in_use: Callable[[Path], list[int]] = processes_using,
        scorer: ScorerFn | None = None,
        unload_now: UnloadFn | None = None,
    ) -> None:
        super().__init__()
        # This computer's engine for Compare quality (None: not offered), and how a measured
        # build is let go.
        self._scorer, self._unload_now = scorer, unload_now
        self.compare_dialog: CompareDialog | None = None
        self.compare_pool = WorkerPool("compare", 1)
        self.compare_task: Path | None = None  # None: the everyday questions Cove ships
        self.colors = colors
        self._plan = plan
        self.downloads = downloads or DownloadController()
        self._in_use = in_use  # which processes have a model file open (refuses a delete)
        # asks the user to confirm a delete: (title, question) -> yes
        self.confirm: Callable[[str, str], bool] = self._ask
        self.pool = WorkerPool("models", 1)
        # Imports and unfinished downloads (app/models/model_files.py).
        self.files = ModelFiles(
            self,
            self.pool,
            self.downloads,
            self.say,
            self.refresh,
            self.imported_changed.emit,
            lambda: self.tabs.setCurrentWidget(self.downloads_view),
        )
        self.entries: list[ModelEntry] = []
        self.verdicts: dict[str, Verdict] = {}
        self.plans: dict[str, Plan] = {}
        self.speeds: dict[str, ModelSpeed] = {}
        self._speeds_pending: set[str] = set()
        self.report: HardwareReport | None = None  # with its speed profile: speeds are shown
        self.comfortable_tps = DEFAULT_COMFORTABLE_TPS  # slower speeds are shown as a warning
        self.loaded_id: str | None = None  # the id the engine was asked to load
        # Why nothing loads here: another computer's engine is in use (None: this computer's).
        self.remote_note: str | None = None
        self._scan_token = 0

        layout = QVBoxLayout(self)
        layout.setContentsMargins(28, 20, 28, 20)
        layout.setSpacing(10)
        header = page_header(tr("Models", "Models"), self.back_requested)
        self.refresh_button = QPushButton(tr("Models", "Refresh"))
        self.refresh_button.setObjectName("Secondary")
        self.refresh_button.clicked.connect(self.refresh)
        self.import_button = QPushButton(tr("Models", "Import file…"))
        self.import_button.setObjectName("Secondary")
        self.import_button.clicked.connect(lambda: self.files.import_dialog())
        self.folder_button = QPushButton(tr("Models", "Open models folder"))
        self.folder_button.setObjectName("Secondary")
        self.folder_button.clicked.connect(self._open_folder)
        for button in (self.refresh_button, self.import_button, self.folder_button):
            header.addWidget(button)
        layout.addLayout(header)
        # The Discover tab (the catalog) is built elsewhere and added with set_discover_tab().
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        self.installed_tab = InstalledTab(compare_offered=scorer is not None)
        self.downloads_view = DownloadsView(self.downloads)
        self.tabs.addTab(self.installed_tab, tr("Models", "Installed"))
        self.tabs.addTab(self.downloads_view, tr("Models", "Downloads"))
        layout.addWidget(self.tabs, 1)
        self._wire_installed(self.installed_tab)

        self.downloads.download_added.connect(lambda _d: self._update_downloads_tab())
        self.downloads.download_progressed.connect(lambda _d, _p: self._update_downloads_tab())
        self.downloads.download_finished.connect(lambda _d, _p: self.refresh())
        self.downloads_view.chat_requested.connect(self._chat_with)

    def set_discover_tab(self, widget: QWidget) -> None:
        """The place for the catalog: a Discover tab before Installed."""
        self.tabs.insertTab(0, widget, tr("Models", "Discover"))
        self.tabs.setCurrentIndex(self.tabs.indexOf(self.installed_tab))
        self.tabs.currentChanged.connect(
            lambda i: self.discover_shown.emit() if self.tabs.widget(i) is widget else None
        )

    def _wire_installed(self, tab: InstalledTab) -> None:
        """The Installed tab's widgets, under the names the page has always given them."""
        self.residents, self.table, self.details = tab.residents, tab.table, tab.details
        self.message, self.progress, self.cancel_button = (
            tab.message,
            tab.progress,
            tab.cancel_button,
        )
        self.delete_button, self.load_button = tab.delete_button, tab.load_button
        self.compare_button, self.partials_title, self.partials = (
            tab.compare_button,
            tab.partials_title,
            tab.partials,
        )
        self.residents.unload_requested.connect(self.unload_requested)
        self.table.itemSelectionChanged.connect(self._show_details)
        self.table.itemDoubleClicked.connect(lambda _item: self._load_selected())
        self.delete_button.clicked.connect(self.delete_selected)
        self.load_button.clicked.connect(self._load_selected)
        self.compare_button.clicked.connect(self.compare_selected)
        self.partials.resume_requested.connect(self.files.resume_partial)
        self.partials.discard_requested.connect(self.discard_partial)

    # -- listing -------------------------------------------------------------------------------

    def set_imported(self, paths: Sequence[str]) -> None:
        self.files.imported = list(paths)

    def refresh(self) -> None:
        """Scan the disk off the UI thread, then ask the engine for a plan per model."""
        self._scan_token += 1
        token = self._scan_token
        imported = list(self.files.imported)
        self.pool.submit(
            lambda: (scan_models(imported=imported), list_partials(models_dir())),
            lambda found: self._listed(token, *found),
            lambda exc: self.details.setText(
                tr("Models", "Could not list the models: {error}").format(error=exc)
            ),
        )

    def _listed(
        self, token: int, entries: list[ModelEntry], partials: list[PartialDownload]
    ) -> None:
        if token != self._scan_token:
            return
        self._show_partials(partials)
        self.entries = entries
        self.verdicts = {}
        self.plans, self.speeds, self._speeds_pending = {}, {}, set()
        self.table.setRowCount(len(entries))
        for row, entry in enumerate(entries):
            name = entry.name
            if entry.id == self.loaded_id:
                name += loaded_mark()
            checking = tr("Models", "Checking…")
            cells = (name, format_text(entry), format_bytes(entry.size_bytes), checking, "")
            for col, text in enumerate(cells):
                item = QTableWidgetItem(text)
                tips = {0: where(entry), 1: format_tip(entry)}
                item.setToolTip(tips.get(col, text))
                self.table.setItem(row, col, item)
        if entries and not self.table.selectedItems():
            self.table.selectRow(0)
        self.models_listed.emit()
        self._request_plans(token)

    def _request_plans(self, token: int) -> None:
        if self.remote_note is not None:  # nothing is planned for this computer meanwhile
            unplanned = Verdict(
                tr("Models", "Not checked: another computer's engine is in use"),
                "unknown",
                (self.remote_note,),
            )
            for entry in self.entries:
                self._set_verdict(token, entry.id, unplanned)
            return
        for entry in self.entries:
            model_id = entry.id

            def done(plan: Plan, model_id: str = model_id) -> None:
                if token == self._scan_token:
                    self.plans[model_id] = plan
                self._request_speed(token, model_id)
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
                self.table.setItem(row, VERDICT_COLUMN, item)
        self._show_details()
        if len(self.verdicts) == len(self.entries):
            self.verdicts_ready.emit()
            self._speeds_done()

    # -- speeds --------------------------------------------------------------------------------

    def set_report(self, report: HardwareReport) -> None:
        """This computer, as the engine's probe saw it: with a speed profile, each planned model's
        speed follows, and a repository's file is chosen by what fits here."""
        self.report = report
        self.downloads.report = report
        for model_id in list(self.plans):
            self._request_speed(self._scan_token, model_id)

    def set_comfortable(self, tps: float) -> None:
        """The reply speed the user asked for (Discover's setting): slower ones are marked."""
        self.comfortable_tps = tps
        self._color_speeds()

    def _request_speed(self, token: int, model_id: str) -> None:
        """Measured here once it has run here, else predicted from its header and plan: a small
        read of the file, so on the pool, never on the UI thread."""
        from engine.speed import model_speed

        report, plan = self.report, self.plans.get(model_id)
        entry = next((e for e in self.entries if e.id == model_id), None)
        if token != self._scan_token or report is None or report.speed is None:
            return
        if plan is None or entry is None:
            return
        self._speeds_pending.add(model_id)
        path = entry.path
        self.pool.submit(
            lambda: model_speed(path, report, plan),
            lambda speed: self._set_speed(token, model_id, speed),
            lambda exc: self._speed_failed(token, model_id, exc),
        )

    def _speed_failed(self, token: int, model_id: str, exc: BaseException) -> None:
        # A speed is a nicety beside the verdict: the cell stays empty and the reason is logged.
        log.warning("no speed for %s: %s", model_id, exc)
        self._set_speed(token, model_id, None)

    def _set_speed(self, token: int, model_id: str, speed: ModelSpeed | None) -> None:
        if token != self._scan_token:
            return
        self._speeds_pending.discard(model_id)
        if speed is not None:
            self.speeds[model_id] = speed
        else:
            self.speeds.pop(model_id, None)
        for row, entry in enumerate(self.entries):
            if entry.id == model_id:
                item = QTableWidgetItem(speed.words if speed is not None else "")
                item.setToolTip(speed_tip(speed) if speed is not None else "")
                self.table.setItem(row, SPEED_COLUMN, item)
        self._color_speeds()
        self._show_details()
        self._speeds_done()

    def _speeds_done(self) -> None:
        """Every model has its verdict and every speed asked for has come."""
        if self.report is None or self.report.speed is None or self._speeds_pending:
            return
        if len(self.verdicts) == len(self.entries):
            self.speeds_ready.emit()

    def _color_speeds(self) -> None:
        for row, entry in enumerate(self.entries):
            speed = self.speeds.get(entry.id)
            item = self.table.item(row, SPEED_COLUMN)
            if speed is not None and item is not None:
                slow = speed.decode_tps < self.comfortable_tps
                item.setForeground(QColor(self.colors.warning_text if slow else self.colors.text))

    def set_colors(self, colors: Colors) -> None:
        self.colors = colors
        for row, entry in enumerate(self.entries):
            verdict = self.verdicts.get(entry.id)
            item = self.table.item(row, VERDICT_COLUMN)
            if verdict is not None and item is not None:
                item.setForeground(QColor(getattr(colors, LEVEL_COLORS[verdict.level])))
        self._color_speeds()

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
            self.delete_button.setEnabled(False)
            self.compare_button.setEnabled(False)
            return
        self._offer_compare(entry)
        verdict = self.verdicts.get(entry.id)
        speed = self.speeds.get(entry.id)
        self.details.setText(details_html(entry, verdict, speed, self.colors))
        self.delete_button.setEnabled(entry.source == "folder")
        self.delete_button.setToolTip(
            ""
            if entry.source == "folder"
            else tr("Models", "Cove deletes only the models in its models folder.")
        )
        self.load_button.setEnabled(verdict is not None and verdict.level != "bad")
        if self.remote_note is not None:
            self.load_button.setEnabled(False)
            self.load_button.setToolTip(self.remote_note)
        elif verdict is not None and verdict.level == "bad":
            self.load_button.setToolTip(
                tr("Models", "This model does not fit in the memory that is free.")
            )
        else:
            self.load_button.setToolTip("")

    # -- comparing builds ----------------------------------------------------------------------

    def _offer_compare(self, entry: ModelEntry) -> None:
        builds = other_builds(entry, self.entries)
        self.compare_button.setEnabled(bool(builds) and self.remote_note is None)
        if self.remote_note is not None:
            tip = self.remote_note
        elif builds:
            tip = tr("Models", "How much {name} loses in another build: both answer the same "
                     "questions").format(name=entry.name)  # fmt: skip
        else:
            tip = tr("Models", "Needs a second build of this model (another quantization).")
        self.compare_button.setToolTip(tip)

    def compare_selected(self) -> CompareDialog | None:
        """Open Compare quality for the selected model and its other builds (shown, not run:
        the person starts it)."""
        entry = self.selected()
        if entry is None or self._scorer is None or not self.compare_button.isEnabled():
            return None
        dialog = CompareDialog(entry, other_builds(entry, self.entries), self._scorer,
                               unload=self._unload_now, keep=self.loaded_id,
                               task_path=self.compare_task, pool=self.compare_pool,
                               parent=self)  # fmt: skip
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.compare_dialog = dialog
        dialog.destroyed.connect(lambda _o=None: setattr(self, "compare_dialog", None))
        dialog.open()
        return dialog

    # -- loading -------------------------------------------------------------------------------

    def _load_selected(self) -> None:
        entry = self.selected()
        if entry is not None and self.load_button.isEnabled():
            self.load_requested.emit(entry.id)

    def set_remote(self, note: str | None) -> None:
        """Another computer's engine is in use: the models here are neither planned nor loaded
        (``note`` says why); None: this computer's again."""
        self.remote_note = note
        self.refresh()

    def show_loading(self, loading: bool) -> None:
        self.progress.setVisible(loading)
        self.cancel_button.setVisible(loading)
        self.load_button.setEnabled(
            not loading and self.selected() is not None and self.remote_note is None
        )
        if loading:
            self.progress.setValue(0)

    def set_progress(self, fraction: float) -> None:
        self.progress.setValue(round(max(0.0, min(1.0, fraction)) * 1000))

    def set_residents(self, residents: Sequence[ResidentModel]) -> None:
        """The models in memory, from the engine's status."""
        self.residents.set_residents(residents)

    def set_loaded(self, model_id: str | None) -> None:
        self.loaded_id = model_id
        for row, entry in enumerate(self.entries):
            item = self.table.item(row, 0)
            if item is not None:
                loaded = model_id is not None and entry.id == model_id
                item.setText(entry.name + (loaded_mark() if loaded else ""))

    def _chat_with(self, model_id: str) -> None:
        """A finished download: load it as the Load button does, then go to the chat."""
        self.load_requested.emit(model_id)
        self.back_requested.emit()

    # -- deleting ------------------------------------------------------------------------------

    def delete_selected(self) -> None:
        """Delete the selected model from the models folder, after asking; never the loaded one."""
        entry = self.selected()
        if entry is not None:
            self.files.delete(
                entry,
                self.loaded_id,
                self.confirm,
                self._in_use,
                self.model_deleted.emit,
                self.delete_failed.emit,
            )

    def say(self, text: str) -> None:
        self.message.setText(text)
        self.message.setVisible(bool(text))

    def _ask(self, title: str, question: str) -> bool:
        answer = QMessageBox.question(self, title, question)
        return answer == QMessageBox.StandardButton.Yes

    # -- partial downloads ---------------------------------------------------------------------

    def _show_partials(self, partials: list[PartialDownload]) -> None:
        """Partial files that no download in the queue is working on, with a Discard each."""
        self.partials.show_partials(partials, set(self.downloads.active_names()))
        for widget in (self.partials_title, self.partials):
            widget.setVisible(bool(self.partial_list))

    @property
    def partial_list(self) -> list[PartialDownload]:
        return self.partials.shown_partials

    def discard_partial(self, partial: PartialDownload) -> None:
        self.files.discard_partial(partial)

    def _update_downloads_tab(self) -> None:
        live = len(self.downloads.active_names())
        index = self.tabs.indexOf(self.downloads_view)
        self.tabs.setTabText(index, downloads_tab_text(live))

    # -- importing -----------------------------------------------------------------------------

    def import_paths(self, paths: Sequence[str]) -> None:
        """Register model files or folders where they are (app/models/model_files.py)."""
        self.files.import_paths(paths)

    def import_copy(self, source: Path) -> None:
        self.files.import_copy(source)

    def _open_folder(self) -> None:
        folder = models_dir()
        folder.mkdir(parents=True, exist_ok=True)
        QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder)))
