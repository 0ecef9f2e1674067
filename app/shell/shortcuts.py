"""The keyboard shortcuts sheet (Ctrl+/): every key the window answers to, in one place, as a
table a screen reader reads row by row."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

SHORTCUTS: tuple[tuple[str, str], ...] = (
    ("Ctrl+N", "Start a new chat"),
    ("Enter", "Send the message"),
    ("Shift+Enter", "A new line in the message"),
    ("Esc", "Stop the reply being written; close find; cancel an edit"),
    ("Ctrl+L", "Choose the chat's model"),
    ("Ctrl+F", "Find in this chat (Enter: next match, Shift+Enter: previous)"),
    ("Ctrl+Shift+F", "Search every chat"),
    ("Ctrl+Z", "Bring back the message just deleted"),
    ("Ctrl++ / Ctrl+-", "Larger or smaller text"),
    ("Ctrl+0", "The default text size"),
    ("Ctrl+/", "This list of shortcuts"),
)


class ShortcutsSheet(QDialog):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Keyboard shortcuts")
        self.setAccessibleName("Keyboard shortcuts")
        layout = QVBoxLayout(self)
        table = QTableWidget(len(SHORTCUTS), 2)
        table.setAccessibleName("Keyboard shortcuts")
        table.setHorizontalHeaderLabels(["Keys", "What they do"])
        table.verticalHeader().setVisible(False)
        table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        for row, (keys, what) in enumerate(SHORTCUTS):
            table.setItem(row, 0, QTableWidgetItem(keys))
            table.setItem(row, 1, QTableWidgetItem(what))
        header = table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        layout.addWidget(table)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.table = table
        self.resize(560, 420)
