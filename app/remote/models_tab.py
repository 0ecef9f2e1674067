"""Models › On desk.local: the models another computer's engine serves, one of them used by name in
the chat. Nothing is loaded or planned here: that computer decides what it runs."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.common.i18n import tr


def in_use_mark() -> str:
    """After the name of the model the chat uses."""
    return "  " + tr("Engine settings", "● in use")


class RemoteModelsTab(QWidget):
    use_requested = Signal(str)  # a model's name there

    def __init__(self) -> None:
        super().__init__()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 12, 0, 0)
        layout.setSpacing(10)
        self.note = QLabel("")
        self.note.setWordWrap(True)
        self.note.setProperty("muted", True)
        layout.addWidget(self.note)
        self.list = QListWidget()
        self.list.setObjectName("RemoteModels")
        self.list.setSpacing(2)
        # Rows as tall as the Installed tab's, the selection without a focus frame.
        self.list.setStyleSheet("QListWidget#RemoteModels::item { padding: 8px 10px; }")
        self.list.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.list.itemSelectionChanged.connect(self._selected)
        self.list.itemDoubleClicked.connect(lambda _item: self._use())
        layout.addWidget(self.list, 1)
        actions = QHBoxLayout()
        actions.addStretch(1)
        self.use_button = QPushButton(tr("Engine settings", "Use in the chat"))
        self.use_button.setObjectName("Primary")
        self.use_button.setEnabled(False)
        self.use_button.clicked.connect(self._use)
        actions.addWidget(self.use_button)
        layout.addLayout(actions)
        self.models: list[str] = []
        self.current: str | None = None

    def show_models(self, note: str, models: Sequence[str], current: str | None) -> None:
        self.note.setText(
            tr(
                "Engine settings",
                "{note} These are the models it serves; the one you choose answers your chats. "
                "To load another there, do it on that computer; to use the models listed under "
                "Installed, choose This computer in Settings › Engine.",
            ).format(note=note)
        )
        self.models = list(models)
        self.list.clear()
        for name in self.models:
            item = QListWidgetItem(name)
            item.setData(Qt.ItemDataRole.UserRole, name)
            self.list.addItem(item)
        self.set_current(current)

    def set_current(self, model: str | None) -> None:
        self.current = model
        for row in range(self.list.count()):
            item = self.list.item(row)
            name = str(item.data(Qt.ItemDataRole.UserRole))
            item.setText(name + (in_use_mark() if name == model else ""))
            if name == model:
                self.list.setCurrentItem(item)
        self._selected()

    def _chosen(self) -> str | None:
        item = self.list.currentItem()
        return None if item is None else str(item.data(Qt.ItemDataRole.UserRole))

    def _selected(self) -> None:
        chosen = self._chosen()
        self.use_button.setEnabled(chosen is not None and chosen != self.current)

    def _use(self) -> None:
        chosen = self._chosen()
        if chosen is not None and chosen != self.current:
            self.use_requested.emit(chosen)
