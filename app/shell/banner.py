"""The banner that says the engine stopped, in plain words, with a way to start it again."""

from __future__ import annotations

import re
from collections.abc import Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout

from app.common.i18n import tr

MAX_DETAIL_LINES = 8
# The host's request log says nothing about why it stopped; the rest of its log might.
_ACCESS_LINE = re.compile(r"\b(GET|POST|PUT|DELETE|HEAD) /\S* \d{3}\b")


def plain_reason(message: str) -> str:
    """The first sentence or two of an engine error, without the attached log lines."""
    head = message.split(" Its last log lines:", 1)[0].strip()
    return head or tr("Banner", "The engine stopped unexpectedly.")


class EngineBanner(QFrame):
    restart_requested = Signal()

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("Banner")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(16, 10, 16, 10)
        text = QVBoxLayout()
        text.setSpacing(2)
        self.title = QLabel("<b>{}</b>".format(tr("Banner", "The engine stopped")))
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.details = QLabel()
        self.details.setWordWrap(True)
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.details.setVisible(False)
        self.reassurance = QLabel(
            tr(
                "Banner",
                "Your conversations are saved, including the reply that was being written.",
            )
        )
        self.reassurance.setWordWrap(True)
        text.addWidget(self.title)
        text.addWidget(self.message)
        text.addWidget(self.reassurance)
        text.addWidget(self.details)
        layout.addLayout(text, 1)
        self.details_button = QPushButton(tr("Banner", "Show log"))
        self.details_button.setObjectName("Secondary")
        self.details_button.clicked.connect(self._toggle_details)
        self.restart_button = QPushButton(tr("Banner", "Restart engine"))
        self.restart_button.setObjectName("Primary")
        self.restart_button.clicked.connect(self._restart)
        layout.addWidget(self.details_button, 0, Qt.AlignmentFlag.AlignTop)
        layout.addWidget(self.restart_button, 0, Qt.AlignmentFlag.AlignTop)
        self.setVisible(False)

    def show_crash(self, message: str, log_lines: Sequence[str], title: str = "") -> None:
        self.title.setText("<b>{}</b>".format(title or tr("Banner", "The engine stopped")))
        self.message.setText(plain_reason(message))
        lines = [
            line.strip() for line in log_lines if line.strip() and not _ACCESS_LINE.search(line)
        ][-MAX_DETAIL_LINES:]
        self.details.setText(
            "\n".join(lines)
            if lines
            else tr("Banner", "The engine logged no error before it stopped.")
        )
        self.details_button.setVisible(True)
        self.restart_button.setEnabled(True)
        self.restart_button.setText(tr("Banner", "Restart engine"))
        self.setVisible(True)

    def restarting(self) -> None:
        self.restart_button.setEnabled(False)
        self.restart_button.setText(tr("Banner", "Restarting…"))

    def _restart(self) -> None:
        self.restarting()
        self.restart_requested.emit()

    def _toggle_details(self) -> None:
        show = not self.details.isVisible()
        self.details.setVisible(show)
        self.details_button.setText(tr("Banner", "Hide log") if show else tr("Banner", "Show log"))
