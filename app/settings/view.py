"""One place for every setting that is not a chat's own (Ctrl+, or "Settings" in the sidebar).

A list of sections on the left, the chosen section on the right. Sections are widgets given by
the window (the engine, MCP servers and saved state panels need the window's services); a
section built on first view is made by a factory, so opening Settings costs nothing until then.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QListWidget,
    QPushButton,
    QScrollArea,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from app.common.i18n import tr
from app.common.page_header import page_header

MAX_WIDTH = 720  # pixels: a section's column


@dataclass
class _Section:
    key: str
    title: str
    make: Callable[[], QWidget]
    widget: QWidget | None = None


class SettingsView(QWidget):
    back_requested = Signal()
    shortcuts_requested = Signal()
    welcome_requested = Signal()
    section_shown = Signal(str)  # the section's key

    def __init__(self) -> None:
        super().__init__()
        self._sections: list[_Section] = []
        layout = QVBoxLayout(self)
        layout.setContentsMargins(24, 16, 24, 16)
        header = page_header(tr("Settings", "Settings"), self.back_requested)
        shortcuts = QPushButton(tr("Settings", "Keyboard shortcuts"))
        shortcuts.setObjectName("Secondary")
        shortcuts.clicked.connect(self.shortcuts_requested)
        header.addWidget(shortcuts)
        welcome = QPushButton(tr("Settings", "Welcome page"))
        welcome.setObjectName("Secondary")
        welcome.clicked.connect(self.welcome_requested)
        header.addWidget(welcome)
        layout.addLayout(header)
        body = QHBoxLayout()
        body.setSpacing(16)
        self.list = QListWidget()
        self.list.setAccessibleName(tr("Settings", "Settings sections"))
        self.list.setObjectName("SettingsNav")
        self.list.setFixedWidth(180)
        self.list.currentRowChanged.connect(self._show)
        # A screen reader selects an item without moving the current row.
        self.list.itemSelectionChanged.connect(self._selection_changed)
        self.stack = QStackedWidget()
        body.addWidget(self.list)
        body.addWidget(self.stack, 1)
        layout.addLayout(body, 1)

    def add_section(self, key: str, title: str, make: Callable[[], QWidget]) -> None:
        self._sections.append(_Section(key, title, make))
        holder = QScrollArea()
        holder.setObjectName("SettingsSection")
        holder.setWidgetResizable(True)
        holder.setFrameShape(QScrollArea.Shape.NoFrame)
        holder.viewport().setAutoFillBackground(False)
        self.stack.addWidget(holder)
        self.list.addItem(title)
        if self.list.currentRow() < 0:
            self.list.setCurrentRow(0)

    def section_keys(self) -> list[str]:
        return [section.key for section in self._sections]

    def show_section(self, key: str) -> QWidget:
        """Show the section ``key`` (built now if it was not yet) and return its widget."""
        self.list.setCurrentRow(self.section_keys().index(key))
        widget = self.section(key)
        assert widget is not None
        return widget

    def section(self, key: str) -> QWidget | None:
        """The section's widget, or None while it has not been shown."""
        for section in self._sections:
            if section.key == key:
                return section.widget
        return None

    def current_key(self) -> str:
        row = self.list.currentRow()
        return self._sections[row].key if 0 <= row < len(self._sections) else ""

    def _selection_changed(self) -> None:
        rows = [index.row() for index in self.list.selectedIndexes()]
        if rows and rows[0] != self.stack.currentIndex():
            self.list.setCurrentRow(rows[0])

    def _show(self, row: int) -> None:
        if not 0 <= row < len(self._sections):
            return
        section = self._sections[row]
        holder = self.stack.widget(row)
        assert isinstance(holder, QScrollArea)
        if section.widget is None:
            section.widget = section.make()
            # A readable column, not the window's width.
            body = QWidget()
            body.setObjectName("SettingsBody")
            line = QHBoxLayout(body)
            line.setContentsMargins(8, 0, 8, 0)
            section.widget.setMaximumWidth(MAX_WIDTH)
            line.addWidget(section.widget, 1)
            line.addStretch(0)
            holder.setWidget(body)
        self.stack.setCurrentIndex(row)
        self.section_shown.emit(section.key)
