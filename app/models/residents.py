"""The models in memory now, as the engine reports them: each with its size, context, how many
replies it runs at once and when it goes if left idle, and a button to unload it."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
)

from app.common.i18n import tr
from engine.client import ResidentModel
from engine.units import format_bytes


def columns() -> list[str]:
    """The table's headers (the last column holds the Unload buttons)."""
    return [
        tr("Models in memory", "In memory"),
        tr("Models in memory", "Size"),
        tr("Models in memory", "Context"),
        tr("Models in memory", "Replies at once"),
        tr("Models in memory", "Stays"),
        "",
    ]


COLUMN_COUNT = 6
ROW_PX = 38


class ResidentsTable(QTableWidget):
    """One row a resident model; its Unload button asks for it by name."""

    unload_requested = Signal(str)

    def __init__(self) -> None:
        super().__init__(0, COLUMN_COUNT)
        self.setHorizontalHeaderLabels(columns())
        self.verticalHeader().setVisible(False)
        self.verticalHeader().setDefaultSectionSize(ROW_PX)
        self.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setShowGrid(False)
        head = self.horizontalHeader()
        head.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for col in range(1, COLUMN_COUNT):
            head.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        self.names: list[str] = []
        # A model's name as people know it (the window knows the installed models' names).
        self.label: Callable[[str], str] = str

    def set_residents(self, residents: Sequence[ResidentModel]) -> None:
        names = [r.model for r in residents]
        self.setRowCount(len(residents))
        for row, resident in enumerate(residents):
            cells = (
                self.label(names[row]),
                format_bytes(resident.size_bytes),
                tr("Models in memory", "{n} tokens").format(n=f"{resident.n_ctx:,}"),
                _at_once(resident),
                stays(resident),
            )
            for col, text in enumerate(cells):
                self.setItem(row, col, QTableWidgetItem(text))
            button = QPushButton(tr("Models in memory", "Unload"))
            button.setObjectName("Secondary")
            button.setToolTip(
                tr("Models in memory", "Free the memory {name} holds").format(
                    name=self.label(names[row])
                )
            )
            button.clicked.connect(
                lambda _=False, name=names[row]: self.unload_requested.emit(name)
            )
            self.setCellWidget(row, COLUMN_COUNT - 1, button)
        self.names = names
        self.setFixedHeight(self.horizontalHeader().height() + 4 + ROW_PX * len(residents))
        self.setVisible(bool(residents))


def _at_once(resident: ResidentModel) -> str:
    parallel, running, queued = resident.parallel, resident.slots_in_use, resident.queued
    text = (
        tr("Models in memory", "{running} of {parallel} replies").format(
            running=running, parallel=parallel
        )
        if parallel > 1
        else tr("Models in memory", "{running} of 1 reply").format(running=running)
    )
    if not queued:
        return text
    return tr("Models in memory", "{replies}, {n} waiting").format(replies=text, n=queued)


def stays(resident: ResidentModel, now: float | None = None) -> str:
    """When the model leaves memory if nothing uses it."""
    expires, keep = resident.expires_at, resident.keep_alive_s
    if expires is not None:
        left = max(expires - (time.time() if now is None else now), 0.0)
        return tr("Models in memory", "unloaded in {time}").format(time=_minutes(left))
    if keep is None:
        return tr("Models in memory", "until unloaded")
    return tr("Models in memory", "{time} once idle").format(time=_minutes(float(keep)))


def _minutes(seconds: float) -> str:
    if seconds < 90:
        return tr("Models in memory", "{n} s").format(n=round(seconds))
    return tr("Models in memory", "{n} min").format(n=round(seconds / 60))
