"""The Models view's Discover tab: the catalog, each model with the build recommended for this
computer, why, and how fast it would reply here, "Download" on it and a menu of the other builds;
and Hugging Face search, each file with its quant, size, fit and speed. The catalog lists what
replies at the user's comfortable speed first. The hub is asked on worker threads; the UI thread
never waits.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from app.common.workers import WorkerPool
from app.models.discover.cards import HubCard, ModelCard
from app.models.download_controller import DownloadController
from engine.advice import Recommendation, recommend
from engine.errors import CatalogError
from engine.hardware.report import HardwareReport
from engine.hub import (
    DownloadRequest,
    Hub,
    HubConfig,
    HubHit,
    Listing,
    ListingCache,
    RepoProblem,
    build_files,
    fetch_listings,
    requests_for,
    search_hub,
)
from engine.library import Catalog, CatalogModel, Variant, is_installed, load_catalog
from engine.paths import models_dir
from engine.speed import DEFAULT_COMFORTABLE_TPS, SpeedStore

KINDS = {"Chat models": "chat", "For documents": "embedding reranker"}
COMFORTABLE_RANGE = (1, 200)  # tokens/s the "Replies at least" control offers


@dataclass
class _State:
    listings: dict[str, Listing]
    report: HardwareReport | None = None
    online_checked: bool = False
    offline_reason: str | None = None


class DiscoverView(QWidget):
    """The catalog and the hub's search, with what fits here and how fast it would reply."""

    status_changed = Signal(str)
    comfortable_changed = Signal(float)  # the reply speed aimed for, tokens/s
    recommendations_ready = Signal()
    search_finished = Signal()
    downloads_added = Signal(int)

    def __init__(
        self,
        downloads: DownloadController,
        hub_config: Callable[[], HubConfig] = HubConfig.resolve,
        *,
        catalog: Catalog | None = None,
        cache: ListingCache | None = None,
        speed_store: SpeedStore | None = None,
    ) -> None:
        super().__init__()
        self.downloads = downloads
        self.speed_store = speed_store or SpeedStore()
        self._hub_config = hub_config
        self.cache = cache or ListingCache()
        self.pool = WorkerPool("discover", 2)
        self.catalog_error: str | None = None
        try:
            self.catalog = catalog or load_catalog()
        except CatalogError as exc:
            self.catalog, self.catalog_error = Catalog(()), str(exc)
        self.state = _State(listings=fetch_listings(None, self._repos(), self.cache)[0])
        self.cards: dict[str, ModelCard] = {}
        self.hub_cards: list[HubCard] = []
        self.recommendations: dict[str, Recommendation] = {}
        self.asked_hub = False

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 10, 0, 0)
        layout.setSpacing(8)
        bar = QHBoxLayout()
        self.search = QLineEdit()
        self.search.setPlaceholderText("Filter the catalog, or press Enter to search Hugging Face")
        self.search.setAccessibleName("Find models")
        self.search.setClearButtonEnabled(True)
        self.kind = QComboBox()
        self.kind.addItems(list(KINDS))
        self.kind.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.search_button = QPushButton("Search Hugging Face")
        self.search_button.setObjectName("Secondary")
        self.settings_button = QPushButton("Hub settings…")
        self.settings_button.setObjectName("Secondary")
        self.settings_button.clicked.connect(self._settings)
        bar.addWidget(self.search, 1)
        bar.addWidget(self.kind)
        bar.addWidget(self.search_button)
        bar.addWidget(self.settings_button)
        layout.addLayout(bar)
        line = QHBoxLayout()
        self.status = QLabel("")
        self.status.setObjectName("Muted")
        self.status.setWordWrap(True)
        line.addWidget(self.status, 1)
        self.comfortable = QSpinBox()
        self.comfortable.setRange(*COMFORTABLE_RANGE)
        self.comfortable.setSuffix(" tokens/s")
        self.comfortable.setValue(round(self._stored_comfortable()))
        self.comfortable.setToolTip(
            "The reply speed Cove aims for when it picks a build: the best quality that replies "
            "at least this fast here, else the fastest."
        )
        self.comfortable_label = QLabel("Replies at least")
        self.comfortable_label.setBuddy(self.comfortable)
        line.addWidget(self.comfortable_label)
        line.addWidget(self.comfortable)
        layout.addLayout(line)
        # Speeds are known only once a report with the machine's speed profile has come.
        self._show_comfortable(False)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        inner = QWidget()
        self.list = QVBoxLayout(inner)
        self.list.setContentsMargins(0, 0, 8, 0)
        self.list.setSpacing(8)
        self.hub_header = QLabel("<b>From Hugging Face</b>")
        self.hub_header.setVisible(False)
        for model in self.catalog.models:
            card = ModelCard(model)
            card.download_requested.connect(self.download_build)
            self.cards[model.id] = card
            self.list.addWidget(card)
        self.empty = QLabel("No catalog model matches; press Enter to search Hugging Face.")
        self.empty.setObjectName("Muted")
        self.list.addWidget(self.empty)
        self.list.addWidget(self.hub_header)
        self.list.addStretch(1)
        scroll.setWidget(inner)
        layout.addWidget(scroll, 1)

        self.search.textChanged.connect(self._filter)
        self.search.returnPressed.connect(self.search_hub)
        self.search_button.clicked.connect(self.search_hub)
        self.kind.currentIndexChanged.connect(lambda _i: self._filter())
        self.comfortable.valueChanged.connect(self._comfortable_set)
        self._filter()
        self._say(self.catalog_error or "Sizes are estimates until Cove asks Hugging Face.")

    # -- the catalog ---------------------------------------------------------------------------

    def set_report(self, report: HardwareReport) -> None:
        """This computer, as the engine's probe saw it: the recommendations follow."""
        self.state.report = report
        self._show_comfortable(report.speed is not None)
        self._recommend()

    @property
    def comfortable_tps(self) -> float:
        return float(self.comfortable.value())

    def _comfortable_set(self, value: int) -> None:
        try:
            self.speed_store.set_comfortable_tps(float(value))
        except OSError as exc:  # the setting holds for this run
            self._say(f"Could not save the reply speed: {exc}")
        self._recommend()
        for card in self.hub_cards:
            card.set_comfortable(float(value))
        self.comfortable_changed.emit(float(value))

    def _stored_comfortable(self) -> float:
        try:
            value = self.speed_store.comfortable_tps()
        except OSError:
            value = DEFAULT_COMFORTABLE_TPS
        low, high = COMFORTABLE_RANGE
        return min(max(value, low), high)

    def _show_comfortable(self, shown: bool) -> None:
        self.comfortable_label.setVisible(shown)
        self.comfortable.setVisible(shown)

    def refresh_from_hub(self) -> None:
        """Ask the hub for every catalog build's files (sizes, SHA-256s), in the background."""
        config = self._hub_config()
        repos = self._repos()
        self.asked_hub = True

        def job() -> tuple[dict[str, Listing], list[RepoProblem]]:
            with Hub(config) as hub:
                return fetch_listings(hub, repos, self.cache, refresh=True)

        self._say("Asking Hugging Face for the catalog's file sizes…")
        self.pool.submit(job, self._listed, lambda exc: self._say(str(exc)))

    def _listed(self, result: tuple[dict[str, Listing], list[RepoProblem]]) -> None:
        listings, problems = result
        self.state.listings.update(listings)
        offline = [p.message for p in problems if p.code == "network_unavailable"]
        self.state.online_checked = not offline
        self.state.offline_reason = offline[0] if offline else None
        if offline:
            self._say(f"Offline: {offline[0]} Sizes shown are the last known, or estimates (~).")
        elif problems:
            self._say(
                f"Sizes and checksums from Hugging Face; {len(problems)} of the catalog's "
                f"repositories could not be listed ({problems[0].message})"
            )
        else:
            self._say("Sizes and checksums from Hugging Face.")
        self._recommend()

    def refresh_installed(self) -> None:
        self._recommend()

    def _recommend(self) -> None:
        report = self.state.report
        if report is None:
            return
        models = models_dir()
        for model in self.catalog.models:
            rec = recommend(
                model, report, self.state.listings, comfortable_tps=self.comfortable_tps
            )
            self.recommendations[model.id] = rec
            installed = {v.key for v in model.variants if is_installed(models, v)}
            self.cards[model.id].show_recommendation(rec, installed)
        self._arrange()
        self.recommendations_ready.emit()

    def download_build(self, model: CatalogModel, variant: Variant) -> None:
        """Queue the files of one build; its repository's listing is fetched first if needed."""
        listing = self.state.listings.get(variant.repo)
        build = build_files(model, variant, listing)
        if build.files:
            self._enqueue(requests_for(variant, build.files), model.name, variant)
            return
        config = self._hub_config()

        def job() -> dict[str, Listing]:
            with Hub(config) as hub:
                listings, problems = fetch_listings(hub, [variant.repo], self.cache, refresh=True)
            if variant.repo not in listings and problems:
                raise RuntimeError(problems[0].message)
            return listings

        def done(listings: dict[str, Listing]) -> None:
            self.state.listings.update(listings)
            fetched = build_files(model, variant, listings.get(variant.repo))
            if not fetched.files:
                self._say(fetched.missing or f"{variant.key} is not on Hugging Face.")
                return
            self._enqueue(requests_for(variant, fetched.files), model.name, variant)

        self._say(f"Asking Hugging Face for {variant.key}…")
        self.pool.submit(job, done, lambda exc: self._say(str(exc)))

    def _enqueue(self, requests: list[DownloadRequest], name: str, variant: Variant) -> None:
        added = 0
        for request in requests:
            try:
                self.downloads.add(request)
                added += 1
            except ValueError as exc:
                self._say(str(exc))
                return
        self._say(f"Downloading {name} ({variant.label}): see the Downloads tab.")
        self.downloads_added.emit(added)

    # -- the hub -------------------------------------------------------------------------------

    def search_hub(self) -> None:
        query = self.search.text().strip()
        if not query:
            self._say("Type what to look for, then press Enter.")
            return
        config = self._hub_config()
        self.search_button.setEnabled(False)
        self._say(f"Searching Hugging Face for {query!r}…")

        def failed(exc: BaseException) -> None:
            self.search_button.setEnabled(True)
            self._say(str(exc))
            self.search_finished.emit()

        self.pool.submit(lambda: search_hub(config, query), self._show_hits, failed)

    def _show_hits(self, hits: list[HubHit]) -> None:
        self.search_button.setEnabled(True)
        for card in self.hub_cards:
            card.setParent(None)
            card.deleteLater()
        self.hub_cards = []
        index = self.list.indexOf(self.hub_header) + 1
        for hit in hits:
            card = HubCard(hit, self.state.report, self.comfortable_tps)
            card.download_requested.connect(self._download_file)
            self.list.insertWidget(index, card)
            index += 1
            self.hub_cards.append(card)
        self.hub_header.setVisible(bool(hits))
        self._say(
            f"{len(hits)} repositories on Hugging Face."
            if hits
            else "Nothing on Hugging Face matches that."
        )
        self.search_finished.emit()

    def _download_file(self, requests: list[DownloadRequest]) -> None:
        for request in requests:
            try:
                self.downloads.add(request)
            except ValueError as exc:
                self._say(str(exc))
                return
        self._say(f"Downloading {requests[-1].name}: see the Downloads tab.")
        self.downloads_added.emit(len(requests))

    # -- helpers -------------------------------------------------------------------------------

    def _settings(self) -> None:
        from app.models.hub_settings import HubSettingsDialog

        if HubSettingsDialog(self).exec():
            self._say("Hugging Face settings saved; they apply to the next request.")

    def _repos(self) -> list[str]:
        return list(dict.fromkeys(v.repo for m in self.catalog.models for v in m.variants))

    def _filter(self) -> None:
        kinds = KINDS[self.kind.currentText()].split()
        words = [w for w in self.search.text().lower().split() if w]
        shown = 0
        for model in self.catalog.models:
            visible = model.kind in kinds and model.matches(words)
            self.cards[model.id].setVisible(visible)
            shown += visible
        self.empty.setVisible(shown == 0)
        self._arrange()

    def _arrange(self) -> None:
        """The default listing puts the models that run well here first (the catalog's order
        otherwise, and while a filter is typed)."""
        models = list(self.catalog.models)
        if not self.search.text().strip():
            models.sort(key=lambda m: not self._runs_well(m.id))  # stable
        for index, model in enumerate(models):
            card = self.cards[model.id]
            if self.list.indexOf(card) != index:
                self.list.removeWidget(card)
                self.list.insertWidget(index, card)

    def _runs_well(self, model_id: str) -> bool:
        rec = self.recommendations.get(model_id)
        return rec is not None and rec.runs_well

    def shown_models(self) -> list[str]:
        """The ids of the catalog cards on show, top to bottom."""
        found = []
        for index in range(self.list.count()):
            item = self.list.itemAt(index)
            widget = item.widget() if item is not None else None
            if isinstance(widget, ModelCard) and not widget.isHidden():
                found.append(widget.model.id)
        return found

    def _say(self, text: str) -> None:
        self.status.setText(text)
        self.status_changed.emit(text)
