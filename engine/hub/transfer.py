"""Fetch one file: parallel ranged parts written at their final offsets, SHA-256 while the bytes
stream, progress saved for a resume, a repair that re-fetches only what it must after a checksum
mismatch, and an atomic rename into place. The parts come off the wire through
``engine.hub.fetcher`` (requests, retries, restarts of stalled or crawling parts).

Threads: one per connection (``_worker``), the hash helper, the flusher (``_flusher``: it flushes
the written bytes to disk in the background, every ``flush_bytes`` and every ``save_interval_s``,
and only then records them in the progress file), and the caller's thread, which watches the
others (``_monitor``): it reports progress, restarts crawling parts and turns a pause or cancel
into a halt every worker sees between two reads.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import shutil
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from engine.errors import (
    ChecksumMismatch,
    DownloadCancelled,
    DownloadError,
    EngineError,
    Halted,
    InsufficientDisk,
    NoRanges,
)
from engine.hub.api import Hub
from engine.hub.fetcher import PartFetcher, Sink
from engine.hub.hashing import Hash, Release, StreamHasher, hash_from
from engine.hub.retry import Backoff
from engine.library.layout import partial_path, state_path
from engine.library.partial import (
    FileSpec,
    Part,
    PartialState,
    load_state,
    remove_partial,
    save_state,
    split_parts,
)
from engine.units import format_bytes

log = logging.getLogger(__name__)

Phase = Literal["downloading", "verifying", "repairing", "installing"]
FreeSpace = Callable[[Path], int]


def free_disk_space(path: Path) -> int:
    return shutil.disk_usage(path).free


@dataclass(frozen=True, slots=True)
class TransferOptions:
    connections: int = 4
    # Parts are at most this big, and small files are still split across the connections (in
    # parts of at least min_part_size): a part is also what a resume never fetches again.
    part_size: int = 64 << 20
    min_part_size: int = 1 << 20
    save_interval_s: float = 2.0
    tick_s: float = 0.25
    # A part below this share of the median speed of the others, for longer than the grace
    # period, is restarted on a fresh connection (a slow path or an overloaded CDN node).
    crawl_ratio: float = 0.1
    crawl_grace_s: float = 10.0
    max_restarts: int = 3
    disk_margin: int = 256 << 20
    backoff: Backoff = field(default_factory=Backoff)
    # Flush to disk (and record as done) once this much was written since the last flush, so
    # that the flushing runs beside the transfer rather than all of it before the rename.
    flush_bytes: int = 128 << 20
    # Read bodies off the socket into buffers of this size (False: always through httpx).
    socket_reader: bool = True
    buffer_size: int = 1 << 20
    buffers: int = 4  # per connection: one being filled, the others being hashed
    # A buffer is handed over (written, counted, hashed) when full or after this long.
    handoff_s: float = 0.25


@dataclass(frozen=True, slots=True)
class TransferStats:
    phase: Phase
    done_bytes: int
    total_bytes: int
    fetched_bytes: int  # from the network in this session, repairs included
    reread_bytes: int  # read back from disk by the hash (bytes that arrived ahead of the frontier)
    retries: int
    restarts: int


class Control:
    """Pause or cancel from any thread; the transfer stops between two chunks."""

    def __init__(self) -> None:
        self.stop = threading.Event()
        self.cancelled = False

    def pause(self) -> None:
        self.stop.set()

    def cancel(self) -> None:
        self.cancelled = True
        self.stop.set()


class Transfer:
    def __init__(
        self,
        hub: Hub,
        spec: FileSpec,
        url: str,
        target: Path,
        *,
        ranged: bool = True,
        options: TransferOptions | None = None,
        control: Control | None = None,
        on_progress: Callable[[TransferStats], None] | None = None,
        free_space: FreeSpace = free_disk_space,
    ) -> None:
        self.spec = spec
        self.target = target
        self._options = options or TransferOptions()
        self.control = control or Control()
        self._on_progress = on_progress
        self._free_space = free_space
        self._lock = threading.Lock()
        self._halt = threading.Event()
        self._wake = threading.Event()
        self._error: EngineError | None = None
        self._no_ranges = False
        self._fd = -1
        self._hasher: StreamHasher | None = None
        self._unflushed = 0  # bytes written since the last flush began
        self._flush_wake = threading.Event()
        self._phase: Phase = "downloading"
        self.fetched_bytes = 0
        self.repaired_bytes = 0
        saved = load_state(target, spec)
        self._resumed = saved is not None
        self._state = saved or PartialState(
            spec, ranged, split_parts(spec.size, self._part_size(spec.size))
        )
        if not ranged:
            self._state.ranged = False
        self._fetcher = PartFetcher(
            hub,
            spec,
            url,
            self._state,
            self._options,
            lock=self._lock,
            halt=self._halt,
            rewind=self._rewind,
        )

    def _part_size(self, size: int) -> int:
        opts = self._options
        spread = -(-size // (2 * max(1, opts.connections)))
        return min(opts.part_size, max(opts.min_part_size, spread))

    @property
    def resumed_bytes(self) -> int:
        return self._state.done_bytes if self._resumed else 0

    def stats(self) -> TransferStats:
        with self._lock:
            done = self._state.done_bytes
        hasher = self._hasher
        return TransferStats(
            self._phase,
            done,
            self.spec.size,
            self.fetched_bytes,
            hasher.reread_bytes if hasher else 0,
            self._fetcher.retries,
            self._fetcher.restarts,
        )

    def run(self) -> bool:
        """Fetch, verify and install; True once installed, False when paused (the partial files
        stay for a resume). Cancel deletes them and raises ``DownloadCancelled``."""
        self.target.parent.mkdir(parents=True, exist_ok=True)
        self._check_disk()
        part = partial_path(self.target)
        fd = os.open(part, os.O_RDWR | os.O_CREAT, 0o644)
        self._fd = fd
        try:
            if os.fstat(fd).st_size != self.spec.size:
                os.ftruncate(fd, self.spec.size)
            while True:
                try:
                    hasher = self._transfer()
                    break
                except NoRanges:
                    log.info("%s: the server ignores Range; one stream", self.spec.name)
                    self._state.ranged = False
                    self._no_ranges = False
                    self._halt.clear()
            self._phase = "verifying"
            self._report()
            digest = hasher.finish()
            if digest != self.spec.sha256:
                self._phase = "repairing"
                self._repair(hasher.checkpoints)
            self._install()
            return True
        except Halted:
            if self.control.cancelled:
                self._close()
                remove_partial(self.target)
                raise DownloadCancelled(f"Cancelled the download of {self.spec.name}.") from None
            return False
        finally:
            self._close()

    def _close(self) -> None:
        self._fetcher.close()
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def _check_disk(self) -> None:
        remaining = self.spec.size - self._state.done_bytes
        margin = self._options.disk_margin
        free = self._free_space(self.target.parent)
        if free < remaining + margin:
            raise InsufficientDisk(
                f"Not enough disk space for {self.spec.name}: it needs "
                f"{format_bytes(remaining + margin)} ({format_bytes(remaining)} to download and a "
                f"{format_bytes(margin)} margin) but {format_bytes(free)} is free in "
                f"{self.target.parent}. Free some space or delete models you no longer use."
            )

    # -- the parallel transfer ----------------------------------------------------------------

    def _transfer(self) -> StreamHasher:
        state = self._state
        if not state.ranged:  # without Range there is no resuming: start over in one stream
            state.parts = [Part(0, self.spec.size)]
        hasher = StreamHasher(self._fd, state.parts, self._lock)
        self._hasher = hasher
        pending = deque(p for p in state.parts if not p.complete)
        count = min(self._options.connections if state.ranged else 1, len(pending))
        workers = [
            threading.Thread(target=self._worker, args=(pending,), name=f"cove-part-{i}")
            for i in range(count)
        ]
        flushed = threading.Event()
        flusher = threading.Thread(target=self._flusher, args=(flushed,), name="cove-flush")
        flusher.start()
        for worker in workers:
            worker.start()
        try:
            self._monitor(workers)
        except BaseException:  # Ctrl+C in the watching thread: stop the workers first
            self._halt.set()
            raise
        finally:
            for worker in workers:
                worker.join()
            flushed.set()
            self._flush_wake.set()
            flusher.join()
        if self._error is not None or self._no_ranges or self.control.stop.is_set():
            hasher.stop()
            with contextlib.suppress(OSError):
                self._save()
            if self._error is not None:
                raise self._error
            if self._no_ranges:
                raise NoRanges
            raise Halted
        self._save()
        return hasher

    def _monitor(self, workers: list[threading.Thread]) -> None:
        while any(w.is_alive() for w in workers):
            self._wake.wait(self._options.tick_s)
            self._wake.clear()
            if self.control.stop.is_set():
                self._halt.set()
            self._fetcher.find_crawlers()
            self._report()

    def _flusher(self, finished: threading.Event) -> None:
        """Flush and save progress every ``flush_bytes`` written and every ``save_interval_s``,
        beside the transfer, until ``finished`` (the caller saves once more after that)."""
        while True:
            self._flush_wake.wait(self._options.save_interval_s)
            self._flush_wake.clear()
            if finished.is_set():
                return
            try:
                self._save()
            except OSError as exc:
                log.warning("could not save download progress: %s", exc)

    def _worker(self, pending: deque[Part]) -> None:
        try:
            while not self._halt.is_set():
                with self._lock:
                    if not pending:
                        return
                    part = pending.popleft()
                self._fetcher.fetch(part, self._write)
        except NoRanges:
            self._no_ranges = True
            self._halt.set()
        except Halted:
            pass
        except EngineError as exc:
            with self._lock:
                self._error = self._error or exc
            self._halt.set()
        except Exception as exc:  # a worker's boundary: report, never die silently
            log.exception("download worker failed")
            with self._lock:
                self._error = self._error or DownloadError(
                    f"{self.spec.name}: the download failed ({exc}). Run it again to resume."
                )
            self._halt.set()
        finally:
            self._wake.set()

    def _rewind(self, part: Part, sink: Sink) -> None:
        if sink == self._write:
            with self._lock:
                part.done = 0
                if self._hasher is not None:
                    self._hasher.reset()

    def _write(
        self, part: Part, offset: int, data: bytes | memoryview, release: Release | None
    ) -> None:
        view = memoryview(data)
        written = 0
        try:
            while written < len(view):
                written += os.pwrite(self._fd, view[written:], offset + written)
        except OSError as exc:
            if release is not None:
                release()
            raise self._disk_error(exc) from None
        with self._lock:
            part.done += len(data)
            self.fetched_bytes += len(data)
            self._unflushed += len(data)
            if self._unflushed >= self._options.flush_bytes:
                self._flush_wake.set()
            if self._hasher is not None:
                self._hasher.offer(offset, data, release)
            elif release is not None:
                release()

    def _disk_error(self, exc: OSError) -> EngineError:
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            return InsufficientDisk(
                f"The disk filled up while downloading {self.spec.name}. Free some space and "
                "run the same command again: the download resumes."
            )
        return DownloadError(f"Cannot write {partial_path(self.target)} ({exc.strerror}).")

    def _save(self) -> None:
        with self._lock:
            self._unflushed = 0
            snapshot = PartialState(
                self.spec,
                self._state.ranged,
                [Part(p.start, p.end, p.done) for p in self._state.parts],
            )
        if self._fd >= 0:
            _flush(self._fd)  # the state never claims bytes that are not on disk yet
        save_state(self.target, snapshot)

    def _report(self) -> None:
        if self._on_progress is not None:
            self._on_progress(self.stats())

    # -- after a checksum mismatch ------------------------------------------------------------

    def _repair(self, checkpoints: dict[int, Hash]) -> None:
        """Re-fetch the parts in order, comparing them with what is on disk; after a part whose
        bytes differed, re-hash from that part on (from its saved hash state). Installs nothing
        that does not match: a file that still mismatches after every part was re-fetched is
        deleted."""
        size, expected = self.spec.size, self.spec.sha256
        cps = dict(checkpoints)
        for real in self._state.parts:
            probe = Part(real.start, real.end)
            before = self.repaired_bytes
            self._fetcher.fetch(probe, self._compare)
            if self.repaired_bytes == before:
                continue
            starts = [p.start for p in self._state.parts if p.start > real.start]
            digest, later = hash_from(self._fd, cps[real.start], real.start, size, starts)
            cps.update(later)
            if digest == expected:
                return
        self._close()
        remove_partial(self.target)
        raise ChecksumMismatch(
            f"{self.spec.name} does not match the SHA-256 the hub published ({expected}), even "
            "after fetching it again. It was not installed. The file on the hub may be changing; "
            "try again later."
        )

    def _compare(
        self, part: Part, offset: int, data: bytes | memoryview, release: Release | None
    ) -> None:
        try:
            on_disk = os.pread(self._fd, len(data), offset)
            if on_disk != data:
                os.pwrite(self._fd, data, offset)
                self.repaired_bytes += len(data)
        except OSError as exc:
            raise self._disk_error(exc) from None
        finally:
            if release is not None:
                release()
        with self._lock:
            part.done += len(data)
            self.fetched_bytes += len(data)

    def _install(self) -> None:
        self._phase = "installing"
        _flush(self._fd)
        self._close()
        os.replace(partial_path(self.target), self.target)
        _sync_folder(self.target.parent)
        with contextlib.suppress(FileNotFoundError):
            state_path(self.target).unlink()
        self._report()


def _flush(fd: int) -> None:
    sync = getattr(os, "fdatasync", os.fsync)
    sync(fd)


def _sync_folder(folder: Path) -> None:
    """Make the rename itself durable (POSIX); Windows has no folder handles to sync."""
    if os.name != "posix":
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
