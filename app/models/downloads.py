"""The Models view's Downloads tab: add a file by name, and one row per download with its
progress, speed, time left, pause/resume/cancel, its error in words, and "Chat with it"."""

from __future__ import annotations

from dataclasses import replace

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

from app.common.i18n import tr
from app.common.plain_words import quant_text
from app.models.download_controller import LIVE, DownloadController, parse_repo, parse_request
from engine.hub import Download, DownloadProgress, DownloadRequest, quant_of
from engine.units import format_bytes

NOT_FOUND = "hub_not_found"  # the error code of a repository or file the hub does not have


def status_words(status: str) -> str:
    words = {
        "queued": tr("Downloads", "Waiting"),
        "resolving": tr("Downloads", "Asking the hub"),
        "downloading": tr("Downloads", "Downloading"),
        "verifying": tr("Downloads", "Checking the file"),
        "repairing": tr("Downloads", "Fetching damaged parts again"),
        "installing": tr("Downloads", "Installing"),
        "paused": tr("Downloads", "Paused"),
        "done": tr("Downloads", "Installed"),
        "failed": tr("Downloads", "Failed"),
        "cancelled": tr("Downloads", "Cancelled"),
    }
    return words.get(status, status)


def format_eta(seconds: float | None) -> str:
    if seconds is None:
        return ""
    if seconds < 60:
        return tr("Downloads", "{s} s left").format(s=max(1, round(seconds)))
    if seconds < 3600:
        return tr("Downloads", "{min} min left").format(min=round(seconds / 60))
    hours, minutes = divmod(round(seconds / 60), 60)
    return tr("Downloads", "{h} h {min} min left").format(h=hours, min=minutes)


def describe(progress: DownloadProgress) -> str:
    """The line under a download's bar: what it is doing, how far, how fast, how long."""
    words = [status_words(progress.status)]
    if progress.total_bytes and progress.status != "done":
        words.append(
            tr("Downloads", "{done} of {total}").format(
                done=format_bytes(progress.done_bytes), total=format_bytes(progress.total_bytes)
            )
        )
    elif progress.status == "done" and progress.total_bytes:
        words.append(format_bytes(progress.total_bytes))
    if progress.status == "downloading" and progress.speed_bps > 0:
        words.append(f"{format_bytes(progress.speed_bps)}/s")
        eta = format_eta(progress.eta_s)
        if eta:
            words.append(eta)
    return " · ".join(words)


