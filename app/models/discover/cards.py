"""The Discover tab's cards: a catalog model with the build recommended here, its speed and its
other builds; a Hugging Face repository with each file's size, fit and speed."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QMenu,
    QPushButton,
    QToolButton,
    QVBoxLayout,
)

from app.common.i18n import tr
from app.common.plain_words import quant_label, quant_text
from engine.advice import Option, Recommendation, fit_by_size, predict_by_size
from engine.hardware.report import HardwareReport
from engine.hub import DownloadRequest, HubHit, RemoteFile, gguf_quant, onnx_folders, requests_for
from engine.library import CatalogModel, Variant
from engine.speed import Prediction
from engine.units import format_bytes, format_tps

FIT_STYLE = {"fits": "FitOk", "tight": "FitWarn", "too_big": "FitBad"}


def fit_words(fit: str, where: str) -> str:
    if fit == "fits":
        return tr("Discover", "fits on the {device}").format(device=where)
    if fit == "tight":
        return tr("Discover", "tight")
    return tr("Discover", "too big")


class ModelCard(QFrame):
    """One catalog model: what it is, where it would run here, how fast, and its downloads."""

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
        facts = [
            f"{model.params_b:g}B",
            model.license,
            tr("Discover", "{k}k context").format(k=model.context_length // 1024),
        ]
        if model.vision:
            facts.append(tr("Discover", "Vision: reads images"))
        if any(v.gated for v in model.variants):
            facts.append(tr("Discover", "some builds need a Hugging Face token"))
        self.facts = QLabel(" · ".join(facts))
        self.facts.setObjectName("Muted")
        top.addWidget(self.title)
        self.vision_badge: QLabel | None = None
        if model.vision:  # the projector comes with the model, in the same download
            self.vision_badge = QLabel(tr("Discover", "Vision"))
            self.vision_badge.setObjectName("FitOk")
            self.vision_badge.setToolTip(
                tr("Discover", "Reads images: its vision projector is downloaded with the model.")
            )
            top.addWidget(self.vision_badge)
        top.addSpacing(8)
        top.addWidget(self.facts)
        top.addStretch(1)
        # The recommended build's reply speed here; hidden while no prediction exists.
        self.speed = QLabel("")
        self.speed.setVisible(False)
        top.addWidget(self.speed)
        top.addSpacing(6)
        self.download_button = QPushButton(tr("Discover", "Download"))
        self.download_button.setObjectName("Primary")
        self.builds_button = QToolButton()
        self.builds_button.setObjectName("BuildsButton")
        self.builds_button.setText(tr("Discover", "Other builds"))
        self.builds_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.builds_button.setMenu(QMenu(self.builds_button))
        top.addWidget(self.builds_button)
        top.addWidget(self.download_button)
        layout.addLayout(top)
        self.description = QLabel(model.description)
        self.description.setWordWrap(True)
        layout.addWidget(self.description)
        self.reason = QLabel(tr("Discover", "Checking this computer…"))
        self.reason.setObjectName("Muted")
        self.reason.setWordWrap(True)
        layout.addWidget(self.reason)
        self._choice: Variant | None = None
        self.download_button.clicked.connect(self._download_choice)

    def show_recommendation(self, rec: Recommendation, installed: set[str]) -> None:
        self._choice = rec.choice.variant if rec.choice else None
        style = "FitOk" if rec.choice and rec.choice.fits else "FitWarn"
        _restyle(self.reason, style if rec.choice else "FitBad")
        self.reason.setText(rec.reason)
        prediction = rec.choice.prediction if rec.choice else None
        self.speed.setVisible(prediction is not None)
        if prediction is not None:
            self.speed.setText(
                tr("Discover", "about {tps} tokens/s here").format(
                    tps=format_tps(prediction.decode_tps)
                )
            )
            self.speed.setToolTip(speed_tip(prediction, rec.comfortable_tps))
            _restyle(self.speed, speed_style(prediction.decode_tps, rec.comfortable_tps))
        if rec.choice is None:
            self.download_button.setText(tr("Discover", "Does not fit"))
            self.download_button.setEnabled(False)
        elif rec.choice.variant.key in installed:
            self.download_button.setText(tr("Discover", "Installed"))
            self.download_button.setEnabled(False)
        else:
            size = format_bytes(rec.choice.build.size_bytes)
            size = size if rec.choice.build.exact else f"~{size}"
            label = rec.choice.variant.label
            self.download_button.setText(
                tr("Discover", "Download {build} · {size}").format(
                    build=quant_text(label) or label, size=size
                )
            )
            self.download_button.setToolTip(
                tr("Discover", "The {build} build: {size}").format(
                    build=label, size=_size(rec.choice)
                )
            )
            self.download_button.setEnabled(True)
        menu = self.builds_button.menu()
        menu.clear()
        for option in rec.options:
            action = QAction(option_text(option, option.variant.key in installed), menu)
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
    """One Hugging Face repository from a search: its files with quant, size, fit and speed."""

    download_requested = Signal(object)  # list[DownloadRequest]: a file, or a folder's files

    def __init__(
        self, hit: HubHit, report: HardwareReport | None, comfortable_tps: float = 0.0
    ) -> None:
        super().__init__()
        self.hit = hit
        self.setObjectName("ModelCard")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(14, 10, 14, 10)
        layout.setSpacing(4)
        top = QHBoxLayout()
        top.addWidget(QLabel(f"<b>{hit.repo}</b>"))
        facts = [
            hit.format.upper(),
            tr("Discover", "{count} downloads").format(count=f"{hit.downloads:,}"),
        ]
        if hit.gated:
            facts.append(tr("Discover", "gated: needs a Hugging Face token"))
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
        # (code, bytes, quant for a speed prediction (GGUF only), what to download)
        rows: list[tuple[str, int, str | None, list[DownloadRequest]]] = []
        if hit.format == "gguf":
            rows = [(gguf_quant(f), f.size, gguf_quant(f), [_req(f)]) for f in hit.files]
        else:
            for folder, total in onnx_folders(hit.files).items():
                inside = tuple(f for f in hit.files if _folder_of(f.path) == folder)
                build = Variant("onnx", hit.repo, folder=folder)
                where = folder or tr("Discover", "(root)")
                rows.append((f"ONNX {where}", total, None, requests_for(build, inside)))
        self.speeds: list[tuple[QLabel, Prediction]] = []
        self.names: list[QLabel] = []  # each file's quantization in words, the code after them
        for label, size_bytes, quant, requests in rows:
            row = QHBoxLayout()
            words = quant_text(label)
            file = requests[0].file if hit.format == "gguf" and requests else label
            name = QLabel(words or (label if label != "?" else file))
            name.setToolTip(file)
            name.setMinimumWidth(80)
            self.names.append(name)
            row.addWidget(name)
            if words:
                code = QLabel(label)
                code.setObjectName("Muted")
                row.addWidget(code)
            size = QLabel(format_bytes(size_bytes))
            size.setMinimumWidth(70)
            row.addWidget(size)
            if report is not None:
                fit, where = fit_by_size(size_bytes, report)
                badge = QLabel(fit_words(fit, where))
                badge.setObjectName(FIT_STYLE[fit])
                row.addWidget(badge)
                prediction = None
                if quant is not None and fit != "too_big":
                    prediction = predict_by_size(size_bytes, quant, report)
                if prediction is not None:
                    speed = QLabel(
                        tr("Discover", "· about {tps} tok/s").format(
                            tps=format_tps(prediction.decode_tps)
                        )
                    )
                    row.addWidget(speed)
                    self.speeds.append((speed, prediction))
            row.addStretch(1)
            button = QPushButton(tr("Discover", "Download"))
            button.setObjectName("Secondary")
            button.clicked.connect(lambda _=False, r=requests: self.download_requested.emit(r))
            row.addWidget(button)
            layout.addLayout(row)
        self.set_comfortable(comfortable_tps)

    def set_comfortable(self, comfortable_tps: float) -> None:
        """Mark the files slower than the speed the user asked for."""
        for label, prediction in self.speeds:
            _restyle(label, speed_style(prediction.decode_tps, comfortable_tps))
            label.setToolTip(speed_tip(prediction, comfortable_tps))


def speed_style(tps: float, comfortable_tps: float) -> str:
    """Good at or above the speed the user asked for, a warning below it."""
    if comfortable_tps <= 0:
        return "Muted"
    return "FitOk" if tps >= comfortable_tps else "FitWarn"


def speed_tip(prediction: Prediction, comfortable_tps: float) -> str:
    lines = [
        tr(
            "Discover",
            "Replies at about {early} tokens/s early in a conversation, {deep} deep into a long "
            "one; reads prompts at about {prompt} tokens/s.",
        ).format(
            early=format_tps(prediction.decode_tps),
            deep=format_tps(prediction.decode_tps_deep),
            prompt=format_tps(prediction.prompt_tps),
        ),
        prediction.basis[:1].upper() + prediction.basis[1:] + ".",
    ]
    if comfortable_tps > 0 and prediction.decode_tps < comfortable_tps:
        lines.append(
            tr("Discover", "Slower than the {tps} tokens/s you asked for.").format(
                tps=f"{comfortable_tps:g}"
            )
        )
    return "\n".join(lines)


def option_text(option: Option, installed: bool) -> str:
    size = format_bytes(option.build.size_bytes) + ("" if option.build.exact else "~")
    if installed:
        state = tr("Discover", "installed")
    elif option.why_not or option.build.missing:
        state = str(option.why_not or option.build.missing)
    elif option.fits:
        state = tr("Discover", "fits on the {device}").format(device=option.device)
    elif option.plan is not None and option.plan.loadable:
        state = tr("Discover", "fits with a {n}-token context").format(n=option.plan.n_ctx)
    else:
        state = tr("Discover", "too big for this computer")
    text = f"{quant_label(option.variant.label)} · {size} · {state}"
    if option.prediction is not None:
        text += " · " + tr("Discover", "about {tps} tok/s").format(
            tps=format_tps(option.prediction.decode_tps)
        )
    return text


def _restyle(label: QLabel, name: str) -> None:
    if label.objectName() != name:
        label.setObjectName(name)
        label.style().unpolish(label)
        label.style().polish(label)


def _size(option: Option) -> str:
    size = format_bytes(option.build.size_bytes)
    return size if option.build.exact else tr("Discover", "{size} (estimated)").format(size=size)


def _req(item: RemoteFile) -> DownloadRequest:
    return DownloadRequest(item.repo, item.path, item.revision, item.sha256)


def _folder_of(path: str) -> str:
    return path.rsplit("/", 1)[0] if "/" in path else ""
