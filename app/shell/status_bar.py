"""The bottom line: model, backend and device (or the other computer whose engine answers, and
how the connection is protected), speed, time to first token, and the context meter."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QLabel, QProgressBar, QPushButton, QStatusBar, QWidget

from app.common.i18n import tr
from app.common.plain_words import device_text

if TYPE_CHECKING:
    from engine.client import EngineStatus
    from engine.types import GenerationStats

NOTICE_MS = 6000
# A prompt this long (tokens read, not from the cache) has its reading speed shown until the next.
LONG_PROMPT = 1000


def short_count(n: int) -> str:
    return f"{n / 1000:.1f}k" if n >= 1000 else str(n)


def describe_device(status: EngineStatus, name: str | None = None) -> str:
    """The model in use as people know it (``name``, else the engine's name for it), and where
    it runs in words ("on the processor"); the runtime and device names are ``device_detail``."""
    parts = [name or status.model or tr("Status", "no model")]
    if status.device:
        parts.append(tr("Status", "on {device}").format(device=device_text(status.device)))
    return " · ".join(parts)


def device_detail(status: EngineStatus) -> str:
    """The runtime and the device as the engine names them: "Runs with llama.cpp on CPU."."""
    if status.backend and status.device:
        return tr("Status", "Runs with {backend} on {device}.").format(
            backend=status.backend, device=status.device
        )
    return ""


class StatusBar(QStatusBar):
    cancel_load_requested = Signal()
    model_clicked = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setSizeGripEnabled(False)
        self.setContentsMargins(6, 0, 12, 0)
        # The display name of the model an engine status is about (set by the window).
        self.names: Callable[[EngineStatus], str | None] = lambda _status: None
        self.model_button = QPushButton("Starting the engine…")
        self.model_button.setFlat(True)
        self.model_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.model_button.setToolTip("Choose a model")
        self.model_button.clicked.connect(self.model_clicked)
        self.load_bar = QProgressBar()
        self.load_bar.setRange(0, 1000)
        self.load_bar.setMaximumWidth(140)
        self.load_bar.setTextVisible(False)
        self.load_bar.setVisible(False)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setFlat(True)
        self.cancel_button.setVisible(False)
        self.cancel_button.clicked.connect(self.cancel_load_requested)
        self.speed = QLabel("")
        self.reading = ""  # how the last long prompt was read
        self.speed.setProperty("muted", True)
        self.context_label = QLabel("")
        self.context_label.setProperty("muted", True)
        self.context_meter = QProgressBar()
        self.context_meter.setObjectName("ContextMeter")
        self.context_meter.setTextVisible(False)
        self.context_meter.setMaximumWidth(120)
        self.context_meter.setRange(0, 1000)
        self.notice = QLabel("")
        self.notice.setProperty("muted", True)
        # The engine measuring the ways to run the model in its idle moments, and what it found.
        self.measuring = QLabel("")
        self.measuring.setProperty("muted", True)
        self.measuring.setVisible(False)
        self._measured: str | None = None
        self.remote: tuple[str, str] | None = None  # another computer's engine: (where, security)
        self._notice_timer = QTimer(self)
        self._notice_timer.setSingleShot(True)
        self._notice_timer.timeout.connect(lambda: self.notice.setText(""))
        self.addWidget(self.model_button)
        self.addWidget(self.load_bar)
        self.addWidget(self.cancel_button)
        self.addWidget(self.notice, 1)
        self.addPermanentWidget(self.measuring)
        self.addPermanentWidget(self.speed)
        self.addPermanentWidget(self.context_label)
        self.addPermanentWidget(self.context_meter)

    def set_engine_text(self, text: str) -> None:
        self.model_button.setText(text)

    def set_remote(self, where: str | None, security: str = "") -> None:
        """Another computer's engine answers (None: this computer's)."""
        self.remote = (where, security) if where else None

    def set_status(self, status: EngineStatus) -> None:
        if self.remote is not None:
            where, security = self.remote
            self.model_button.setText(f"{status.model or 'no model'} · on {where} · {security}")
            ran = " · ".join(p for p in (status.backend, status.device) if p)
            context = f", context {status.n_ctx} tokens" if status.n_ctx else ""
            self.model_button.setToolTip(
                f"The engine at {where} answers ({ran or 'its runtime unknown'}{context}); the "
                "connection is " + security + ". Click to choose another of its models."
            )
            return
        self.model_button.setText(describe_device(status, self.names(status)))
        self._show_measuring(status)
        detail = device_detail(status)
        if status.n_ctx:
            tip = tr("Status", "Context {n} tokens. Click to choose another model.").format(
                n=status.n_ctx
            )
        else:
            tip = tr("Status", "Choose a model")
        self.model_button.setToolTip(f"{detail} {tip}" if detail else tip)

    def _show_measuring(self, status: EngineStatus) -> None:
        text, tip = measuring_words(status)
        self.measuring.setVisible(bool(text))
        self.measuring.setText(text)
        self.measuring.setToolTip(tip)
        found = status.measured
        if found and found != self._measured and self._measured is not None:
            self.notify(f"Measured: {found}")
        self._measured = found or self._measured or ""

    def show_loading(self, model: str) -> None:
        self.model_button.setText(f"Loading {model}…")
        self.load_bar.setValue(0)
        self.load_bar.setVisible(True)
        self.cancel_button.setVisible(True)

    def set_load_progress(self, fraction: float) -> None:
        self.load_bar.setValue(round(max(0.0, min(1.0, fraction)) * 1000))

    def hide_loading(self) -> None:
        self.load_bar.setVisible(False)
        self.cancel_button.setVisible(False)

    def set_stats(self, stats: GenerationStats | None) -> None:
        """The last reply's writing speed and first token; and how fast the last long prompt
        (``LONG_PROMPT`` tokens or more read, not taken from the cache) was read, which says
        what a long document or an agent's instructions cost here."""
        if stats is None or not stats.completion_tokens:
            return
        read = stats.prompt_tokens - stats.cached_tokens
        if read >= LONG_PROMPT and stats.prompt_tokens_per_s > 0:
            self.reading = tr(
                "Status", "last long prompt: {n} tokens read at {rate} tokens/s"
            ).format(n=f"{read:,}", rate=f"{stats.prompt_tokens_per_s:.0f}")
        text = tr("Status", "{rate} tokens/s · first token {ttft} s").format(
            rate=f"{stats.decode_tokens_per_s:.1f}", ttft=f"{stats.ttft_s:.2f}"
        )
        self.speed.setText(" · ".join(t for t in (text, self.reading) if t))

    def set_context(self, used: int, limit: int, message: str) -> None:
        if limit:
            self.context_label.setText(
                tr("Status", "Context {used} / {limit}").format(
                    used=short_count(used), limit=short_count(limit)
                )
            )
            self.context_meter.setValue(min(1000, round(1000 * used / limit)))
        else:
            self.context_label.setText(
                tr("Status", "Context ~{used} tokens").format(used=short_count(used))
            )
            self.context_meter.setValue(0)
        warn = bool(message)
        full = bool(limit) and used >= limit
        tip = message or tr(
            "Status", "Tokens this conversation uses of the model's context window."
        )
        for widget in (self.context_label, self.context_meter):
            widget.setToolTip(tip)
        self.context_meter.setProperty("warn", warn and not full)
        self.context_meter.setProperty("full", full or "dropped" in message)
        style = self.context_meter.style()
        style.unpolish(self.context_meter)
        style.polish(self.context_meter)
        self.context_warning = message

    def notify(self, text: str) -> None:
        """A passing message beside the model (the model stays visible)."""
        self.notice.setText(" ".join(text.split())[:200])
        self.notice.setToolTip(text)
        self._notice_timer.start(NOTICE_MS)


def measuring_words(status: EngineStatus) -> tuple[str, str]:
    """The status bar's words for the engine's background measuring, and their tooltip: what
    waits and why ("" when nothing does, or measuring is off)."""
    works = [w for w in status.background if w.state != "off"]
    if not status.measuring or not status.background_measuring:
        return "", ""
    work = works[0] if works else None
    what = (work.work if work is not None else "") or status.measuring
    why = work.why if work is not None else ""
    state = work.state if work is not None else None
    if state == "running":
        text = "Measuring while idle…"
        tip = f"{what}. It stops at once for a reply or another program."
    elif state == "paused":
        text = "Measuring later"
        tip = f"{what}: {why}. Until then the planner's way serves."
    else:
        text = "Measuring when this computer is idle"
        tip = f"{what}: {why}. Replies are never held up; the planner's way serves meanwhile."
    return text, tip + " It can be turned off on the Hardware page."
