"""The Models view's Discover tab: the catalog, each model with the build recommended for this
computer and why, "Download" on it and a menu of the other builds; and Hugging Face search, each
file with its quant, size and fit. The hub is asked on worker threads; the UI thread never waits.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMenu,
    QPushButton,
    QScrollArea,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.download_controller import DownloadController
from app.workers import WorkerPool
from engine.hardware.report import HardwareReport
from engine.library.builds import is_installed, requests_for
from engine.library.catalog import Catalog, CatalogError, CatalogModel, Variant, load_catalog
from engine.library.download import DownloadRequest
from engine.library.hub import Hub, HubConfig, RemoteFile
from engine.library.hub_meta import (
    Listing,
    ListingCache,
    RepoProblem,
    build_files,
    fetch_listings,
)
from engine.library.hub_search import HubHit, gguf_quant, onnx_folders, search_hub
from engine.library.recommend import Option, Recommendation, fit_by_size, recommend
from engine.paths import models_dir
from engine.units import format_bytes

KINDS = {"Chat models": "chat", "For documents": "embedding reranker"}
FIT_STYLE = {"fits": "FitOk", "tight": "FitWarn", "too_big": "FitBad"}
FIT_WORDS = {"fits": "fits", "tight": "tight", "too_big": "too big"}


@dataclass
class _State:
    listings: dict[str, Listing]
    report: HardwareReport | None = None
    online_checked: bool = False
    offline_reason: str | None = None


class ModelCard(QFrame):
    """One catalog model: what it is, where it would run here, and its downloads."""

    download_requested = Signal(object, object)  # CatalogModel, Variant

    def __init__(self, model: CatalogModel) -> None:
        super().__init__()
        self.model = model
        self.setObjectName("ModelCard")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(14, 10, 14, 10)
        layout.setSpacing(4)
        top = QHBoxLayout()
        self.title = QLabel(f"<b>{model.name}</b>")
        facts = [f"{model.params_b:g}B", model.license, f"{model.context_length // 1024}k context"]
        if model.vision:
            facts.append("Vision: reads images")
        if any(v.gated for v in model.variants):
            facts.append("some builds need a Hugging Face token")
        self.facts = QLabel(" · ".join(facts))
        self.facts.setObjectName("Muted")
        top.addWidget(self.title)
        self.vision_badge: QLabel | None = None
        if model.vision:  # the projector comes with the model, in the same download
            self.vision_badge = QLabel("Vision")
            self.vision_badge.setObjectName("FitOk")
            self.vision_badge.setToolTip(
                "Reads images: its vision projector is downloaded with the model."
            )
            top.addWidget(self.vision_badge)
        top.addSpacing(8)
        top.addWidget(self.facts)
        top.addStretch(1)
        self.download_button = QPushButton("Download")
        self.download_button.setObjectName("Primary")
        self.builds_button = QToolButton()
        self.builds_button.setObjectName("BuildsButton")
        self.builds_button.setText("Other builds")
        self.builds_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.builds_button.setMenu(QMenu(self.builds_button))
        top.addWidget(self.builds_button)
        top.addWidget(self.download_button)
        layout.addLayout(top)
        self.description = QLabel(model.description)
        self.description.setWordWrap(True)
        layout.addWidget(self.description)
        self.reason = QLabel("Checking this computer…")
        self.reason.setObjectName("Muted")
        self.reason.setWordWrap(True)
        layout.addWidget(self.reason)
        self._choice: Variant | None = None
        self.download_button.clicked.connect(self._download_choice)

    def show_recommendation(self, rec: Recommendation, installed: set[str]) -> None:
        self._choice = rec.choice.variant if rec.choice else None
        style = "FitOk" if rec.choice and rec.choice.fits else "FitWarn"
        self.reason.setObjectName(style if rec.choice else "FitBad")
        self.reason.setText(rec.reason)
        self.reason.style().unpolish(self.reason)
        self.reason.style().polish(self.reason)
        if rec.choice is None:
            self.download_button.setText("Does not fit")
            self.download_button.setEnabled(False)
        elif rec.choice.variant.key in installed:
            self.download_button.setText("Installed")
            self.download_button.setEnabled(False)
        else:
            size = format_bytes(rec.choice.build.size_bytes)
            size = size if rec.choice.build.exact else f"~{size}"
            self.download_button.setText(f"Download {rec.choice.variant.label} · {size}")
            self.download_button.setToolTip(_size(rec.choice))
            self.download_button.setEnabled(True)
        menu = self.builds_button.menu()
        menu.clear()
        for option in rec.options:
            action = QAction(_option_text(option, option.variant.key in installed), menu)
            usable = option.why_not is None and option.build.missing is None
            action.setEnabled(usable and option.variant.key not in installed)
            action.triggered.connect(
                lambda _=False, v=option.variant: self.download_requested.emit(self.model, v)
            )
            menu.addAction(action)

    def _download_choice(self) -> None:
        if self._choice is not None:
            self.download_requested.emit(self.model, self._choice)


class HubCard(QFrame):
    """One Hugging Face repository from a search: its files with quant, size and fit."""

    download_requested = Signal(object)  # list[DownloadRequest]: a file, or a folder's files

    def __init__(self, hit: HubHit, report: HardwareReport | None) -> None:
        super().__init__()
        self.hit = hit
        self.setObjectName("ModelCard")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(14, 10, 14, 10)
        layout.setSpacing(4)
        top = QHBoxLayout()
        top.addWidget(QLabel(f"<b>{hit.repo}</b>"))
        facts = [hit.format.upper(), f"{hit.downloads:,} downloads"]
        if hit.gated:
            facts.append("gated: needs a Hugging Face token")
        muted = QLabel(" · ".join(facts))
        muted.setObjectName("Muted")
        top.addWidget(muted)
        top.addStretch(1)
        layout.addLayout(top)
        if hit.problem:
            problem = QLabel(hit.problem)
            problem.setObjectName("FitBad")
            problem.setWordWrap(True)
            layout.addWidget(problem)
        rows: list[tuple[str, int, list[DownloadRequest]]] = []
        if hit.format == "gguf":
            rows = [(gguf_quant(f), f.size, [_req(f)]) for f in hit.files]
        else:
            for folder, total in onnx_folders(hit.files).items():
                inside = tuple(f for f in hit.files if _folder_of(f.path) == folder)
                build = Variant("onnx", hit.repo, folder=folder)
                rows.append((f"ONNX {folder or '(root)'}", total, requests_for(build, inside)))
        for label, size_bytes, requests in rows:
            row = QHBoxLayout()
            name = QLabel(label)
            name.setMinimumWidth(80)
            size = QLabel(format_bytes(size_bytes))
            size.setMinimumWidth(70)
            row.addWidget(name)
            row.addWidget(size)
            if report is not None:
                fit, where = fit_by_size(size_bytes, report)
                badge = QLabel(FIT_WORDS[fit] + (f" on the {where}" if fit == "fits" else ""))
                badge.setObjectName(FIT_STYLE[fit])
                row.addWidget(badge)
            row.addStretch(1)
            button = QPushButton("Download")
            button.setObjectName("Secondary")
            button.clicked.connect(lambda _=False, r=requests: self.download_requested.emit(r))
            row.addWidget(button)
            layout.addLayout(row)


class DiscoverView(QWidget):
    """The catalog and the hub's search, with what fits here."""

    status_changed = Signal(str)
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
    ) -> None:
        super().__init__()
        self.downloads = downloads
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
        self.status = QLabel("")
        self.status.setObjectName("Muted")
        self.status.setWordWrap(True)
        layout.addWidget(self.status)
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
        self._filter()
        self._say(self.catalog_error or "Sizes are estimates until Cove asks Hugging Face.")

    # -- the catalog ---------------------------------------------------------------------------

    def set_report(self, report: HardwareReport) -> None:
        """This computer, as the engine's probe saw it: the recommendations follow."""
        self.state.report = report
        self._recommend()

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
            rec = recommend(model, report, self.state.listings)
            self.recommendations[model.id] = rec
            installed = {v.key for v in model.variants if is_installed(models, v)}
            self.cards[model.id].show_recommendation(rec, installed)
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
            card = HubCard(hit, self.state.report)
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
        from app.hub_settings_dialog import HubSettingsDialog

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

    def _say(self, text: str) -> None:
        self.status.setText(text)
        self.status_changed.emit(text)


def _size(option: Option) -> str:
    return format_bytes(option.build.size_bytes) + ("" if option.build.exact else " (estimated)")


def _option_text(option: Option, installed: bool) -> str:
    size = format_bytes(option.build.size_bytes) + ("" if option.build.exact else "~")
    if installed:
        state = "installed"
    elif option.why_not or option.build.missing:
        state = str(option.why_not or option.build.missing)
    elif option.fits:
        state = f"fits on the {option.device}"
    elif option.plan is not None and option.plan.loadable:
        state = f"fits with a {option.plan.n_ctx}-token context"
    else:
        state = "too big for this computer"
    return f"{option.variant.label} · {size} · {state}"


def _req(item: RemoteFile) -> DownloadRequest:
    return DownloadRequest(item.repo, item.path, item.revision, item.sha256)


def _folder_of(path: str) -> str:
    return path.rsplit("/", 1)[0] if "/" in path else ""
