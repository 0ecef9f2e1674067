"""Downloads in the window's process: the engine's download manager, its progress brought to the
UI thread as Qt signals.

The manager runs its own threads beside the engine host, so an engine crash or restart never
stops a download. Its listeners are called on those threads for every progress tick; here they are
coalesced to at most one signal per ``interval_s`` per download (a change of status always goes
through at once), then queued to the UI thread.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from PySide6.QtCore import QObject, Qt, Signal, Slot

from engine.errors import EngineError
from engine.hub.api import check_repo
from engine.hub.download import Download, DownloadManager, DownloadProgress, DownloadRequest

UPDATE_INTERVAL_S = 0.1  # about ten UI updates a second per download
LIVE = frozenset({"queued", "resolving", "downloading", "verifying", "repairing", "installing"})


def parse_request(text: str) -> DownloadRequest:
    """``owner/repo/FILE`` (or a hub address ending in it) as a request; ValueError in words."""
    text = text.strip().strip("/")
    for prefix in ("https://huggingface.co/", "http://huggingface.co/", "hf.co/"):
        if text.startswith(prefix):
            text = text[len(prefix) :]
    pieces = [p for p in text.split("/") if p]
    if len(pieces) >= 4 and pieces[2] in ("resolve", "blob"):
        pieces = pieces[:2] + pieces[4:]  # owner/repo/resolve/main/FILE
    if len(pieces) < 3:
        raise ValueError(
            "Give the repository and the file: owner/repo/FILE, for example "
            "HuggingFaceTB/SmolLM2-135M-Instruct-GGUF/smollm2-135m-instruct-q8_0.gguf."
        )
    repo, file = "/".join(pieces[:2]), "/".join(pieces[2:])
    try:
        check_repo(repo)
    except EngineError as exc:
        raise ValueError(str(exc)) from exc
    return DownloadRequest(repo, file)


class DownloadController(QObject):
    """Owns the download manager (made on the first download) and relays its progress."""

    download_added = Signal(object)  # Download
    download_progressed = Signal(object, object)  # Download, DownloadProgress
    download_finished = Signal(object, object)  # Download, DownloadProgress (status "done")
    _ticked = Signal(object, object)  # from the manager's threads

    def __init__(
        self,
        make_manager: Callable[[], DownloadManager] = DownloadManager,
        interval_s: float = UPDATE_INTERVAL_S,
    ) -> None:
        super().__init__()
        self._make_manager = make_manager
        self._manager: DownloadManager | None = None
        self._interval = interval_s
        self.downloads: list[Download] = []
        self._finished: set[int] = set()  # ids of the downloads announced as finished
        # Queued: the listener runs on a download thread, the relay on the UI thread.
        self._ticked.connect(self._relay, Qt.ConnectionType.QueuedConnection)

    def add(self, request: DownloadRequest) -> Download:
        """Queue a download; ValueError when the same file is already in the queue."""
        for download in self.downloads:
            if download.request.name == request.name and download.progress().status in (
                LIVE | {"paused", "failed"}
            ):
                raise ValueError(f"{request.name} is already in the downloads.")
        if self._manager is None:
            self._manager = self._make_manager()
        download = self._manager.enqueue(request)
        self.downloads.append(download)
        download.add_listener(self._listener(download))
        self.download_added.emit(download)
        # A status set before the listener was attached (a fast "done") is not lost.
        self._ticked.emit(download, download.progress())
        return download

    def active_names(self) -> set[str]:
        """Files the queue holds a partial download of (running, paused or failed): a vision
        model's projector too."""
        names: set[str] = set()
        for d in self.downloads:
            if d.progress().status in LIVE | {"paused", "failed"}:
                names.add(d.request.name)
                if d.request.projector is not None:
                    names.add(f"{d.request.repo}/{d.request.projector}")
        return names

    def close(self) -> None:
        """Pause what runs (the partial files stay, a later start resumes) and stop."""
        if self._manager is not None:
            self._manager.close()
            self._manager = None

    def _listener(self, download: Download) -> Callable[[DownloadProgress], None]:
        lock = threading.Lock()
        last_time, last_status = 0.0, ""

        def listen(progress: DownloadProgress) -> None:
            nonlocal last_time, last_status
            now = time.monotonic()
            with lock:
                due = progress.status != last_status or now - last_time >= self._interval
                if due:
                    last_time, last_status = now, progress.status
            if due:
                self._ticked.emit(download, progress)

        return listen

    @Slot(object, object)
    def _relay(self, download: Download, progress: DownloadProgress) -> None:
        # Signals can overtake a listener's late copy: show the download's state as it is now.
        current = download.progress()
        self.download_progressed.emit(download, current)
        if current.status == "done" and id(download) not in self._finished:
            self._finished.add(id(download))
            self.download_finished.emit(download, current)
