"""The Models view's Downloads tab: add a file by name, and one row per download with its
progress, speed, time left, pause/resume/cancel, its error in words, and "Chat with it"."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from app.models.download_controller import LIVE, DownloadController, parse_request
from engine.hub.download import Download, DownloadProgress
from engine.units import format_bytes

STATUS_WORDS = {
    "queued": "Waiting",
    "resolving": "Asking the hub",
    "downloading": "Downloading",
    "verifying": "Checking the file",
    "repairing": "Fetching damaged parts again",
    "installing": "Installing",
    "paused": "Paused",
    "done": "Installed",
    "failed": "Failed",
    "cancelled": "Cancelled",
}


def format_eta(seconds: float | None) -> str:
    if seconds is None:
        return ""
    if seconds < 60:
        return f"{max(1, round(seconds))} s left"
    if seconds < 3600:
        return f"{round(seconds / 60)} min left"
    hours, minutes = divmod(round(seconds / 60), 60)
    return f"{hours} h {minutes} min left"


def describe(progress: DownloadProgress) -> str:
    """The line under a download's bar: what it is doing, how far, how fast, how long."""
    words = [STATUS_WORDS.get(progress.status, progress.status)]
    if progress.total_bytes and progress.status != "done":
        words.append(f"{format_bytes(progress.done_bytes)} of {format_bytes(progress.total_bytes)}")
    elif progress.status == "done" and progress.total_bytes:
        words.append(format_bytes(progress.total_bytes))
    if progress.status == "downloading" and progress.speed_bps > 0:
        words.append(f"{format_bytes(progress.speed_bps)}/s")
        eta = format_eta(progress.eta_s)
        if eta:
            words.append(eta)
    return " · ".join(words)


class DownloadRow(QFrame):
    """One download. Its buttons act on the engine's ``Download`` (thread-safe, non-blocking)."""

    chat_requested = Signal(str)  # the installed file's path

    def __init__(self, download: Download) -> None:
        super().__init__()
        self.download = download
        self.setObjectName("DownloadRow")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 8, 12, 8)
        layout.setSpacing(4)
        top = QHBoxLayout()
        request = download.request
        vision = "  · with its vision projector" if request.projector else ""
        self.name = QLabel(f"<b>{request.file}</b>  <span>{request.repo}{vision}</span>")
        if request.projector:
            self.name.setToolTip(f"Reads images with {request.projector}, downloaded with it.")
        self.name.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        top.addWidget(self.name, 1)
        self.pause_button = QPushButton("Pause")
        self.resume_button = QPushButton("Resume")
        self.cancel_button = QPushButton("Cancel")
        self.chat_button = QPushButton("Chat with it")
        self.chat_button.setObjectName("Primary")
        for button in (self.pause_button, self.resume_button, self.cancel_button):
            button.setObjectName("Secondary")
        for button in (self.pause_button, self.resume_button, self.cancel_button, self.chat_button):
            top.addWidget(button)
        layout.addLayout(top)
        self.bar = QProgressBar()
        self.bar.setRange(0, 1000)
        self.bar.setTextVisible(False)
        self.bar.setObjectName("DownloadBar")
        layout.addWidget(self.bar)
        self.status = QLabel("")
        self.status.setProperty("muted", True)
        layout.addWidget(self.status)
        self.error = QLabel("")
        self.error.setWordWrap(True)
        self.error.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.error.setObjectName("DownloadError")
        layout.addWidget(self.error)

        self.pause_button.clicked.connect(download.pause)
        self.resume_button.clicked.connect(download.resume)
        self.cancel_button.clicked.connect(download.cancel)
        self.chat_button.clicked.connect(self._chat)
        self.show_progress(download.progress())

    def show_progress(self, progress: DownloadProgress) -> None:
        status = progress.status
        self.bar.setValue(round(min(1.0, progress.fraction) * 1000))
        self.bar.setVisible(status != "cancelled" and progress.total_bytes > 0)
        self.status.setText(describe(progress))
        self.error.setText(progress.error or "" if status == "failed" else "")
        self.error.setVisible(status == "failed" and bool(progress.error))
        self.pause_button.setVisible(status in LIVE)
        self.resume_button.setVisible(status in ("paused", "failed"))
        self.resume_button.setText("Try again" if status == "failed" else "Resume")
        self.cancel_button.setVisible(status in LIVE | {"paused", "failed"})
        self.chat_button.setVisible(status == "done" and self._chat_target() is not None)

    def _chat_target(self) -> str | None:
        """The model to chat with: the file, or for a model folder's last file (its
        genai_config.json) the folder; None for the other files of a folder or an encoder."""
        path = self.download.progress().path
        if path is None:
            return None
        if self.download.request.dest is None:
            return str(path)
        return str(path.parent) if path.name == "genai_config.json" else None

    def _chat(self) -> None:
        target = self._chat_target()
        if target is not None:
            self.chat_requested.emit(target)


class DownloadsView(QWidget):
    chat_requested = Signal(str)  # a downloaded model's id (its path), to load and chat with

    def __init__(self, controller: DownloadController) -> None:
        super().__init__()
        self.controller = controller
        self.rows: dict[int, DownloadRow] = {}  # by id() of the Download
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 12, 0, 0)
        layout.setSpacing(8)
        add = QHBoxLayout()
        self.field = QLineEdit()
        self.field.setPlaceholderText("owner/repo/FILE.gguf, as on the Hugging Face Hub")
        self.field.setAccessibleName("Model to download")
        self.field.returnPressed.connect(self.add_from_field)
        self.add_button = QPushButton("Add download")
        self.add_button.setObjectName("Primary")
        self.add_button.clicked.connect(self.add_from_field)
        add.addWidget(self.field, 1)
        add.addWidget(self.add_button)
        layout.addLayout(add)
        self.message = QLabel("")
        self.message.setWordWrap(True)
        self.message.setVisible(False)
        layout.addWidget(self.message)

        self.empty = QLabel(
            "No downloads yet. Downloads go on while you chat, and a paused or interrupted one "
            "resumes where it stopped."
        )
        self.empty.setProperty("muted", True)
        self.empty.setWordWrap(True)
        layout.addWidget(self.empty)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        holder = QWidget()
        self.list = QVBoxLayout(holder)
        self.list.setContentsMargins(0, 0, 0, 0)
        self.list.setSpacing(8)
        self.list.addStretch(1)
        scroll.setWidget(holder)
        scroll.viewport().setAutoFillBackground(False)  # the page's background, not the window's
        holder.setAutoFillBackground(False)
        layout.addWidget(scroll, 1)

        controller.download_added.connect(self._added)
        controller.download_progressed.connect(self._progressed)

    def add_from_field(self) -> None:
        try:
            self.controller.add(parse_request(self.field.text()))
        except ValueError as exc:
            self.message.setText(str(exc))
            self.message.setVisible(True)
            return
        self.field.clear()
        self.message.setVisible(False)

    def row(self, download: Download) -> DownloadRow:
        return self.rows[id(download)]

    def _added(self, download: Download) -> None:
        row = DownloadRow(download)
        row.chat_requested.connect(self.chat_requested)
        self.rows[id(download)] = row
        self.list.insertWidget(0, row)  # the newest on top
        self.empty.setVisible(False)

    def _progressed(self, download: Download, progress: DownloadProgress) -> None:
        row = self.rows.get(id(download))
        if row is not None:
            row.show_progress(progress)
