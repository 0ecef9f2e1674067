"""Unfinished downloads on disk that no download in the queue is working on: a row each with what
was fetched, and Resume and Discard."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QWidget,
)

from app.common.i18n import tr
from engine.library import PartialDownload
from engine.paths import shown
from engine.units import format_bytes


class PartialDownloadsTable(QTableWidget):
    resume_requested = Signal(object)  # PartialDownload
    discard_requested = Signal(object)  # PartialDownload

    def __init__(self) -> None:
        super().__init__(0, 3)
        self.shown_partials: list[PartialDownload] = []
        self.setHorizontalHeaderLabels(
            (tr("Unfinished downloads", "Download"), tr("Unfinished downloads", "Fetched"), "")
        )
        self.verticalHeader().setVisible(False)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.setShowGrid(False)
        head = self.horizontalHeader()
        head.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for col in (1, 2):
            head.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)

    def show_partials(self, partials: Sequence[PartialDownload], active: set[str]) -> None:
        """The partial files whose download (``repo/file``) is not among ``active``."""
        self.shown_partials = [p for p in partials if f"{p.repo}/{p.file}" not in active]
        self.setRowCount(0)  # drops the old rows' buttons
        self.setRowCount(len(self.shown_partials))
        for row, partial in enumerate(self.shown_partials):
            name = QTableWidgetItem(f"{partial.repo}/{partial.file}")
            name.setToolTip(shown(partial.target.parent))
            self.setItem(row, 0, name)
            done, disk = format_bytes(partial.downloaded_bytes), format_bytes(partial.disk_bytes)
            if partial.total_bytes:
                fetched = tr("Unfinished downloads", "{done} of {total} · {disk} on disk").format(
                    done=done, total=format_bytes(partial.total_bytes), disk=disk
                )
            else:
                fetched = tr("Unfinished downloads", "{done} · {disk} on disk").format(
                    done=done, disk=disk
                )
            self.setItem(row, 1, QTableWidgetItem(fetched))
            buttons = QWidget()
            box = QHBoxLayout(buttons)
            box.setContentsMargins(4, 0, 4, 0)
            resume = QPushButton(tr("Unfinished downloads", "Resume"))
            resume.setObjectName("Secondary")
            resume.clicked.connect(lambda _c=False, p=partial: self.resume_requested.emit(p))
            discard = QPushButton(tr("Unfinished downloads", "Discard"))
            discard.setObjectName("Secondary")
            discard.clicked.connect(lambda _c=False, p=partial: self.discard_requested.emit(p))
            box.addWidget(resume)
            box.addWidget(discard)
            self.setCellWidget(row, 2, buttons)
        self.resizeRowsToContents()
        rows = max(1, min(3, len(self.shown_partials)))
        self.setFixedHeight(self.horizontalHeader().height() + rows * self.rowHeight(0) + 4)
