"""The Installed tab's widgets: what the engine holds in memory, the table of installed models,
the selected one's details, the last delete's message, loading's progress, the actions, and the
unfinished downloads. ModelsView fills them and answers their clicks."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QTableWidget,
    QVBoxLayout,
    QWidget,
)

from app.common.i18n import tr
from app.models.partials import PartialDownloadsTable
from app.models.residents import ResidentsTable
from engine.paths import models_dir, shown

N_COLUMNS = 5
VERDICT_COLUMN, SPEED_COLUMN = 3, 4


def _button(text: str, name: str) -> QPushButton:
    button = QPushButton(text)
    button.setObjectName(name)
    button.setEnabled(False)
    return button


class InstalledTab(QWidget):
    def __init__(self, compare_offered: bool) -> None:
        super().__init__()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 12, 0, 0)
        layout.setSpacing(10)
        intro = QLabel(
            tr(
                "Models",
                "Cove checks each model against the memory that is free right now, before "
                "loading it. Put GGUF files or ONNX model folders in {folder} or import them.",
            ).format(folder=shown(models_dir()))
        )
        intro.setWordWrap(True)
        intro.setProperty("muted", True)
        layout.addWidget(intro)

        # What the engine holds in memory now (the loaded model, and any a request named).
        self.residents = ResidentsTable()
        self.residents.setVisible(False)
        layout.addWidget(self.residents)

        self.table = QTableWidget(0, N_COLUMNS)
        self.table.setHorizontalHeaderLabels(
            [
                tr("Models", "Model"),
                tr("Models", "Format"),
                tr("Models", "Size"),
                tr("Models", "On this computer"),
                tr("Models", "Speed here"),
            ]
        )
        self.table.verticalHeader().setVisible(False)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setShowGrid(False)
        self.table.setWordWrap(False)
        head = self.table.horizontalHeader()
        head.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for col in (1, 2):
            head.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        head.setSectionResizeMode(VERDICT_COLUMN, QHeaderView.ResizeMode.Stretch)
        head.setSectionResizeMode(SPEED_COLUMN, QHeaderView.ResizeMode.ResizeToContents)
        layout.addWidget(self.table, 1)

        self.details = QLabel("")
        self.details.setWordWrap(True)
        # Wrapped at the page's width (not at a guess of Qt's), so no line is cut off.
        self.details.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Minimum)
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.details)
        # What the last delete or discard did, or why it did not (stays when the selection moves).
        self.message = QLabel("")
        self.message.setWordWrap(True)
        self.message.setVisible(False)
        layout.addWidget(self.message)
        actions = QHBoxLayout()
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.progress.setVisible(False)
        self.cancel_button = QPushButton(tr("Models", "Cancel loading"))
        self.cancel_button.setObjectName("Secondary")
        self.cancel_button.setVisible(False)
        self.delete_button = _button(tr("Models", "Delete…"), "Secondary")
        self.load_button = _button(tr("Models", "Load"), "Primary")
        self.compare_button = _button(tr("Models", "Compare quality…"), "Secondary")
        self.compare_button.setVisible(compare_offered)
        actions.addWidget(self.progress, 1)
        actions.addWidget(self.cancel_button)
        actions.addStretch(0)
        actions.addWidget(self.compare_button)
        actions.addWidget(self.delete_button)
        actions.addWidget(self.load_button)
        layout.addLayout(actions)

        self.partials_title = QLabel("<b>{}</b>".format(tr("Models", "Unfinished downloads")))
        self.partials = PartialDownloadsTable()
        for widget in (self.partials_title, self.partials):
            widget.setVisible(False)
            layout.addWidget(widget)
