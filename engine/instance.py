"""One Cove per data folder: the window's lock, what a second start learns of the window that
holds it, idle measuring one engine host at a time, and short locks around the JSON files that
several processes rewrite.

Every lock here is the operating system's (``flock`` on Unix, ``LockFileEx`` on Windows, through
filelock). It belongs to an open file, so it ends with the process however the process ends (a
kill -9, a crash, a power cut): a killed Cove never stops the next start. The lock files
themselves stay behind; a file nobody has locked means nothing.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final

from engine.json_file import read_json_object, write_json_atomic

if TYPE_CHECKING:
    from filelock import BaseFileLock

log = logging.getLogger(__name__)

WINDOW_LOCK: Final = "cove.lock"
WINDOW_INFO: Final = "window.json"
IDLE_WORK_LOCK: Final = "idle-work.lock"
# A read-modify-write of a small JSON file takes milliseconds; a holder this late is hung, and
# the writer gives up with an error (an OSError, which the stores' callers already report).
UPDATE_TIMEOUT_S: Final = 30.0


@dataclass(frozen=True, slots=True)
class RunningWindow:
    """The window that holds a data folder. ``pid`` and ``started`` are None in the moment
    between its taking the lock and writing them down."""

    pid: int | None
    started: float | None
    socket_name: str


def socket_name(folder: Path | None = None) -> str:
    """The local socket the window of ``folder`` listens on: one per user and data folder, so
    two data folders (or two people on one computer) never meet. Short, because a Unix socket's
    whole path must fit in about a hundred bytes."""
    # The user's number, not their name: looking a name up asks the system's name service
    # (nscd, LDAP), which a window that promises to talk to nothing must not do at start.
    user = str(os.getuid()) if hasattr(os, "getuid") else os.environ.get("USERNAME", "")
    resolved = _folder(folder).resolve()
    digest = hashlib.sha256(f"{user}\n{resolved}".encode()).hexdigest()[:16]
    return f"cove-{digest}"


class WindowLock:
    """The window's hold on its data folder, for the window's whole life."""

    def __init__(self, folder: Path, lock: BaseFileLock, started: float) -> None:
        self.folder = folder
        self.started = started
        self.socket_name = socket_name(folder)
        self._lock = lock

    @classmethod
    def acquire(cls, folder: Path | None = None) -> WindowLock | None:
        """The lock on ``folder`` (default: the data folder), or None while another live process
        holds it. Never waits."""
        folder = _folder(folder)
        folder.mkdir(parents=True, exist_ok=True)
        lock = _file_lock(folder / WINDOW_LOCK)
        if not _try_acquire(lock):
            return None
        held = cls(folder, lock, time.time())
        info = {"pid": os.getpid(), "started": held.started, "socket_name": held.socket_name}
        try:
            write_json_atomic(folder / WINDOW_INFO, info)
        except OSError:
            lock.release()
            raise
        return held

    @property
    def held(self) -> bool:
        return self._lock.is_locked

    def release(self) -> None:
        """Give the folder up (idempotent). Its description goes first, so that nobody reads
        this window's pid while another window holds the lock."""
        if not self._lock.is_locked:
            return
        info = self.folder / WINDOW_INFO
        if read_json_object(info).get("pid") == os.getpid():
            with contextlib.suppress(OSError):
                info.unlink()
        self._lock.release()

    def __enter__(self) -> WindowLock:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.release()


def running_window(folder: Path | None = None) -> RunningWindow | None:
    """The window that holds ``folder`` (default: the data folder), or None when none does. The
    lock is tried and, when it could be taken, given back at once: a window starting in that
    instant finds it taken, and tries again (app/shell/single_instance.py)."""
    folder = _folder(folder)
    path = folder / WINDOW_LOCK
    if not path.is_file():
        return None  # no window ever ran here; looking must not create the folder
    lock = _file_lock(path)
    try:
        taken = _try_acquire(lock)
    except OSError:  # a lock file this user cannot open: not a window of this user's
        return None
    if taken:
        lock.release()
        return None
    info = read_json_object(folder / WINDOW_INFO)
    pid, started = info.get("pid"), info.get("started")
    if not isinstance(pid, int) or isinstance(pid, bool) or not _alive(pid):
        # Missing, or left by a window that was killed: the holder has yet to write its own.
        return RunningWindow(pid=None, started=None, socket_name=socket_name(folder))
    when = float(started) if isinstance(started, int | float) else None
    return RunningWindow(pid=pid, started=when, socket_name=socket_name(folder))


class IdleWorkLock:
    """Held by an engine host while it does idle work, so that two hosts on one data folder (the
    window's and a ``cove serve``) never measure at once: each would count the other's runs as
    another program's and both measurements would be spoiled. One object serves all of a host's
    threads."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / IDLE_WORK_LOCK
        self._lock: BaseFileLock | None = None
        self._guard = threading.Lock()

    @property
    def held(self) -> bool:
        """Whether this host holds the lock now."""
        return self._lock is not None and self._lock.is_locked

    def try_acquire(self) -> bool:
        """Take the lock when free (never waits); True while this host holds it. A data folder
        where no lock file can be made does not stop the work: it is this host's alone to do."""
        with self._guard:
            if self.held:
                return True
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                if self._lock is None:
                    self._lock = _file_lock(self.path)
                return _try_acquire(self._lock)
            except OSError as exc:
                log.warning("idle work goes on without the data folder's lock: %s", exc)
                return True

    def release(self) -> None:
        with self._guard:
            if self._lock is not None and self._lock.is_locked:
                self._lock.release()

    def taken_by_another(self) -> bool:
        """Whether another process holds the lock now. Looked at through a lock of its own (an
        open file of its own), given back at once, so that a look never takes a turn."""
        with self._guard:
            if self.held or not self.path.is_file():
                return False
            probe = _file_lock(self.path)
            try:
                if not _try_acquire(probe):
                    return True
            except OSError:
                return False
            probe.release()
            return False


def idle_work_lock(folder: Path | None = None) -> IdleWorkLock:
    """The idle work lock of ``folder`` (default: the data folder), not yet taken."""
    return IdleWorkLock(_folder(folder))


@contextlib.contextmanager
def update_lock(path: Path) -> Iterator[None]:
    """Held while one process reads ``path``, changes it and writes it back, so that two
    processes updating one file never lose each other's change: read inside it, then write (as
    whole, atomically). Waits for another holder, up to ``UPDATE_TIMEOUT_S``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lock = _file_lock(path.with_name(f".{path.name}.lock"))
    # filelock's Timeout is a TimeoutError, an OSError: what the stores' callers already handle.
    lock.acquire(timeout=UPDATE_TIMEOUT_S)
    try:
        yield
    finally:
        lock.release()


def _folder(folder: Path | None) -> Path:
    if folder is not None:
        return folder
    from engine.paths import data_dir

    return data_dir()


def _file_lock(path: Path) -> BaseFileLock:
    from filelock import FileLock

    # Not per thread: the idle work lock is taken by the thread that waits for its turn and
    # may be given back by another.
    return FileLock(path, thread_local=False)


def _try_acquire(lock: BaseFileLock) -> bool:
    from filelock import Timeout

    try:
        lock.acquire(timeout=0)
    except Timeout:
        return False
    return True


def _alive(pid: int) -> bool:
    import psutil

    return pid > 0 and psutil.pid_exists(pid)
