"""SHA-256 of a file whose parts arrive out of order, computed while the bytes stream.

SHA-256 must see the bytes in order, so the hash follows the *frontier*: the end of the contiguous
run of finished bytes from the start of the file. The part writing at the frontier hands its
chunks (the very buffers it received them in, no copy) to a hashing thread through a short queue,
so the hash runs on another core than the transfer and those bytes are never read again; a buffer
the transfer reuses comes with a ``release`` the hash calls once it is done with it. Bytes that
other parts wrote ahead of the frontier are read back from the page cache they were just written
to when the frontier reaches them (``reread_bytes`` counts them); with one connection there are
none.

A copy of the hash state is kept at every part boundary, so that a part re-fetched after a checksum
mismatch is re-hashed from its own start, not from the start of the file.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections import deque
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engine.library.partial import Part

Hash = Any  # hashlib's hash objects have no public type to name
READ_BLOCK = 1 << 20
MAX_QUEUED = 64  # chunks handed over and not hashed yet (a few MiB): memory stays flat
Release = Callable[[], None]


class StreamHasher:
    """Shares the transfer's lock: ``parts[i].done`` changes only under it. Only the hashing
    thread touches the hash object."""

    def __init__(self, fd: int, parts: Sequence[Part], lock: threading.Lock) -> None:
        self._fd = fd
        self._parts = parts
        self._starts = [p.start for p in parts]
        self._size = parts[-1].end if parts else 0
        self._cond = threading.Condition(lock)
        self._sha = hashlib.sha256()
        self._hashed = 0  # bytes in the hash
        self._claimed = 0  # bytes in the hash, in the queue, or being read back
        self._queue: deque[tuple[bytes | memoryview, Release | None]] = deque()
        self._next_boundary = 1  # index into _starts of the next checkpoint
        self._busy = False
        self._stopped = False
        self.checkpoints: dict[int, Hash] = {0: self._sha.copy()}
        self.reread_bytes = 0
        self._thread = threading.Thread(target=self._run, name="cove-hash", daemon=True)
        self._thread.start()

    @property
    def hashed(self) -> int:
        return self._hashed

    def offer(self, offset: int, data: bytes | memoryview, release: Release | None = None) -> None:
        """Called under the lock right after ``data`` was written at ``offset`` and counted.
        Waits while the queue is full: the transfer never runs far ahead of the hash. ``release``
        is called once ``data`` is no longer needed (at once when it is not at the frontier)."""
        if offset == self._claimed:
            while len(self._queue) >= MAX_QUEUED and not self._stopped:
                self._cond.wait()
            if offset == self._claimed and not self._stopped:
                self._queue.append((data, release))
                self._claimed += len(data)
                if len(self._queue) > 1:
                    return  # the hashing thread is awake: it has work queued already
                self._cond.notify_all()
                return
        if release is not None:
            release()
        self._cond.notify_all()

    def _drop_queue(self) -> None:
        """Under the lock: forget what is queued, giving its buffers back."""
        while self._queue:
            _data, release = self._queue.popleft()
            if release is not None:
                release()

    def reset(self) -> None:
        """Start again from byte 0 (a single-stream download that had to restart). Under the
        lock."""
        self._drop_queue()
        while self._busy:
            self._cond.wait()
        self._drop_queue()
        self._sha = hashlib.sha256()
        self._hashed = self._claimed = 0
        self._next_boundary = 1
        self.checkpoints = {0: self._sha.copy()}

    def finish(self) -> str:
        """Hash what is left once every part is complete; the hex digest."""
        with self._cond:
            self._cond.notify_all()
            while self._hashed < self._size and not self._stopped:
                self._cond.wait()
            self._stopped = True
            self._cond.notify_all()
        self._thread.join()
        return self._sha.hexdigest()

    def stop(self) -> None:
        with self._cond:
            self._stopped = True
            self._drop_queue()
            self._cond.notify_all()
        self._thread.join()

    def _frontier(self) -> int:
        for part in self._parts:
            if not part.complete:
                return part.offset
        return self._size

    def _run(self) -> None:
        buf = bytearray(READ_BLOCK)
        view = memoryview(buf)
        while True:
            data: bytes | memoryview | None = None
            release: Release | None = None
            with self._cond:
                while not self._stopped and not self._queue and self._claimed >= self._frontier():
                    self._cond.wait()
                if self._stopped:
                    return
                if self._queue:
                    data, release = self._queue.popleft()
                    n = len(data)
                    start = -1
                else:  # bytes written ahead of the frontier: read them back
                    start = self._claimed
                    n = min(self._frontier() - start, READ_BLOCK)
                    if self._next_boundary < len(self._starts):  # stop at the next checkpoint
                        n = min(n, self._starts[self._next_boundary] - start)
                    self._claimed += n
                self._busy = True
                if len(self._queue) == MAX_QUEUED - 1:
                    self._cond.notify_all()  # room in the queue again
            # Outside the lock: hashlib releases the GIL, so this runs beside the transfer.
            if data is not None:
                self._sha.update(data)
                got = n
                if release is not None:
                    release()
            else:
                try:
                    got = os.preadv(self._fd, [view[:n]], start)
                except OSError:
                    got = 0
                if got == n:
                    self._sha.update(view[:n])
            with self._cond:
                self._busy = False
                if got != n:
                    self._stopped = True  # the file vanished under us: the digest will not match
                    self._drop_queue()
                else:
                    if data is None:
                        self.reread_bytes += n
                    self._advance(n)
                self._cond.notify_all()

    def _advance(self, n: int) -> None:
        self._hashed += n
        starts = self._starts
        while self._next_boundary < len(starts) and self._hashed >= starts[self._next_boundary]:
            if self._hashed == starts[self._next_boundary]:
                self.checkpoints[self._hashed] = self._sha.copy()
            self._next_boundary += 1


def hash_from(
    fd: int, checkpoint: Hash, start: int, end: int, boundaries: Sequence[int] = ()
) -> tuple[str, dict[int, Hash]]:
    """Continue a saved hash state over ``[start, end)`` of the file: the hex digest, and the
    hash states at ``boundaries`` (part starts) on the way."""
    sha = checkpoint.copy()
    marks = sorted(b for b in boundaries if start < b < end)
    states: dict[int, Hash] = {}
    buf = bytearray(READ_BLOCK)
    view = memoryview(buf)
    offset = start
    while offset < end:
        stop = min(end, offset + READ_BLOCK, *(b for b in marks if b > offset))
        got = os.preadv(fd, [view[: stop - offset]], offset)
        if got <= 0:
            raise OSError(f"the partial file ended at byte {offset} of {end}")
        sha.update(view[:got])
        offset += got
        if offset in marks:
            states[offset] = sha.copy()
    return sha.hexdigest(), states
