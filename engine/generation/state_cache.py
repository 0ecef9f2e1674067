"""Conversations that never re-read their past: the runtime's state after each reply, on disk.

After a reply the KV cache holds the whole conversation. Reopening the chat after a restart, or
switching back to it from another, would evaluate every token of it again; with the state kept
here the engine restores it instead and evaluates only what is new. Snapshots are found by their
tokens (the longest stored prefix of the new prompt), so the API and the CLI benefit exactly as
the window does.

Each snapshot is one file: a header (the model key, the token count, the payload's length and
SHA-256, the conversation it belongs to when the client said), the tokens, then the runtime's
bytes. A snapshot is used only under the same key (model file, runtime version, context size,
KV type; see the backend), and only after its length and digest check out: a truncated or
corrupt file is removed and the history is read as without it. The folder is bounded (least
recently used first out), and files are written by one background thread, off the reply's path.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import queue
import struct
import threading
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.generation.kv_reuse import common_prefix

log = logging.getLogger("cove.state")

DEFAULT_LIMIT_BYTES = 4 * 2**30
# A conversation shorter than this is read again quickly: not worth a file.
MIN_TOKENS = 256
# Restore only when it saves at least this many tokens over what is in memory already.
MIN_GAIN = 64
# A partial file older than this is left over from a crash.
STALE_PARTIAL_S = 600.0
_MAGIC = b"COVEKV1\n"
_SUFFIX = ".kvstate"
_HEAD = struct.Struct("<I")  # the JSON header's length
Payload = bytes | memoryview
_Write = tuple[str, tuple[int, ...], Payload, str | None]


@dataclass(slots=True)
class Snapshot:
    path: Path
    key: str
    tokens: tuple[int, ...]
    size: int  # of the whole file
    used: float
    conversation: str | None


class StateCache:
    """A bounded folder of runtime states, keyed on model and token prefix."""

    def __init__(self, folder: Path, limit_bytes: int = DEFAULT_LIMIT_BYTES) -> None:
        self.folder = folder
        self.limit_bytes = limit_bytes
        self._lock = threading.Lock()
        self._entries: dict[Path, Snapshot] | None = None
        self._writes: queue.Queue[_Write] = queue.Queue(maxsize=2)
        self._writer: threading.Thread | None = None

    # -- finding and reading ---------------------------------------------------------------------

    def find(self, key: str, tokens: Sequence[int]) -> tuple[Snapshot, int] | None:
        """The snapshot under ``key`` sharing the longest prefix with ``tokens``, and that
        prefix's length."""
        best: tuple[Snapshot, int] | None = None
        with self._lock:
            for entry in self._index().values():
                if entry.key != key:
                    continue
                common = common_prefix(entry.tokens, tokens)
                if common and (best is None or common > best[1]):
                    best = (entry, common)
        return best

    def holds(self, key: str, tokens: Sequence[int]) -> bool:
        """Whether exactly this state is saved (or waiting to be written)."""
        wanted = tuple(tokens)
        with self._lock:
            if any(item[0] == key and item[1] == wanted for item in list(self._writes.queue)):
                return True
            return any(e.key == key and e.tokens == wanted for e in self._index().values())

    def read(self, entry: Snapshot) -> bytes | None:
        """The runtime's bytes, or None (and the file removed) when they do not check out."""
        try:
            with entry.path.open("rb") as f:
                header, offset = _read_header(f.read(4096), entry.path)
                f.seek(offset + 4 * int(header["n_tokens"]))
                payload = f.read()
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.warning("ignoring the saved state %s: %s", entry.path.name, exc)
            self._drop(entry)
            return None
        if len(payload) != header["payload_bytes"] or _digest(payload) != header["sha256"]:
            log.warning("ignoring the saved state %s: it is truncated or damaged", entry.path.name)
            self._drop(entry)
            return None
        with contextlib.suppress(OSError):
            os.utime(entry.path)
        entry.used = time.time()
        return payload

    # -- writing ---------------------------------------------------------------------------------

    def save_later(
        self, key: str, tokens: Sequence[int], payload: Payload, conversation: str | None = None
    ) -> None:
        """Write in the background; when a write is already waiting, the older one is dropped
        (the newer state of a conversation supersedes it)."""
        item = (key, tuple(tokens), payload, conversation)
        with self._lock:
            if self._writer is None or not self._writer.is_alive():
                self._writer = threading.Thread(target=self._write_loop, daemon=True)
                self._writer.name = "cove-state-writer"
                self._writer.start()
        while True:
            try:
                self._writes.put_nowait(item)
                return
            except queue.Full:
                with contextlib.suppress(queue.Empty):
                    self._writes.get_nowait()
                    self._writes.task_done()

    def flush(self, timeout: float | None = None) -> None:
        """Wait (up to ``timeout`` seconds) until every write handed over so far is on disk."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._writes.all_tasks_done:
            while self._writes.unfinished_tasks:
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return
                self._writes.all_tasks_done.wait(left)

    def save(
        self, key: str, tokens: Sequence[int], payload: Payload, conversation: str | None = None
    ) -> Path | None:
        """Write one snapshot now; drops the snapshots it supersedes (the same conversation's
        shorter prefixes) and the least recently used beyond the limit."""
        header = {
            "key": key,
            "n_tokens": len(tokens),
            "payload_bytes": len(payload),
            "sha256": _digest(payload),
            "conversation": conversation,
        }
        raw = json.dumps(header).encode()
        size = len(_MAGIC) + _HEAD.size + len(raw) + 4 * len(tokens) + len(payload)
        if size > self.limit_bytes:
            return None
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / f"{uuid.uuid4().hex}{_SUFFIX}"
        tmp = path.with_suffix(".partial")
        try:
            with tmp.open("wb") as f:
                f.write(_MAGIC + _HEAD.pack(len(raw)) + raw)
                f.write(struct.pack(f"<{len(tokens)}i", *tokens))
                f.write(payload)
            os.replace(tmp, path)
        except OSError as exc:  # a full disk costs the snapshot, never the reply
            log.warning("could not save the conversation's state: %s", exc)
            tmp.unlink(missing_ok=True)
            return None
        entry = Snapshot(path, key, tuple(tokens), size, time.time(), conversation)
        with self._lock:
            entries = self._index()
            for old in list(entries.values()):
                if old.key == key and _is_prefix(old.tokens, entry.tokens):
                    self._remove(old)
            entries[path] = entry
            self._evict()
        return path

    # -- forgetting ------------------------------------------------------------------------------

    def forget(self, conversation: str | None = None) -> int:
        """Remove every snapshot (of ``conversation`` only, when given); returns how many."""
        self.flush(timeout=30)
        with self._lock:
            doomed = [
                e
                for e in self._index().values()
                if conversation is None or e.conversation == conversation
            ]
            for entry in doomed:
                self._remove(entry)
        return len(doomed)

    def count(self, conversation: str | None = None) -> int:
        """Snapshots on disk (of ``conversation`` only, when given), with pending writes done."""
        self.flush(timeout=30)
        with self._lock:
            return sum(
                1
                for e in self._index().values()
                if conversation is None or e.conversation == conversation
            )

    def total_bytes(self) -> int:
        with self._lock:
            return sum(e.size for e in self._index().values())

    def set_limit(self, limit_bytes: int) -> None:
        with self._lock:
            self.limit_bytes = limit_bytes
            self._evict()

    # -- the folder ------------------------------------------------------------------------------

    def _index(self) -> dict[Path, Snapshot]:
        if self._entries is None:
            self._entries = {}
            if self.folder.is_dir():
                stale = time.time() - STALE_PARTIAL_S
                for path in self.folder.glob("*.partial"):
                    # A write cut short by a crash; a recent one may be another process's, under
                    # way (the app reads the folder while its engine writes).
                    with contextlib.suppress(OSError):
                        if path.stat().st_mtime < stale:
                            path.unlink()
                for path in self.folder.glob(f"*{_SUFFIX}"):
                    entry = _scan(path)
                    if entry is None:
                        path.unlink(missing_ok=True)
                    else:
                        self._entries[path] = entry
        return self._entries

    def _evict(self) -> None:
        entries = self._index()
        total = sum(e.size for e in entries.values())
        for entry in sorted(entries.values(), key=lambda e: e.used):
            if total <= self.limit_bytes:
                break
            total -= entry.size
            self._remove(entry)

    def _remove(self, entry: Snapshot) -> None:
        entry.path.unlink(missing_ok=True)
        if self._entries is not None:
            self._entries.pop(entry.path, None)

    def _drop(self, entry: Snapshot) -> None:
        with self._lock:
            self._remove(entry)

    def _write_loop(self) -> None:
        """The one writer, for the life of the process."""
        while True:
            item = self._writes.get()
            try:
                if self.save(*item) is not None:
                    log.info("saved a conversation's state (%d tokens)", len(item[1]))
            except Exception:  # a state not saved costs the next restart, never the engine
                log.exception("could not save a conversation's state")
            finally:
                self._writes.task_done()


def _scan(path: Path) -> Snapshot | None:
    """A snapshot's header and tokens, without its payload; None when unreadable."""
    try:
        stat = path.stat()
        with path.open("rb") as f:
            header, offset = _read_header(f.read(4096), path)
            n = int(header["n_tokens"])
            f.seek(offset)
            raw = f.read(4 * n)
        if len(raw) != 4 * n or stat.st_size != offset + 4 * n + int(header["payload_bytes"]):
            return None
        tokens = struct.unpack(f"<{n}i", raw)
        conversation = header.get("conversation")
        return Snapshot(
            path,
            str(header["key"]),
            tokens,
            stat.st_size,
            stat.st_mtime,
            str(conversation) if conversation is not None else None,
        )
    except (OSError, ValueError, KeyError, TypeError, struct.error):
        return None


def _read_header(start: bytes, path: Path) -> tuple[dict[str, Any], int]:
    if not start.startswith(_MAGIC) or len(start) < len(_MAGIC) + _HEAD.size:
        raise ValueError(f"{path.name} is not a saved state")
    (length,) = _HEAD.unpack_from(start, len(_MAGIC))
    begin = len(_MAGIC) + _HEAD.size
    if begin + length > len(start):
        raise ValueError(f"{path.name} has a damaged header")
    header = json.loads(start[begin : begin + length])
    if not isinstance(header, dict):
        raise ValueError(f"{path.name} has a damaged header")
    return header, begin + length


def _digest(payload: Payload) -> str:
    return hashlib.sha256(payload).hexdigest()


def _is_prefix(short: Sequence[int], long: Sequence[int]) -> bool:
    return len(short) <= len(long) and tuple(long[: len(short)]) == tuple(short)


def state_key(*parts: object) -> str:
    """A key from everything a snapshot depends on."""
    return hashlib.sha256(json.dumps([str(p) for p in parts]).encode()).hexdigest()[:32]
