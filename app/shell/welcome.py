"""The first-run welcome: nothing leaves this computer, what this computer can run, and whether
the starter model fits."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from app.common.engine_service import STARTER, EngineService
from app.common.i18n import tr
from app.common.plain_words import best_device_text
from app.common.verdicts import verdict_from_error, verdict_from_plan
from engine.units import format_bytes

if TYPE_CHECKING:
    from engine.hardware.report import HardwareReport
    from engine.planner import Plan


def capacity_text(report: HardwareReport) -> str:
    """Where models would run here, as the hardware report says. How large a model fits is the
    planner's answer, per model: the starter's verdict below, and every model's in Models."""
    return tr(
        "Welcome",
        "Models run best here on {device}. Cove checks every model against the memory that is "
        "free before loading it.",
    ).format(device=best_device_text(report))


def hardware_line(report: HardwareReport) -> str:
    cpu = report.cpu
    gpus = [g.name for g in report.gpus]
    npus = report.ort.npus()
    cores = cpu.physical_cores
    parts = [
        tr("Welcome", "{cpu} (1 core)").format(cpu=cpu.model)
        if cores == 1
        else tr("Welcome", "{cpu} ({n} cores)").format(cpu=cpu.model, n=cores),
        tr("Welcome", "{size} RAM").format(size=format_bytes(report.memory.total_bytes)),
        ", ".join(gpus) if gpus else tr("Welcome", "no graphics card that Cove can use"),
    ]
    if npus:
        parts.append(", ".join(npus))
    return " · ".join(parts)


class WelcomeView(QWidget):
    start_requested = Signal()

    def __init__(self) -> None:
        super().__init__()
        outer = QHBoxLayout(self)
        outer.addStretch(1)
        column = QWidget()
        column.setMaximumWidth(640)
        layout = QVBoxLayout(column)
        layout.setSpacing(14)
        layout.addStretch(1)
        title = QLabel(
            "<span style='font-size:22pt; font-weight:600'>{}</span>".format(
                tr("Welcome", "Welcome to Cove")
            )
        )
        layout.addWidget(title)
        privacy = QLabel(
            "<p><b>{}</b> {}</p>".format(
                tr("Welcome", "Everything stays on this computer."),
                tr(
                    "Welcome",
                    "Cove runs language models on this machine. What you type, the replies "
                    "and your chat history never leave it: there is no account, no "
                    "telemetry, and Cove opens no network connection unless you ask it to: "
                    "to download a model, or to use another computer's engine.",
                ),
            )
        )
        privacy.setWordWrap(True)
        layout.addWidget(privacy)
        layout.addWidget(QLabel("<b>{}</b>".format(tr("Welcome", "What this computer can run"))))
        self.hardware = QLabel(tr("Welcome", "Looking at this computer…"))
        self.hardware.setWordWrap(True)
        self.hardware.setProperty("muted", True)
        self.capacity = QLabel("")
        self.capacity.setWordWrap(True)
        self.starter = QLabel("")
        self.starter.setWordWrap(True)
        layout.addWidget(self.hardware)
        layout.addWidget(self.capacity)
        layout.addWidget(self.starter)
        row = QHBoxLayout()
        self.start_button = QPushButton(tr("Welcome", "Start chatting"))
        self.start_button.setObjectName("Primary")
        self.start_button.clicked.connect(self.start_requested)
        row.addWidget(self.start_button)
        row.addStretch(1)
        layout.addLayout(row)
        layout.addStretch(2)
        outer.addWidget(column, 100)
        outer.addStretch(1)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)

    def set_report(self, report: HardwareReport) -> None:
        self.hardware.setText(html.escape(hardware_line(report)))
        self.capacity.setText(html.escape(capacity_text(report)))
        self.capacity.setToolTip(report.best_device())  # the technical name, for who wants it

    def set_probe_error(self, message: str) -> None:
        self.hardware.setText(
            tr(
                "Welcome", "The hardware check failed ({reason}); Cove will use the processor."
            ).format(reason=message)
        )

    def set_starter(self, text: str) -> None:
        self.starter.setText(text)


def check_starter(welcome: WelcomeView, engine: EngineService) -> None:
    """Say whether the starter model fits here, once the engine is up to plan it."""

    def done(plan: Plan) -> None:
        verdict = verdict_from_plan(plan)
        welcome.set_starter(
            tr("Window", "The starter model, SmolLM2 135M: {verdict}.").format(verdict=verdict.text)
        )

    def failed(exc: BaseException) -> None:
        welcome.set_starter(verdict_from_error(str(exc)).text)

    if engine.engine is None:
        welcome.set_starter(
            tr("Window", "The starter model, SmolLM2 135M, is loading in the background.")
        )
        engine.started.connect(
            lambda: check_starter(welcome, engine), Qt.ConnectionType.SingleShotConnection
        )
        return
    engine.plan(STARTER, done, failed)
