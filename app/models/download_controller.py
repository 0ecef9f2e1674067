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
from dataclasses import replace
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, Signal, Slot

from app.common.i18n import tr
from engine.advice import fit_by_size
from engine.errors import EngineError, HubNotFound, InsufficientMemory
from engine.hub import (
    Download,
    DownloadManager,
    DownloadProgress,
    DownloadRequest,
    Hub,
    check_repo,
    projector_for,
    quant_of,
    single_ggufs,
)
from engine.units import format_bytes

if TYPE_CHECKING:
    from engine.hardware.report import HardwareReport

DEFAULT_QUANT = "Q4_K_M"  # the build a repository's file is chosen by first, as cove pull does
UPDATE_INTERVAL_S = 0.1  # about ten UI updates a second per download
LIVE = frozenset({"queued", "resolving", "downloading", "verifying", "repairing", "installing"})


def _pieces(text: str) -> list[str]:
    """``owner/repo[/FILE]`` or a hub address of it, in pieces."""
    text = text.strip().strip("/")
    for prefix in ("https://huggingface.co/", "http://huggingface.co/", "hf.co/"):
        if text.startswith(prefix):
            text = text[len(prefix) :]
    pieces = [p for p in text.split("/") if p]
    if len(pieces) >= 4 and pieces[2] in ("resolve", "blob"):
        pieces = pieces[:2] + pieces[4:]  # owner/repo/resolve/main/FILE
    if len(pieces) >= 3 and pieces[2] == "tree":  # a folder's page: the repository
        pieces = pieces[:2]
    return pieces


def parse_repo(text: str) -> str | None:
    """The repository when ``text`` names one without a file (Cove then chooses the file);
    None otherwise."""
    pieces = _pieces(text)
    return "/".join(pieces) if len(pieces) == 2 else None


def parse_request(text: str) -> DownloadRequest:
    """``owner/repo/FILE`` (or a hub address ending in it) as a request; ValueError in words."""
    pieces = _pieces(text)
    if len(pieces) < 3:
        raise ValueError(
            tr(
                "Downloads",
                "Give a repository as owner/repo (Cove chooses the file that suits this "
                "computer), or one file as owner/repo/FILE, for example {example}.",
            ).format(
                example="HuggingFaceTB/SmolLM2-135M-Instruct-GGUF/smollm2-135m-instruct-q8_0.gguf"
            )
        )
    repo, file = "/".join(pieces[:2]), "/".join(pieces[2:])
    try:
        check_repo(repo)
    except EngineError as exc:
        raise ValueError(str(exc)) from exc
    return DownloadRequest(repo, file)


def choose_file(hub: Hub, repo: str, report: HardwareReport | None) -> DownloadRequest:
    """The GGUF file of ``repo`` that suits this computer, as ``cove pull owner/repo`` chooses:
    its 4-bit, medium quality build (Q4_K_M), else the largest whose size fits in the memory
    free here (the smallest while this computer is not known yet); with the vision projector the
    repository ships, in the same download. Blocking (it asks the hub); errors in words."""
    files = hub.list_files(check_repo(repo))
    candidates = single_ggufs(files)
    if not candidates:
        raise HubNotFound(
            tr(
                "Downloads",
                "{repo} has no model file Cove can choose: it holds no single-file GGUF model. "
                "Name one of its files as owner/repo/FILE, or look for the model on Discover.",
            ).format(repo=repo)
        )
    wanted = [f for f in candidates if quant_of(f.path) == DEFAULT_QUANT]
    if wanted:
        chosen = min(wanted, key=lambda f: f.path)
    elif report is None:
        chosen = min(candidates, key=lambda f: f.size)
    else:
        by_size = sorted(candidates, key=lambda f: f.size, reverse=True)
        fits = {f.path: fit_by_size(f.size, report)[0] for f in by_size}
        usable = [f for f in by_size if fits[f.path] == "fits"]
        usable = usable or [f for f in by_size if fits[f.path] == "tight"]
        if not usable:
            smallest = by_size[-1]
            raise InsufficientMemory(
                tr(
                    "Downloads",
                    "No model file of {repo} fits in the memory free here: the smallest, {file}, "
                    "is {size}. Close other programs, or choose a smaller model.",
                ).format(repo=repo, file=smallest.path, size=format_bytes(smallest.size))
            )
        chosen = usable[0]
    request = DownloadRequest(chosen.repo, chosen.path, chosen.revision, chosen.sha256)
    projector = projector_for(chosen.path, files)
    if projector is not None:
        request = replace(request, projector=projector.path, projector_sha256=projector.sha256)
    return request


class DownloadController(QObject):
    """Owns the download manager (made on the first download) and relays its progress."""

    download_added = Signal(object)  # Download
    download_progressed = Signal(object, object)  # Download, DownloadProgress
    download_finished = Signal(object, object)  # Download, DownloadProgress (status "done")
    choose_failed = Signal(str, str)  # (repository, why): no file of it could be chosen
    _ticked = Signal(object, object)  # from the manager's threads
    _chosen = Signal(str, object)  # (repository, DownloadRequest or the error), from a thread

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
        # This computer as the probe saw it: what fits here decides the file of a repository.
        self.report: HardwareReport | None = None
        # Queued: the listener runs on a download thread, the relay on the UI thread.
        self._ticked.connect(self._relay, Qt.ConnectionType.QueuedConnection)
        self._chosen.connect(self._add_chosen, Qt.ConnectionType.QueuedConnection)

    def add(self, request: DownloadRequest) -> Download:
        """Queue a download; ValueError when the same file is already in the queue."""
        for download in self.downloads:
            if download.request.name == request.name and download.progress().status in (
                LIVE | {"paused", "failed"}
            ):
                raise ValueError(
                    tr("Downloads", "{name} is already in the downloads.").format(name=request.name)
                )
        if self._manager is None:
            self._manager = self._make_manager()
        download = self._manager.enqueue(request)
        self.downloads.append(download)
        download.add_listener(self._listener(download))
        self.download_added.emit(download)
        # A status set before the listener was attached (a fast "done") is not lost.
        self._ticked.emit(download, download.progress())
        return download

    def add_from_repo(self, repo: str) -> None:
        """Download the file of ``repo`` that suits this computer (``choose_file``), chosen off
        the UI thread; ``download_added`` follows, or ``choose_failed`` with the reason."""
        if self._manager is None:
            self._manager = self._make_manager()
        hub, report = self._manager.hub, self.report

        def choose() -> None:
            try:
                self._chosen.emit(repo, choose_file(hub, repo, report))
            except (EngineError, ValueError, OSError) as exc:
                self._chosen.emit(repo, exc)

        threading.Thread(target=choose, name="cove-choose-file", daemon=True).start()

    @Slot(str, object)
    def _add_chosen(self, repo: str, chosen: object) -> None:
        if not isinstance(chosen, DownloadRequest):
            self.choose_failed.emit(repo, str(chosen))
            return
        try:
            self.add(chosen)
        except ValueError as exc:
            self.choose_failed.emit(repo, str(exc))

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