class DownloadRow(QFrame):
    """One download. Its buttons act on the engine's ``Download`` (thread-safe, non-blocking).
    A file the hub does not have offers to choose one of its repository instead; a vision
    projector the hub does not have, to download the model for text alone."""

    chat_requested = Signal(str)  # the installed file's path
    choose_requested = Signal(str)  # a repository: download the file that suits this computer
    text_only_requested = Signal(object)  # DownloadRequest: the model without its projector

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
        vision = "  · " + tr("Downloads", "with its vision projector") if request.projector else ""
        quant = quant_of(request.file) if request.dest is None else None
        words = quant_text(quant) if quant else ""
        kind = f" · {words}" if words else ""
        self.name = QLabel(f"<b>{request.file}</b>{kind}  <span>{request.repo}{vision}</span>")
        if request.projector:
            self.name.setToolTip(
                tr("Downloads", "Reads images with {projector}, downloaded with it.").format(
                    projector=request.projector
                )
            )
        self.name.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        top.addWidget(self.name, 1)
        self.pause_button = QPushButton(tr("Downloads", "Pause"))
        self.resume_button = QPushButton(tr("Downloads", "Resume"))
        self.cancel_button = QPushButton(tr("Downloads", "Cancel"))
        self.choose_button = QPushButton(tr("Downloads", "Choose a file for me"))
        self.choose_button.setToolTip(
            tr(
                "Downloads",
                "Downloads the file of {repo} that suits this computer: its 4-bit, medium "
                "quality build, else the largest that fits in the memory free here.",
            ).format(repo=request.repo)
        )
        self.text_only_button = QPushButton(tr("Downloads", "Download without image reading"))
        self.text_only_button.setToolTip(
            tr("Downloads", "Downloads {file} alone: the model reads text, not images.").format(
                file=request.file
            )
        )
        self.chat_button = QPushButton(tr("Downloads", "Chat with it"))
        self.chat_button.setObjectName("Primary")
        for button in (self.pause_button, self.resume_button, self.cancel_button):
            button.setObjectName("Secondary")
        for button in (self.choose_button, self.text_only_button):
            button.setObjectName("Primary")
        for button in (
            self.pause_button,
            self.resume_button,
            self.cancel_button,
            self.choose_button,
            self.text_only_button,
            self.chat_button,
        ):
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
        self.choose_button.clicked.connect(self._choose)
        self.text_only_button.clicked.connect(self._text_only)
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
        self.resume_button.setText(
            tr("Downloads", "Try again") if status == "failed" else tr("Downloads", "Resume")
        )
        self.cancel_button.setVisible(status in LIVE | {"paused", "failed"})
        self.chat_button.setVisible(status == "done" and self._chat_target() is not None)
        request = self.download.request
        missing = status == "failed" and progress.error_code == NOT_FOUND
        self.text_only_button.setVisible(missing and request.projector is not None)
        self.choose_button.setVisible(
            missing and request.projector is None and request.dest is None
        )

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

    def _choose(self) -> None:
        self.download.cancel()  # failed: it gives way to the file chosen instead
        self.choose_requested.emit(self.download.request.repo)

    def _text_only(self) -> None:
        request = self.download.request
        self.download.cancel()  # failed: it gives way to the model without its projector
        self.text_only_requested.emit(replace(request, projector=None, projector_sha256=None))


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
        self.field.setPlaceholderText(
            tr("Downloads", "owner/repo or owner/repo/FILE.gguf, as on the Hugging Face Hub")
        )
        self.field.setAccessibleName(tr("Downloads", "Model to download"))
        self.field.returnPressed.connect(self.add_from_field)
        self.add_button = QPushButton(tr("Downloads", "Add download"))
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
            tr(
                "Downloads",
                "No downloads yet. Downloads go on while you chat, and a paused or interrupted "
                "one resumes where it stopped.",
            )
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
        controller.choose_failed.connect(self._choose_failed)

    def add_from_field(self) -> None:
        repo = parse_repo(self.field.text())
        if repo is not None:
            self.field.clear()
            self.choose_from(repo)
            return
        try:
            self.controller.add(parse_request(self.field.text()))
        except ValueError as exc:
            self.say(str(exc))
            return
        self.field.clear()
        self.message.setVisible(False)

    def choose_from(self, repo: str) -> None:
        """Download the file of ``repo`` that suits this computer (chosen in the background)."""
        self.say(
            tr("Downloads", "Choosing the file of {repo} that suits this computer…").format(
                repo=repo
            )
        )
        self.controller.add_from_repo(repo)

    def add_request(self, request: DownloadRequest) -> None:
        try:
            self.controller.add(request)
        except ValueError as exc:
            self.say(str(exc))

    def say(self, text: str) -> None:
        self.message.setText(text)
        self.message.setVisible(bool(text))

    def _choose_failed(self, repo: str, why: str) -> None:
        self.say(tr("Downloads", "No file of {repo} was chosen: {why}").format(repo=repo, why=why))

    def row(self, download: Download) -> DownloadRow:
        return self.rows[id(download)]

    def _added(self, download: Download) -> None:
        row = DownloadRow(download)
        row.chat_requested.connect(self.chat_requested)
        row.choose_requested.connect(self.choose_from)
        row.text_only_requested.connect(self.add_request)
        self.message.setVisible(False)  # what was asked for is on its way
        self.rows[id(download)] = row
        self.list.insertWidget(0, row)  # the newest on top
        self.empty.setVisible(False)

    def _progressed(self, download: Download, progress: DownloadProgress) -> None:
        row = self.rows.get(id(download))
        if row is not None:
            row.show_progress(progress)
