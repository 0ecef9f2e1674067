"""SHA-256 of a file whose parts arrive out of order, computed while the bytes stream.

SHA-256 must see the bytes in order, so the hash follows the *frontier*: the end of the contiguous
run of finished bytes from the start of the file. The part that writes at the frontier hands its
chunks straight to the hash as they arrive (no second read); bytes that other parts wrote ahead of
the frontier are read back by a helper thread when the frontier reaches them, from the page cache
they were just written to, while the transfer goes on. When the last byte lands, at most the bytes
that raced the frontier are left to hash. ``reread_bytes`` counts what was read back.

A copy of the hash state is kept at every part boundary, so that a part re-fetched after a checksum
mismatch is re-hashed from its own start, not from the start of the file.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engine.library.partial import Part

Hash = Any  # hashlib's hash objects have no public type to name

READ_BLOCK = 1 << 20


class StreamHasher:
    """Shares the transfer's lock: ``parts[i].done`` changes only under it."""

    def __init__(self, fd: int, parts: Sequence[Part], lock: threading.Lock) -> None:
        self._fd = fd
        self._parts = parts
        self._starts = [p.start for p in parts]
        self._size = parts[-1].end if parts else 0
        self._cond = threading.Condition(lock)
        self._sha = hashlib.sha256()
        self._hashed = 0
        self._next_boundary = 1  # index into _starts of the next checkpoint
        self._busy = False  # the helper thread is hashing outside the lock
        self._stopped = False
        self.checkpoints: dict[int, Hash] = {0: self._sha.copy()}
        self.reread_bytes = 0
        self._thread = threading.Thread(target=self._run, name="cove-hash", daemon=True)
        self._thread.start()

    @property
    def hashed(self) -> int:
        return self._hashed

    def offer(self, offset: int, data: bytes | memoryview) -> None:
        """Called under the lock right after ``data`` was written at ``offset`` and counted."""
        if not self._busy and offset == self._hashed:
            self._update(data)
        else:
            self._cond.notify_all()

    def reset(self) -> None:
        """Start again from byte 0 (a single-stream download that had to restart). Under the
        lock."""
        while self._busy:
            self._cond.wait()
        self._sha = hashlib.sha256()
        self._hashed = 0
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
            self._cond.notify_all()
        self._thread.join()

    def _frontier(self) -> int:
        for part in self._parts:
            if not part.complete:
                return part.offset
        return self._size

    def _update(self, data: bytes | memoryview) -> None:
        self._sha.update(data)
        self._advance(len(data))

    def _run(self) -> None:
        buf = bytearray(READ_BLOCK)
        view = memoryview(buf)
        while True:
            with self._cond:
                while not self._stopped and self._hashed >= self._frontier():
                    self._cond.wait()
                if self._stopped:
                    return
                start = self._hashed
                n = min(self._frontier() - start, READ_BLOCK)
                if self._next_boundary < len(self._starts):  # stop at the next checkpoint
                    n = min(n, self._starts[self._next_boundary] - start)
                self._busy = True
            try:
                got = os.preadv(self._fd, [view[:n]], start)
            except OSError:
                got = 0
            if got > 0:  # outside the lock: while busy, nobody else touches the hash
                self._sha.update(view[:got])
            with self._cond:
                self._busy = False
                if got > 0:
                    self.reread_bytes += got
                    self._advance(got)
                else:
                    self._stopped = True  # the file vanished under us: the digest will not match
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
