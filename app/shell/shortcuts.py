"""The keyboard shortcuts sheet (Ctrl+/): every key the window answers to, in one place, as a
table a screen reader reads row by row."""

from __future__ import annotations

from PySide6.QtGui import QKeySequence
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

from app.common.i18n import tr


def keys(*sequences: str) -> str:
    """Key sequences as this system names them (Qt translates the names of the keys)."""
    native = QKeySequence.SequenceFormat.NativeText
    return " / ".join(QKeySequence(s).toString(native) for s in sequences)


def shortcuts() -> tuple[tuple[str, str], ...]:
    """Each shortcut's keys and what they do, in the window's language."""
    return (
        (keys("Ctrl+N"), tr("Shortcuts", "Start a new chat")),
        (keys("Enter"), tr("Shortcuts", "Send the message")),
        (keys("Shift+Enter"), tr("Shortcuts", "A new line in the message")),
        (
            keys("Esc"),
            tr("Shortcuts", "Stop the reply being written; close find; cancel an edit"),
        ),
        (keys("Ctrl+L"), tr("Shortcuts", "Choose the chat's model")),
        (
            keys("Ctrl+F"),
            tr("Shortcuts", "Find in this chat (Enter: next match, Shift+Enter: previous)"),
        ),
        (keys("Ctrl+Shift+F"), tr("Shortcuts", "Search every chat")),
        (keys("Ctrl+Z"), tr("Shortcuts", "Bring back the message just deleted")),
        (keys("Ctrl++", "Ctrl+-"), tr("Shortcuts", "Larger or smaller text")),
        (keys("Ctrl+0"), tr("Shortcuts", "The default text size")),
        (keys("Ctrl+,"), tr("Shortcuts", "Settings")),
        (keys("F2"), tr("Shortcuts", "Rename the chat or folder chosen in the sidebar")),
        (
            keys("Shift+F10", "Menu"),
            tr("Shortcuts", "The menu of the chat or folder chosen in the sidebar"),
        ),
        (keys("Ctrl+/"), tr("Shortcuts", "This list of shortcuts")),
    )


class ShortcutsSheet(QDialog):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(tr("Shortcuts", "Keyboard shortcuts"))
        self.setAccessibleName(tr("Shortcuts", "Keyboard shortcuts"))
        layout = QVBoxLayout(self)
        rows = shortcuts()
        table = QTableWidget(len(rows), 2)
        table.setAccessibleName(tr("Shortcuts", "Keyboard shortcuts"))
        table.setHorizontalHeaderLabels([tr("Shortcuts", "Keys"), tr("Shortcuts", "What they do")])
        table.verticalHeader().setVisible(False)
        table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        for row, (pressed, what) in enumerate(rows):
            table.setItem(row, 0, QTableWidgetItem(pressed))
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
