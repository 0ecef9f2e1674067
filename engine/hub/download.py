"""The download manager: a queue of files to fetch from the hub, each with its progress (speed,
ETA), pause, resume and cancel.

Downloads run in the process that asks for them (the window, ``cove pull``), on threads of their
own, never in the engine host: a host crash or restart does not touch them. What a download has
fetched is on disk beside its target (``engine.library.partial``), so a later run of the same
download, in any process, resumes it.

A vision model's download is one install of two files: its projector (``mmproj-….gguf``) and the
model, into the same folder. Both are resolved before the first byte (a projector missing on the
hub fails the download then, with nothing fetched), the projector is fetched and verified first and
the model last, so the model's file is there only once both are; the progress counts both.
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

from engine.errors import (
    DownloadCancelled,
    DownloadError,
    EngineError,
    HubNotFound,
    InsufficientDisk,
)
from engine.hub.api import Hub, HubConfig, check_repo
from engine.hub.small_file import MAX_GIT_FILE, fetch_git_file
from engine.hub.transfer import (
    Control,
    FreeSpace,
    Transfer,
    TransferOptions,
    TransferStats,
    free_disk_space,
)
from engine.library.layout import dest_path, target_path
from engine.library.partial import FileSpec, load_state, remove_partial
from engine.library.projectors import remove_unused
from engine.paths import models_dir
from engine.units import format_bytes

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
    # A vision model's projector: a GGUF of the same repository, fetched and verified in the same
    # download into the same folder, before the model.
    projector: str | None = None
    projector_sha256: str | None = None

    @property
    def name(self) -> str:
        return f"{self.repo}/{self.file}"

    def projector_request(self) -> DownloadRequest | None:
        """The projector's own request (its target is beside the model's)."""
        if self.projector is None:
            return None
        return DownloadRequest(self.repo, self.projector, self.revision, self.projector_sha256)


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
    projector: Path | None = None  # a vision model's installed projector, once done
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
            "projector": str(self.projector) if self.projector else None,
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
            self._manager.discard(self.request)
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
        """A transfer's progress (as the whole download's: ``_Tally.of`` adds the files before)."""
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

    def projector_target(self, request: DownloadRequest) -> Path | None:
        """Where a vision model's projector goes: beside the model."""
        projector = request.projector_request()
        if projector is None:
            return None
        models = self._models if self._models is not None else models_dir()
        name = target_path(models, check_repo(request.repo), projector.file).name
        return self.target(request).with_name(name)

    def discard(self, request: DownloadRequest) -> None:
        """What a cancelled download leaves: its partial files, and a projector it installed that
        no model beside it uses."""
        target = self.target(request)
        remove_partial(target)
        projector = self.projector_target(request)
        if projector is not None:
            remove_partial(projector)
            if not target.is_file():
                remove_unused(projector, besides=target)

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
            projector = self.projector_target(request)
            files = [(request, target)]
            projector_request = request.projector_request()
            if projector is not None and projector_request is not None:
                files.insert(0, (projector_request, projector))
            pending = [(r, t) for r, t in files if not t.is_file()]
            on_disk = sum(t.stat().st_size for _r, t in files if t.is_file())
            tally = _Tally(done=on_disk, resumed=on_disk)
            if not pending:
                size = tally.done
                download._update(status="done", done_bytes=size, total_bytes=size, path=target)
                download._update(projector=projector)
                return
            download._update(status="resolving")
            # Every file is resolved before the first byte: a projector the hub lacks is said
            # before any of the model is fetched.
            sources = [(r, t, self._source(r, request)) for r, t in pending]
            total = tally.done + sum(s.size for _r, _t, s in sources if isinstance(s, _Resolved))
            if len(sources) > 1:
                self._check_space(request, sources)
            for item, path, source in sources:
                if isinstance(source, str):
                    size = fetch_git_file(
                        self._hub, item.repo, item.file, item.revision, source, path
                    )
                    tally.done += size
                    download._update(done_bytes=tally.done, total_bytes=max(total, tally.done))
                    continue
                transfer = Transfer(
                    self._hub,
                    source.spec,
                    source.url,
                    path,
                    ranged=source.ranged,
                    options=self._options,
                    control=control,
                    on_progress=lambda stats: download._stats(tally.of(stats, total)),
                    free_space=self._free_space,
                )
                tally.resumed += transfer.resumed_bytes
                download._update(
                    total_bytes=total,
                    done_bytes=tally.done + transfer.resumed_bytes,
                    resumed_bytes=tally.resumed,
                )
                installed = transfer.run()
                download._stats(tally.of(transfer.stats(), total))
                if not installed:
                    download._update(status="paused", speed_bps=0.0, eta_s=None)
                    return
                tally.add(transfer.stats())
            download._update(
                status="done", path=target, projector=projector, speed_bps=0.0, eta_s=0.0
            )
        except DownloadCancelled as exc:
            with contextlib.suppress(OSError):
                self.discard(request)
            download._update(status="cancelled", error=str(exc), error_code=exc.code)
        except EngineError as exc:
            download._update(status="failed", error=str(exc), error_code=exc.code)
        except Exception as exc:  # a runner's boundary: the queue goes on
            error = DownloadError(f"{request.name}: the download failed ({exc}).")
            download._update(status="failed", error=str(error), error_code=error.code)

    def _source(self, item: DownloadRequest, request: DownloadRequest) -> _Resolved | str:
        """``_spec`` of one file of ``request``; a projector the hub does not have is said as
        the vision projector it is."""
        try:
            return self._spec(item)
        except HubNotFound:
            if item.file == request.file:
                raise
            raise HubNotFound(
                f"The vision projector of {request.name} ({item.file}) is not on the hub, so "
                f"nothing was downloaded: without it the model cannot read images. To install "
                f"the model for text alone, download {request.name} by itself."
            ) from None

    def _check_space(
        self, request: DownloadRequest, sources: list[tuple[DownloadRequest, Path, _Resolved | str]]
    ) -> None:
        """Room for every file of the install before the first byte of any."""
        need = 0
        for _item, path, source in sources:
            if isinstance(source, _Resolved):
                saved = load_state(path, source.spec)
                need += source.size - (saved.done_bytes if saved is not None else 0)
        margin = self._options.disk_margin
        folder = self.target(request).parent
        folder.mkdir(parents=True, exist_ok=True)
        free = self._free_space(folder)
        if free < need + margin:
            raise InsufficientDisk(
                f"Not enough disk space for {request.name} and its vision projector: they need "
                f"{format_bytes(need + margin)} ({format_bytes(need)} to download and a "
                f"{format_bytes(margin)} margin) but {format_bytes(free)} is free in {folder}. "
                "Free some space or delete models you no longer use."
            )

    def _spec(self, request: DownloadRequest) -> _Resolved | str:
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
        return _Resolved(spec, resolved.url, resolved.accepts_ranges)


@dataclass(frozen=True, slots=True)
class _Resolved:
    """A file to fetch: what it must be, and where its bytes are."""

    spec: FileSpec
    url: str
    ranged: bool

    @property
    def size(self) -> int:
        return self.spec.size


@dataclass(slots=True)
class _Tally:
    """The files of one download fetched so far, so that each transfer's progress is reported as
    the whole download's."""

    done: int = 0
    resumed: int = 0
    fetched: int = 0
    reread: int = 0
    retries: int = 0
    restarts: int = 0

    def of(self, stats: TransferStats, total: int) -> TransferStats:
        return replace(
            stats,
            done_bytes=self.done + stats.done_bytes,
            total_bytes=total,
            fetched_bytes=self.fetched + stats.fetched_bytes,
            reread_bytes=self.reread + stats.reread_bytes,
            retries=self.retries + stats.retries,
            restarts=self.restarts + stats.restarts,
        )

    def add(self, stats: TransferStats) -> None:
        self.done += stats.done_bytes
        self.fetched += stats.fetched_bytes
        self.reread += stats.reread_bytes
        self.retries += stats.retries
        self.restarts += stats.restarts
