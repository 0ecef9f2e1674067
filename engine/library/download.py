"""The download manager: a queue of files to fetch from the hub, each with its progress (speed,
ETA), pause, resume and cancel.

Downloads run in the process that asks for them (the window, ``cove pull``), on threads of their
own, never in the engine host: a host crash or restart does not touch them. What a download has
fetched is on disk beside its target (``engine.library.partial``), so a later run of the same
download, in any process, resumes it.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from engine.errors import DownloadCancelled, DownloadError, EngineError
from engine.library.hub import Hub, HubConfig, check_repo
from engine.library.layout import dest_path, target_path
from engine.library.partial import FileSpec
from engine.library.small_file import MAX_GIT_FILE, fetch_git_file
from engine.library.transfer import (
    Control,
    FreeSpace,
    Transfer,
    TransferOptions,
    TransferStats,
    free_disk_space,
)
from engine.paths import models_dir

Status = Literal[
    "queued",
    "resolving",
    "downloading",
    "verifying",
    "repairing",
    "installing",
    "paused",
    "done",
    "failed",
    "cancelled",
]
FINAL: frozenset[Status] = frozenset({"paused", "done", "failed", "cancelled"})
SPEED_WINDOW_S = 5.0


@dataclass(frozen=True, slots=True)
class DownloadRequest:
    repo: str
    file: str
    revision: str = "main"
    sha256: str | None = None  # from the catalog; otherwise the hub's LFS metadata says
    # Where it goes, relative to the models folder, for files of a model folder (an ONNX build);
    # None: the repository's flat folder (``layout.target_path``).
    dest: str | None = None
    # A small file kept in git itself (no LFS SHA-256): its git blob SHA-1, from the hub's listing,
    # is what it is checked against. Unknown here, the listing is asked when the hub's answer
    # carries no SHA-256.
    blob_oid: str | None = None

    @property
    def name(self) -> str:
        return f"{self.repo}/{self.file}"


@dataclass(frozen=True, slots=True)
class DownloadProgress:
    name: str
    status: Status
    done_bytes: int = 0
    total_bytes: int = 0
    speed_bps: float = 0.0
    eta_s: float | None = None
    fetched_bytes: int = 0  # over the network in this session
    resumed_bytes: int = 0  # already on disk when this session started
    reread_bytes: int = 0
    retries: int = 0
    restarts: int = 0
    path: Path | None = None  # the installed file, once done
    error: str | None = None
    error_code: str | None = None

    @property
    def fraction(self) -> float:
        return self.done_bytes / self.total_bytes if self.total_bytes else 0.0

    def to_dict(self) -> dict[str, object]:
        return {
            "model": self.name,
            "status": self.status,
            "done_bytes": self.done_bytes,
            "total_bytes": self.total_bytes,
            "speed_bytes_per_s": round(self.speed_bps),
            "eta_s": None if self.eta_s is None else round(self.eta_s, 1),
            "fetched_bytes": self.fetched_bytes,
            "resumed_bytes": self.resumed_bytes,
            "retries": self.retries,
            "restarts": self.restarts,
            "path": str(self.path) if self.path else None,
            "error": self.error,
            "error_code": self.error_code,
        }


class SpeedMeter:
    """Bytes per second over the last few seconds, and the time left at that pace."""

    def __init__(self, window_s: float = SPEED_WINDOW_S) -> None:
        self._window = window_s
        self._samples: deque[tuple[float, int]] = deque()

    def add(self, done: int, now: float | None = None) -> float:
        now = time.monotonic() if now is None else now
        self._samples.append((now, done))
        while len(self._samples) > 2 and now - self._samples[0][0] > self._window:
            self._samples.popleft()
        (t0, d0), (t1, d1) = self._samples[0], self._samples[-1]
        return (d1 - d0) / (t1 - t0) if t1 > t0 else 0.0


Listener = Callable[[DownloadProgress], None]


class Download:
    """One queued file: read its progress, pause, resume, cancel, wait."""

    def __init__(self, manager: DownloadManager, request: DownloadRequest) -> None:
        self.request = request
        self._manager = manager
        self._cond = threading.Condition()
        self._progress = DownloadProgress(request.name, "queued")
        self._listeners: list[Listener] = []
        self._control = Control()
        self._meter = SpeedMeter()

    def progress(self) -> DownloadProgress:
        with self._cond:
            return self._progress

    def add_listener(self, listener: Listener) -> None:
        with self._cond:
            self._listeners.append(listener)

    def pause(self) -> None:
        with self._cond:
            if self._progress.status == "queued":
                self._manager._unqueue(self)
                self._set(status="paused")
        self._control.pause()

    def resume(self) -> None:
        with self._cond:
            if self._progress.status not in ("paused", "failed"):
                return
            self._control = Control()
            self._set(status="queued", error=None, error_code=None)
        self._manager._queue(self)

    def cancel(self) -> None:
        with self._cond:
            status = self._progress.status
        if status in ("queued", "paused", "failed"):
            self._manager._unqueue(self)
            from engine.library.partial import remove_partial

            remove_partial(self._manager.target(self.request))
            with self._cond:
                self._set(status="cancelled")
            return
        self._control.cancel()

    def wait(self, timeout: float | None = None) -> DownloadProgress:
        """Block until the download is done, paused, failed or cancelled."""
        with self._cond:
            self._cond.wait_for(lambda: self._progress.status in FINAL, timeout)
            return self._progress

    @property
    def control(self) -> Control:
        return self._control

    def _set(self, **changes: object) -> None:
        """Under ``_cond``."""
        self._progress = replace(self._progress, **changes)  # type: ignore[arg-type]
        self._cond.notify_all()
        progress, listeners = self._progress, list(self._listeners)
        for listener in listeners:
            with contextlib.suppress(Exception):
                listener(progress)

    def _update(self, **changes: object) -> None:
        with self._cond:
            self._set(**changes)

    def _stats(self, stats: TransferStats) -> None:
        speed = self._meter.add(stats.done_bytes)
        left = stats.total_bytes - stats.done_bytes
        self._update(
            status=stats.phase,
            done_bytes=stats.done_bytes,
            total_bytes=stats.total_bytes,
            speed_bps=speed,
            eta_s=left / speed if speed > 0 else None,
            fetched_bytes=stats.fetched_bytes,
            reread_bytes=stats.reread_bytes,
            retries=stats.retries,
            restarts=stats.restarts,
        )


class DownloadManager:
    """Runs queued downloads, ``max_active`` at a time, on threads of its own."""

    def __init__(
        self,
        config: HubConfig | None = None,
        *,
        models: Path | None = None,
        options: TransferOptions | None = None,
        max_active: int = 1,
        free_space: FreeSpace = free_disk_space,
        hub: Hub | None = None,
    ) -> None:
        self._hub = hub or Hub(config or HubConfig.resolve())
        self._models = models
        self._options = options or TransferOptions()
        self._free_space = free_space
        self._cond = threading.Condition()
        self._queued: deque[Download] = deque()
        self._all: list[Download] = []
        self._closed = False
        self._threads = [
            threading.Thread(target=self._runner, name=f"cove-download-{i}", daemon=True)
            for i in range(max_active)
        ]
        for thread in self._threads:
            thread.start()

    @property
    def hub(self) -> Hub:
        return self._hub

    def target(self, request: DownloadRequest) -> Path:
        models = self._models if self._models is not None else models_dir()
        if request.dest is not None:
            return dest_path(models, request.dest)
        return target_path(models, check_repo(request.repo), request.file)

    def enqueue(self, request: DownloadRequest) -> Download:
        check_repo(request.repo)
        download = Download(self, request)
        with self._cond:
            self._all.append(download)
        self._queue(download)
        return download

    def downloads(self) -> list[Download]:
        with self._cond:
            return list(self._all)

    def close(self) -> None:
        """Pause what runs (its progress is kept) and stop the runners."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
            active = list(self._all)
        for download in active:
            download.control.pause()
        for thread in self._threads:
            thread.join()
        self._hub.close()

    def _queue(self, download: Download) -> None:
        with self._cond:
            self._queued.append(download)
            self._cond.notify_all()

    def _unqueue(self, download: Download) -> None:
        with self._cond, contextlib.suppress(ValueError):
            self._queued.remove(download)

    def _runner(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._closed or bool(self._queued))
                if self._closed:
                    return
                download = self._queued.popleft()
            self._run(download)

    def _run(self, download: Download) -> None:
        request, control = download.request, download.control
        try:
            target = self.target(request)
            if target.is_file():
                size = target.stat().st_size
                download._update(status="done", done_bytes=size, total_bytes=size, path=target)
                return
            download._update(status="resolving")
            listed_blob = request.blob_oid if request.sha256 is None else None
            source = listed_blob or self._spec(request)
            if isinstance(source, str):
                size = fetch_git_file(
                    self._hub, request.repo, request.file, request.revision, source, target
                )
                download._update(status="done", done_bytes=size, total_bytes=size, path=target)
                return
            spec, url, ranged = source
            transfer = Transfer(
                self._hub,
                spec,
                url,
                target,
                ranged=ranged,
                options=self._options,
                control=control,
                on_progress=download._stats,
                free_space=self._free_space,
            )
            download._update(
                total_bytes=spec.size,
                done_bytes=transfer.resumed_bytes,
                resumed_bytes=transfer.resumed_bytes,
            )
            installed = transfer.run()
            download._stats(transfer.stats())
            if installed:
                download._update(status="done", path=target, speed_bps=0.0, eta_s=0.0)
            else:
                download._update(status="paused", speed_bps=0.0, eta_s=None)
        except DownloadCancelled as exc:
            download._update(status="cancelled", error=str(exc), error_code=exc.code)
        except EngineError as exc:
            download._update(status="failed", error=str(exc), error_code=exc.code)
        except Exception as exc:  # a runner's boundary: the queue goes on
            error = DownloadError(f"{request.name}: the download failed ({exc}).")
            download._update(status="failed", error=str(error), error_code=error.code)

    def _spec(self, request: DownloadRequest) -> tuple[FileSpec, str, bool] | str:
        """Size and SHA-256 (the catalog's, else the LFS metadata's, else the linked ETag's),
        and the address of the bytes; or, for a small file kept in git itself, the git blob
        SHA-1 it is fetched whole and checked against."""
        hub = self._hub
        resolved = hub.resolve(request.repo, request.file, request.revision)
        size, sha = resolved.size, request.sha256 or resolved.sha256
        if sha is None or size < 0:
            listed = {f.path: f for f in hub.list_files(request.repo, request.revision)}
            entry = listed.get(request.file)
            if entry is not None:
                size = entry.size if size < 0 else size
                sha = sha or entry.sha256
                if sha is None and entry.blob_oid is not None and entry.size <= MAX_GIT_FILE:
                    return entry.blob_oid
        if size < 0:
            raise DownloadError(f"The hub did not say how big {request.name} is. Try again later.")
        if sha is None:
            raise DownloadError(
                f"The hub publishes no SHA-256 for {request.name}, so Cove cannot verify it. "
                "Only files stored with Git LFS (model weights are) can be downloaded."
            )
        spec = FileSpec(request.repo, request.file, request.revision, size, sha.lower())
        return spec, resolved.url, resolved.accepts_ranges
