"""Per-conversation system prompt and sampling settings."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
)

from app.common.i18n import tr
from engine.types import TEMPERATURE_RANGE

if TYPE_CHECKING:
    from engine.store import ChatSettings

SAVE_DELAY_MS = 400
CONTEXT_CHOICES = (1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072)


class SettingsPanel(QFrame):
    system_prompt_changed = Signal(str)
    settings_changed = Signal(object)  # ChatSettings
    reload_requested = Signal(object)  # context size (int) or None for automatic

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("SettingsPanel")
        self.setMinimumWidth(260)
        self.setMaximumWidth(340)
        self._filling = False
        self._remote_note: str | None = None  # another computer's engine chose the context
        layout = QVBoxLayout(self)
        layout.setContentsMargins(14, 12, 14, 12)
        layout.setSpacing(8)
        header = QHBoxLayout()
        header.addWidget(QLabel("<b>" + tr("Chat settings", "Chat settings") + "</b>"))
        header.addStretch(1)
        self.close_button = QPushButton(tr("Chat settings", "Close"))
        self.close_button.setObjectName("Secondary")
        header.addWidget(self.close_button)
        layout.addLayout(header)

        layout.addWidget(QLabel(tr("Chat settings", "System prompt")))
        self.system_prompt = QPlainTextEdit()
        self.system_prompt.setPlaceholderText(
            tr("Chat settings", "For example: You are a concise assistant.")
        )
        self.system_prompt.setMaximumHeight(140)
        layout.addWidget(self.system_prompt)

        form = QFormLayout()
        form.setLabelAlignment(Qt.AlignmentFlag.AlignLeft)
        self.temperature = QDoubleSpinBox()
        self.temperature.setRange(*TEMPERATURE_RANGE)
        self.temperature.setSingleStep(0.05)
        self.temperature.setToolTip(
            tr("Chat settings", "0 always picks the likeliest word; higher is more varied.")
        )
        self.top_p = QDoubleSpinBox()
        self.top_p.setRange(0.05, 1.0)
        self.top_p.setSingleStep(0.05)
        self.top_k = QSpinBox()
        self.top_k.setRange(0, 500)
        self.top_k.setToolTip(tr("Chat settings", "0 turns top-k off."))
        self.max_tokens = QSpinBox()
        self.max_tokens.setRange(16, 32768)
        self.max_tokens.setSingleStep(64)
        self.max_tokens.setToolTip(tr("Chat settings", "The longest reply, in tokens."))
        self.context = QComboBox()
        self.context.addItem(tr("Chat settings", "Automatic (largest that fits)"), None)
        for n in CONTEXT_CHOICES:
            self.context.addItem(tr("Chat settings", "{n} tokens").format(n=f"{n:,}"), n)
        self.context.setToolTip(tr("Chat settings", "Applies when the model is loaded again."))
        form.addRow(tr("Chat settings", "Temperature"), self.temperature)
        form.addRow(tr("Chat settings", "Top-p"), self.top_p)
        form.addRow(tr("Chat settings", "Top-k"), self.top_k)
        form.addRow(tr("Chat settings", "Max tokens"), self.max_tokens)
        form.addRow(tr("Chat settings", "Context"), self.context)
        layout.addLayout(form)
        self.context_note = QLabel("")
        self.context_note.setProperty("muted", True)
        self.context_note.setWordWrap(True)
        layout.addWidget(self.context_note)
        buttons = QHBoxLayout()
        self.reset_button = QPushButton(tr("Chat settings", "Defaults"))
        self.reset_button.setObjectName("Secondary")
        self.reload_button = QPushButton(tr("Chat settings", "Reload model"))
        self.reload_button.setObjectName("Secondary")
        self.reload_button.setToolTip(
            tr("Chat settings", "Load the model again with this context size")
        )
        buttons.addWidget(self.reset_button)
        buttons.addWidget(self.reload_button)
        layout.addLayout(buttons)
        layout.addStretch(1)

        self._save_timer = QTimer(self)
        self._save_timer.setSingleShot(True)
        self._save_timer.setInterval(SAVE_DELAY_MS)
        self._save_timer.timeout.connect(self._emit_prompt)
        self.system_prompt.textChanged.connect(self._prompt_edited)
        for spin in (self.temperature, self.top_p):
            spin.valueChanged.connect(self._edited)
        for ispin in (self.top_k, self.max_tokens):
            ispin.valueChanged.connect(self._edited)
        self.context.currentIndexChanged.connect(self._edited)
        self.reset_button.clicked.connect(self._reset)
        self.reload_button.clicked.connect(
            lambda: self.reload_requested.emit(self.context.currentData())
        )

    def show_settings(self, system_prompt: str, settings: ChatSettings) -> None:
        self._filling = True
        self._save_timer.stop()
        if self.system_prompt.toPlainText() != system_prompt:
            self.system_prompt.setPlainText(system_prompt)
        self.temperature.setValue(settings.temperature)
        self.top_p.setValue(settings.top_p)
        self.top_k.setValue(settings.top_k)
        self.max_tokens.setValue(settings.max_tokens or 512)
        index = self.context.findData(settings.ctx)
        self.context.setCurrentIndex(max(0, index))
        self._filling = False

    def set_remote(self, note: str | None) -> None:
        """Another computer's engine: it chose the context its model loaded with."""
        for widget in (self.context, self.reload_button):
            widget.setEnabled(note is None)
            widget.setToolTip(note or "")
        if note is None:
            self.context.setToolTip(tr("Chat settings", "Applies when the model is loaded again."))
            self.reload_button.setToolTip(
                tr("Chat settings", "Load the model again with this context size")
            )
        self._remote_note = note
        self.set_loaded_context(None)

    def set_loaded_context(self, n_ctx: int | None) -> None:
        loaded = (
            tr("Chat settings", "The model is loaded with a {n}-token context.").format(
                n=f"{n_ctx:,}"
            )
            if n_ctx
            else ""
        )
        self.context_note.setText(" ".join(t for t in (self._remote_note, loaded) if t))

    def current(self) -> ChatSettings:
        from engine.store import ChatSettings

        return ChatSettings(
            temperature=round(self.temperature.value(), 2),
            top_p=round(self.top_p.value(), 2),
            top_k=self.top_k.value(),
            max_tokens=self.max_tokens.value(),
            ctx=self.context.currentData(),
        )

    def _edited(self, *_args: object) -> None:
        if not self._filling:
            self.settings_changed.emit(self.current())

    def _prompt_edited(self) -> None:
        if not self._filling:
            self._save_timer.start()

    def _emit_prompt(self) -> None:
        self.system_prompt_changed.emit(self.system_prompt.toPlainText())

    def flush(self) -> None:
        """Save a system prompt still waiting for its debounce (switching chats, closing)."""
        if self._save_timer.isActive():
            self._save_timer.stop()
            self._emit_prompt()

    def _reset(self) -> None:
        from engine.store import ChatSettings

        self.show_settings(self.system_prompt.toPlainText(), ChatSettings())
        self.settings_changed.emit(self.current())
