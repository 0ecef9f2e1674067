"""The models in memory now, as the engine reports them: each with its size, context, how many
replies it runs at once and when it goes if left idle, and a button to unload it."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
)

from engine.units import format_bytes

COLUMNS = ("In memory", "Size", "Context", "Replies at once", "Stays", "")
ROW_PX = 38


class ResidentsTable(QTableWidget):
    """One row a resident model; its Unload button asks for it by name."""

    unload_requested = Signal(str)

    def __init__(self) -> None:
        super().__init__(0, len(COLUMNS))
        self.setHorizontalHeaderLabels(COLUMNS)
        self.verticalHeader().setVisible(False)
        self.verticalHeader().setDefaultSectionSize(ROW_PX)
        self.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setShowGrid(False)
        head = self.horizontalHeader()
        head.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for col in range(1, len(COLUMNS)):
            head.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        self.names: list[str] = []

    def set_residents(self, residents: Sequence[Mapping[str, Any]]) -> None:
        names = [str(r.get("model", "")) for r in residents]
        self.setRowCount(len(residents))
        for row, resident in enumerate(residents):
            cells = (
                names[row],
                format_bytes(int(resident.get("size_bytes") or 0)),
                f"{int(resident.get('n_ctx') or 0):,} tokens",
                _at_once(resident),
                stays(resident),
            )
            for col, text in enumerate(cells):
                self.setItem(row, col, QTableWidgetItem(text))
            button = QPushButton("Unload")
            button.setObjectName("Secondary")
            button.setToolTip(f"Free the memory {names[row]} holds")
            button.clicked.connect(
                lambda _=False, name=names[row]: self.unload_requested.emit(name)
            )
            self.setCellWidget(row, len(COLUMNS) - 1, button)
        self.names = names
        self.setFixedHeight(self.horizontalHeader().height() + 4 + ROW_PX * len(residents))
        self.setVisible(bool(residents))


def _at_once(resident: Mapping[str, Any]) -> str:
    parallel = int(resident.get("parallel") or 1)
    running = int(resident.get("slots_in_use") or 0)
    queued = int(resident.get("queued") or 0)
    text = f"{running} of {parallel} replies" if parallel > 1 else f"{running} of 1 reply"
    return text + (f", {queued} waiting" if queued else "")


def stays(resident: Mapping[str, Any], now: float | None = None) -> str:
    """When the model leaves memory if nothing uses it."""
    expires = resident.get("expires_at")
    keep = resident.get("keep_alive_s")
    if expires is not None:
        left = max(float(expires) - (time.time() if now is None else now), 0.0)
        return f"unloaded in {_minutes(left)}"
    if keep is None:
        return "until unloaded"
    return f"{_minutes(float(keep))} once idle"


def _minutes(seconds: float) -> str:
    if seconds < 90:
        return f"{round(seconds)} s"
    return f"{round(seconds / 60)} min"
