"""Settings for conversations' saved model state: how much disk it may use, how much it uses, and
clearing it. With it, reopening a long chat (after a restart, or from another chat) continues at
once instead of reading the whole conversation again."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)
from shiboken6 import isValid

from app.common.engine_service import EngineService
from app.common.i18n import tr
from engine.client import SavedState
from engine.generation import DEFAULT_LIMIT_BYTES
from engine.units import format_bytes

LIMIT_SETTING = "state_cache_bytes"
MAX_GIB = 256.0


def intro() -> str:
    return tr(
        "Saved state",
        "After each reply Cove keeps the model's working memory of the conversation on this "
        "computer, so that reopening a long chat, after a restart or from another chat, continues "
        "at once instead of reading the whole conversation again. It holds what the chat said: "
        "deleting a chat deletes its saved state, and Clear removes all of it.",
    )


class SavedStateDialog(QDialog):
    limit_changed = Signal(object)  # bytes (an int past 2**31: not a Qt int)

    def __init__(
        self, engine: EngineService, limit_bytes: int, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.engine = engine
        self.setWindowTitle(tr("Saved state", "Saved conversation state"))
        self.setMinimumWidth(480)
        intro_label = QLabel(intro())
        intro_label.setWordWrap(True)
        self.limit = QDoubleSpinBox()
        self.limit.setRange(0.0, MAX_GIB)
        self.limit.setDecimals(1)
        self.limit.setSingleStep(0.5)
        self.limit.setSuffix(" GiB")
        self.limit.setSpecialValueText(tr("Saved state", "Off"))
        self.limit.setValue(limit_bytes / 2**30)
        self._limit = limit_bytes
        self.limit.editingFinished.connect(self._limit_edited)
        self.usage = QLabel(tr("Saved state", "Reading…"))
        self.clear = QPushButton(tr("Saved state", "Clear saved state"))
        self.clear.clicked.connect(self._clear)
        form = QFormLayout()
        form.addRow(tr("Saved state", "Keep up to"), self.limit)
        form.addRow(tr("Saved state", "In use"), self.usage)
        buttons = self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro_label)
        layout.addLayout(form)
        layout.addWidget(self.clear)
        layout.addWidget(buttons)
        remote = engine.remote
        if remote is not None:  # that computer keeps (or not) the state of what it runs
            for widget in (self.limit, self.clear):
                widget.setEnabled(False)
                widget.setToolTip(remote.note)
            self.usage.setText(
                tr("Saved state", "Kept by the engine on {where}, not here").format(
                    where=remote.where
                )
            )
            return
        self.refresh()

    def refresh(self) -> None:
        self.engine.saved_state(self._show, self._failed)

    def _show(self, data: SavedState) -> None:
        if not isValid(self.usage):  # the answer came after the dialog went
            return
        if not data.enabled:
            self.usage.setText(tr("Saved state", "Off for this engine"))
            return
        used = data.bytes
        self.usage.setText(format_bytes(used) if used else tr("Saved state", "Nothing saved"))

    def _failed(self, exc: BaseException) -> None:
        if isValid(self.usage):
            self.usage.setText(tr("Saved state", "Unknown ({reason})").format(reason=exc))

    def _limit_edited(self) -> None:
        limit = round(self.limit.value() * 2**30)
        if limit == self._limit:  # editing finished without a change (focus left the box)
            return
        self._limit = limit
        self.engine.set_state_limit(limit)
        self.limit_changed.emit(limit)
        self.refresh()

    def _clear(self) -> None:
        self.usage.setText(tr("Saved state", "Clearing…"))
        self.engine.forget_state(None, lambda _n: self.refresh() if isValid(self) else None)


def stored_limit(value: object) -> int:
    """The limit from the settings table (the default where unset or unreadable)."""
    if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0:
        return int(value)
    return DEFAULT_LIMIT_BYTES
