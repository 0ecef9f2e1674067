"""The first-run welcome: nothing leaves this computer, and what this computer can run."""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from app.model_catalog import human_bytes

# A 4-bit quantised model takes about 0.6 bytes per parameter on disk and in memory (Q4_K_M);
# leave a quarter of the memory for the KV cache, compute buffers and the rest of the system.
BYTES_PER_PARAM_Q4 = 0.6
SHARE_FOR_WEIGHTS = 0.75


def capacity_text(report: dict[str, Any]) -> str:
    """One or two sentences on the size of model this machine runs well, and where."""
    mem = report.get("memory") or {}
    available = int(mem.get("available_bytes") or 0)
    llama = report.get("llama_cpp") or {}
    gpus = [g for g in report.get("gpus") or () if isinstance(g, dict)]
    offload = bool(llama.get("supports_gpu_offload"))
    budget, where = available, "on the CPU"
    if gpus and offload:
        best = max(gpus, key=lambda g: int(g.get("budget_bytes") or 0))
        if int(best.get("budget_bytes") or 0) > 0:
            budget = int(best["budget_bytes"])
            where = f"on the {best.get('name', 'GPU')}"
    params_b = budget * SHARE_FOR_WEIGHTS / BYTES_PER_PARAM_Q4 / 1e9
    if params_b < 1:
        size = "small models (under 1 billion parameters)"
    else:
        size = f"models up to about {params_b:.0f} billion parameters at 4-bit"
    return (
        f"With {human_bytes(budget)} free {where}, this computer runs {size}. "
        "Cove checks every model against the memory that is free before loading it."
    )


def hardware_line(report: dict[str, Any]) -> str:
    cpu = report.get("cpu") or {}
    mem = report.get("memory") or {}
    gpus = [g.get("name", "GPU") for g in report.get("gpus") or () if isinstance(g, dict)]
    npus = (report.get("ort") or {}).get("npus") or []
    parts = [
        f"{cpu.get('model', 'CPU')} ({cpu.get('physical_cores', '?')} cores)",
        f"{human_bytes(int(mem.get('total_bytes') or 0))} RAM",
        ", ".join(gpus) if gpus else "no GPU that Cove can use",
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
        title = QLabel("<span style='font-size:22pt; font-weight:600'>Welcome to Cove</span>")
        layout.addWidget(title)
        privacy = QLabel(
            "<p><b>Everything stays on this computer.</b> Cove runs language models on this "
            "machine. What you type, the replies and your chat history never leave it: there is "
            "no account, no telemetry, and Cove opens no network connection unless you ask it "
            "to download a model.</p>"
        )
        privacy.setWordWrap(True)
        layout.addWidget(privacy)
        layout.addWidget(QLabel("<b>What this computer can run</b>"))
        self.hardware = QLabel("Looking at this computer…")
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
        self.start_button = QPushButton("Start chatting")
        self.start_button.setObjectName("Primary")
        self.start_button.clicked.connect(self.start_requested)
        row.addWidget(self.start_button)
        row.addStretch(1)
        layout.addLayout(row)
        layout.addStretch(2)
        outer.addWidget(column, 100)
        outer.addStretch(1)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)

    def set_report(self, report: dict[str, Any]) -> None:
        self.hardware.setText(html.escape(hardware_line(report)))
        self.capacity.setText(html.escape(capacity_text(report)))

    def set_probe_error(self, message: str) -> None:
        self.hardware.setText(f"The hardware check failed ({message}); Cove will use the CPU.")

    def set_starter(self, text: str) -> None:
        self.starter.setText(text)
