"""Settings › Data: the chat history's backups (listed with their dates, made now, restored), its
check, and moving everything to a new computer (export, import).

Everything here that touches the disk runs off the UI thread through the window's ``HistoryHost``;
restoring and importing ask first, since both change what the sidebar lists.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.common.i18n import tr
from engine.paths import shown

if TYPE_CHECKING:
    from engine.store import Backup, Store


def reason_words(reason: str) -> str:
    """Why a backup was made, as the list says it."""
    words = {
        "daily": tr("Data", "daily"),
        "manual": tr("Data", "made by you"),
        "before-migration": tr("Data", "before an upgrade"),
        "before-restore": tr("Data", "before a restore"),
        "before-repair": tr("Data", "before a repair"),
        "before-import": tr("Data", "before an import"),
    }
    return words.get(reason, reason)


class HistoryHost(Protocol):
    """What the Data section needs of the window: the history, a thread for slow work on it, and
    a way to say the history changed under the sidebar."""

    def run_on_history(
        self,
        job: Callable[[Store], Any],
        done: Callable[[Any], None],
        failed: Callable[[str], None],
    ) -> None: ...

    def history_replaced(self) -> None: ...


def when(at: float) -> str:
    return datetime.datetime.fromtimestamp(at).strftime("%Y-%m-%d %H:%M")


def size_words(size: int) -> str:
    if size >= 2**30:
        return f"{size / 2**30:.1f} GB"
    if size >= 2**20:
        return f"{size / 2**20:.1f} MB"
    return f"{max(1, size // 1024)} KB"


class DataSection(QWidget):
    def __init__(self, host: HistoryHost) -> None:
        super().__init__()
        self.host = host
        self.backups: list[Backup] = []
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(10)
        layout.addWidget(QLabel("<b>{}</b>".format(tr("Data", "Backups"))))
        about = QLabel(
            tr(
                "Data",
                "Cove backs up your chats (with their images), presets and settings once a day, "
                "before every upgrade, and when you ask. The last 7 days and 4 weeks are kept.",
            )
        )
        about.setWordWrap(True)
        layout.addWidget(about)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.summary.setProperty("muted", True)
        layout.addWidget(self.summary)
        self.list = QListWidget()
        self.list.setAccessibleName(tr("Data", "Backups"))
        self.list.setMinimumHeight(160)
        self.list.currentRowChanged.connect(lambda _row: self._update_buttons())
        layout.addWidget(self.list)
        row = QHBoxLayout()
        self.backup_button = self._button(tr("Data", "Back up now"), self.back_up, row)
        self.restore_button = self._button(tr("Data", "Restore this backup…"), self.restore, row)
        self.check_button = self._button(tr("Data", "Check the history"), self.check, row)
        self.folder_button = self._button(tr("Data", "Open the backups folder"), self.open, row)
        row.addStretch(1)
        layout.addLayout(row)
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.status.setAccessibleName(tr("Data", "Backup status"))
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.status)
        layout.addWidget(QLabel("<b>{}</b>".format(tr("Data", "Moving to a new computer"))))
        moving = QLabel(
            tr(
                "Data",
                "Export everything to one file: every chat with its versions and images, "
                "folders and pins, presets, settings, the MCP servers (without their keys) and "
                "your collections. Import it on the other computer: chats imported twice are "
                "not doubled.",
            )
        )
        moving.setWordWrap(True)
        layout.addWidget(moving)
        row = QHBoxLayout()
        self.export_button = self._button(tr("Data", "Export everything…"), self.export, row)
        self.import_button = self._button(tr("Data", "Import…"), self.import_archive, row)
        row.addStretch(1)
        layout.addLayout(row)
        layout.addStretch(1)
        self._folder: Path | None = None  # listed each time the section is shown (refresh)

    def _button(self, text: str, slot: Callable[[], None], row: QHBoxLayout) -> QPushButton:
        button = QPushButton(text)
        button.setObjectName("Secondary")
        button.clicked.connect(slot)
        row.addWidget(button)
        return button

    # -- the list ----------------------------------------------------------------------------------

    def refresh(self) -> None:
        def job(store: Store) -> tuple[list[Backup], int, Path]:
            return store.backups.taken(), store.backups.total_bytes(), store.backups.folder

        self.host.run_on_history(job, self._listed, self._failed)

    def _listed(self, result: tuple[list[Backup], int, Path]) -> None:
        self.backups, total, self._folder = result
        self.list.clear()
        for backup in self.backups:
            item = QListWidgetItem(
                tr("Data", "{when} · {reason} · {chats} chats · {size}").format(
                    when=when(backup.taken_at),
                    reason=reason_words(backup.reason),
                    chats=backup.conversations,
                    size=size_words(backup.bytes),
                )
            )
            item.setData(Qt.ItemDataRole.UserRole, backup.name)
            self.list.addItem(item)
        if self.backups:
            self.list.setCurrentRow(0)
            self.summary.setText(
                tr("Data", "{count} backups, {size} in all, in {folder}.").format(
                    count=len(self.backups), size=size_words(total), folder=shown(self._folder)
                )
            )
        else:
            self.summary.setText(tr("Data", "No backup yet: the first is made today."))
        self._update_buttons()

    def _update_buttons(self) -> None:
        self.restore_button.setEnabled(0 <= self.list.currentRow() < len(self.backups))

    def _failed(self, message: str) -> None:
        self._busy(False)
        self.status.setText(message)

    def _busy(self, on: bool, words: str = "") -> None:
        for button in (self.backup_button, self.restore_button, self.check_button,
                       self.export_button, self.import_button):  # fmt: skip
            button.setEnabled(not on)
        if on:
            self.status.setText(words)
        else:
            self._update_buttons()

    # -- actions -----------------------------------------------------------------------------------

    def back_up(self) -> None:
        self._busy(True, tr("Data", "Backing up…"))

        def done(backup: Backup) -> None:
            self._busy(False)
            self.status.setText(
                tr("Data", "Backed up {chats} chats at {when}.").format(
                    chats=backup.conversations, when=when(backup.taken_at)
                )
            )
            self.refresh()

        self.host.run_on_history(lambda store: store.backup("manual"), done, self._failed)

    def restore(self) -> None:
        row = self.list.currentRow()
        if not 0 <= row < len(self.backups):
            return
        chosen = self.backups[row]
        answer = QMessageBox.question(
            self,
            tr("Data", "Restore this backup?"),
            tr(
                "Data",
                "The chat history goes back to how it was at {when} ({chats} chats). The history "
                "as it is now is backed up first, so this can be undone by restoring that backup.",
            ).format(when=when(chosen.taken_at), chats=chosen.conversations),
        )
        if answer != QMessageBox.StandardButton.Yes:
            return
        self._busy(True, tr("Data", "Restoring…"))

        def done(result: tuple[Backup, Backup | None]) -> None:
            self._busy(False)
            self.status.setText(
                tr("Data", "Restored the backup of {when}.").format(when=when(result[0].taken_at))
            )
            self.host.history_replaced()
            self.refresh()

        self.host.run_on_history(lambda store: store.restore(chosen.name), done, self._failed)

    def check(self) -> None:
        self._busy(True, tr("Data", "Checking…"))

        def done(problems: list[str]) -> None:
            self._busy(False)
            if problems:
                self.status.setText(
                    tr(
                        "Data",
                        "The history file is damaged: {problems}. Restart Cove to repair it.",
                    ).format(problems="; ".join(problems[:3]))
                )
            else:
                self.status.setText(tr("Data", "The chat history is whole."))

        self.host.run_on_history(lambda store: store.check(), done, self._failed)

    def open(self) -> None:
        if self._folder is not None:
            self._folder.mkdir(parents=True, exist_ok=True)
            QDesktopServices.openUrl(QUrl.fromLocalFile(str(self._folder)))

    def export(self) -> None:
        stamp = datetime.date.today().isoformat()
        path, _ = QFileDialog.getSaveFileName(
            self,
            tr("Data", "Export everything"),
            str(Path.home() / f"Cove-export-{stamp}.zip"),
            tr("Data", "Cove archives (*.zip)"),
        )
        if not path:
            return
        self._busy(True, tr("Data", "Exporting…"))

        def job(store: Store) -> Any:
            from engine.documents import CollectionsPart
            from engine.mcp_servers import ServerListPart
            from engine.store import export_archive

            return export_archive(
                store, Path(path), mcp_servers=ServerListPart(), collections=CollectionsPart()
            )

        def done(summary: Any) -> None:
            self._busy(False)
            self.status.setText(
                tr("Data", "Exported {chats} chats to {path}.").format(
                    chats=summary.conversations, path=shown(path)
                )
            )

        self.host.run_on_history(job, done, self._failed)

    def import_archive(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, tr("Data", "Import"), str(Path.home()), tr("Data", "Cove archives (*.zip)")
        )
        if path:
            self.import_from(Path(path))

    def import_from(self, path: Path) -> None:
        self._busy(True, tr("Data", "Importing…"))

        def job(store: Store) -> Any:
            from engine.documents import CollectionsPart
            from engine.mcp_servers import ServerListPart
            from engine.store import import_archive

            if store.list_conversations():  # what the import adds can be undone by a restore
                store.backup("before-import")
            return import_archive(
                store, path, mcp_servers=ServerListPart(), collections=CollectionsPart()
            )

        def done(summary: Any) -> None:
            self._busy(False)
            self.status.setText(
                tr("Data", "Imported {added} new chats and {merged} with new turns.").format(
                    added=summary.conversations_added, merged=summary.conversations_merged
                )
            )
            self.host.history_replaced()
            self.refresh()

        self.host.run_on_history(job, done, self._failed)
