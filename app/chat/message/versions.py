"""‹ 2/3 ›: which version of a turn is shown, and the arrows to the others."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QToolButton, QWidget

from app.common.i18n import tr


class VersionSwitch(QWidget):
    """Shown beside a message that has versions (a regenerated reply, an edited question)."""

    step_requested = Signal(int)  # -1: the previous version, +1: the next

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(0)
        self.previous = self._arrow("‹", tr("Message", "Previous version"), -1)
        self.label = QLabel()
        self.label.setObjectName("VersionLabel")
        self.label.setProperty("muted", True)
        self.next = self._arrow("›", tr("Message", "Next version"), 1)
        row.addWidget(self.previous)
        row.addWidget(self.label)
        row.addWidget(self.next)
        self.shown = (1, 1)
        self.setVisible(False)

    def _arrow(self, text: str, name: str, step: int) -> QToolButton:
        button = QToolButton()
        button.setObjectName("MessageAction")
        button.setText(text)
        button.setToolTip(name)
        button.setAccessibleName(name)
        button.setAutoRaise(True)
        button.setCursor(Qt.CursorShape.PointingHandCursor)
        button.clicked.connect(lambda: self.step_requested.emit(step))
        return button

    def set_version(self, index: int, count: int, enabled: bool = True) -> None:
        """Version ``index`` (from 1) of ``count``; hidden for a turn with one version."""
        self.shown = (index, count)
        self.label.setText(f"{index} / {count}")
        said = tr("Message", "Version {index} of {count}").format(index=index, count=count)
        self.label.setAccessibleName(said)
        self.label.setToolTip(said)
        self.previous.setEnabled(enabled and index > 1)
        self.next.setEnabled(enabled and index < count)
        self.setVisible(count > 1)
