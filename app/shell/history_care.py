"""The chat history's care while the window runs: a backup a day on a thread of its own, the
banner that says a damaged history was repaired, and the history as Settings › Data reaches it.

A backup reads the history through a connection of its own (engine/store/backups.py), on the
``backups`` thread: the store's thread, the replies and the window never wait on it.
"""

from __future__ import annotations

import datetime
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout

from app.common.i18n import tr
from app.common.workers import WorkerPool, post_to_ui
from engine.paths import shown

if TYPE_CHECKING:
    from app.chat.controller import ChatController
    from engine.store import Repair, Store

log = logging.getLogger(__name__)

CHECK_DUE_MS = 60 * 60 * 1000  # a window left open for days still backs up daily
SEEN_SETTING = "repair_seen_at"  # the newest repair the person dismissed the banner of


def problem_words(problem: str) -> str:
    """What was wrong, in the window's language."""
    from engine.store import repair as store_repair

    if store_repair.OLDER in problem:
        return tr("History", "it held fewer messages than before: its journal was lost, or an "
                  "older copy replaced it")  # fmt: skip
    if problem == store_repair.NOT_A_DATABASE:
        return tr("History", "the file is no longer a database: something wrote over it")
    return tr("History", "part of the file could not be read")


def repair_words(repair: Repair) -> str:
    if repair.backup_taken_at is not None:
        source = tr("History", "the backup of {when}").format(
            when=datetime.datetime.fromtimestamp(repair.backup_taken_at).strftime("%Y-%m-%d %H:%M")
        )
    else:
        source = tr("History", "no backup (there was none yet)")
    return tr(
        "History",
        "Cove found the chat history damaged ({problem}) and rebuilt it from {source} and "
        "everything the damaged file still held: {chats} chats are here. The damaged file is "
        "kept, unchanged, in {folder}.",
    ).format(
        problem=problem_words(repair.problem),
        source=source,
        chats=repair.conversations,
        folder=shown(repair.damaged_copy),
    )


class HistoryBanner(QFrame):
    """Says what was repaired, until dismissed."""

    dismissed = Signal(float)  # the repair's time

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("Banner")
        self.setAccessibleName(tr("History", "Chat history repaired"))
        layout = QHBoxLayout(self)
        layout.setContentsMargins(16, 10, 16, 10)
        text = QVBoxLayout()
        text.setSpacing(2)
        self.title = QLabel("<b>{}</b>".format(tr("History", "Your chat history was repaired")))
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        text.addWidget(self.title)
        text.addWidget(self.message)
        layout.addLayout(text, 1)
        self.folder_button = QPushButton(tr("History", "Show the damaged file"))
        self.folder_button.setObjectName("Secondary")
        self.folder_button.clicked.connect(self._open_folder)
        self.dismiss_button = QPushButton(tr("History", "Dismiss"))
        self.dismiss_button.setObjectName("Secondary")
        self.dismiss_button.clicked.connect(self._dismiss)
        layout.addWidget(self.folder_button, 0, Qt.AlignmentFlag.AlignTop)
        layout.addWidget(self.dismiss_button, 0, Qt.AlignmentFlag.AlignTop)
        self._folder: str = ""
        self._at = 0.0
        self.setVisible(False)

    def show_repair(self, repair: Repair) -> None:
        self._folder = str(repair.damaged_copy)
        self._at = repair.at
        self.message.setText(repair_words(repair))
        self.setVisible(True)

    def _dismiss(self) -> None:
        self.setVisible(False)
        self.dismissed.emit(self._at)

    def _open_folder(self) -> None:
        if self._folder:
            QDesktopServices.openUrl(QUrl.fromLocalFile(self._folder))


class HistoryCare(QObject):
    """Backs the history up and shows its repairs; Settings › Data's ``HistoryHost``."""

    backed_up = Signal(object)  # Backup
    replaced = Signal()  # a restore or an import changed what the sidebar lists

    def __init__(self, controller: ChatController, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        self.banner = HistoryBanner()
        self.pool = WorkerPool("backups", 1)
        self._backing_up = False
        self._timer = QTimer(self)
        self._timer.setInterval(CHECK_DUE_MS)
        self._timer.timeout.connect(self.back_up_if_due)

    def opened(self, store: Store) -> None:
        """The history is open: say what was repaired on the way, and back up if a day passed."""
        store.on_repaired = lambda repair: post_to_ui(lambda: self.banner.show_repair(repair))
        self.banner.dismissed.connect(self._seen, Qt.ConnectionType.UniqueConnection)

        def unseen() -> Repair | None:
            # Also a repair another Cove process made (a command, a start that ended early).
            from engine.store import repairs_log

            newest = repairs_log(store.path)[:1]
            seen = store.get_setting(SEEN_SETTING, 0.0)
            seen = seen if isinstance(seen, int | float) else 0.0
            return newest[0] if newest and newest[0].at > seen else None

        def show(repair: Repair | None) -> None:
            if repair is not None:
                self.banner.show_repair(repair)

        self.pool.submit(unseen, show, lambda _exc: None)
        self.back_up_if_due()
        self._timer.start()

    def _seen(self, at: float) -> None:
        store = self.controller.store
        if store is not None:
            self.pool.submit(lambda: store.set_setting(SEEN_SETTING, at))

    def back_up_if_due(self) -> None:
        store = self.controller.store
        if store is None or self._backing_up:
            return
        self._backing_up = True

        def job() -> object | None:
            # An empty history has nothing to keep, and a backup of it would put off the first
            # backup worth having by a day.
            if not store.backups.due() or not store.list_conversations():
                return None
            return store.backup("daily")

        def done(backup: object | None) -> None:
            self._backing_up = False
            if backup is not None:
                self.backed_up.emit(backup)

        def failed(exc: BaseException) -> None:
            # Not worth a notice at every hour; Settings › Data shows the backups there are.
            self._backing_up = False
            log.warning("the daily backup failed: %s", exc)

        self.pool.submit(job, done, failed)

    def run_on_history(
        self,
        job: Callable[[Store], Any],
        done: Callable[[Any], None],
        failed: Callable[[str], None],
    ) -> None:
        store = self.controller.store
        if store is None:
            failed(tr("History", "The chat history is still opening; try again in a moment."))
            return
        self.pool.submit(lambda: job(store), done, lambda exc: failed(str(exc)))

    def history_replaced(self) -> None:
        self.controller.history_replaced()
        self.replaced.emit()

    def close(self) -> None:
        self._timer.stop()
        self.pool.wait(30_000)
