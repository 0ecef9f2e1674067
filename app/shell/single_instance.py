"""One window per data folder: the first start holds the folder (engine/instance.py) and listens on
a local socket named after it; a later start hands its request (the files to attach) to that window,
which comes to the front, and ends without opening a second window or a second engine.

The socket is Qt's own (a Unix socket, a named pipe on Windows), readable by this user only. The
name comes from the data folder (``engine.instance.socket_name``): two folders never meet. A
socket file left by a killed window is removed before listening, and only by the start that holds
the folder's lock: never a live window's.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtNetwork import QLocalServer, QLocalSocket

from app.common.i18n import tr
from engine.instance import RunningWindow, WindowLock, running_window, socket_name

if TYPE_CHECKING:
    from app.shell.main_window import MainWindow

log = logging.getLogger("cove.app")

# The whole hand-over, connecting again while the window is still starting (its socket not yet
# listening, or its event loop not yet running): about what a person waits for after a double
# click before trying again.
HANDOVER_WAIT_S: Final = 3.0
CONNECT_WAIT_MS: Final = 300
RETRY_PAUSE_S: Final = 0.1
# A request is a line of JSON naming a few files; anything longer is not from a Cove.
MAX_REQUEST_BYTES: Final = 1 << 20
# A connection that sends no whole request within this long is dropped.
READ_WAIT_MS: Final = 5_000


@dataclass(frozen=True, slots=True)
class Request:
    """What a second start asks of the window: the files given on its command line, as full
    paths (the two processes may not share a current folder)."""

    files: tuple[str, ...] = ()

    def encode(self) -> bytes:
        return json.dumps({"files": list(self.files)}).encode() + b"\n"

    @classmethod
    def decode(cls, line: bytes) -> Request:
        """Leniently: what is not understood is left out."""
        try:
            data = json.loads(line.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            return cls()
        files = data.get("files") if isinstance(data, dict) else None
        if not isinstance(files, list):
            return cls()
        return cls(tuple(f for f in files if isinstance(f, str)))

    @classmethod
    def of(cls, files: Sequence[str]) -> Request:
        return cls(tuple(str(Path(f).expanduser().resolve()) for f in files))


ACK: Final = b'{"ok": true}\n'


class InstanceServer(QObject):
    """The window's ear for later starts. It owns the folder's lock and gives it up on close;
    without one (a data folder where no lock can be made) it never listens."""

    request_received = Signal(object)  # a Request

    def __init__(self, lock: WindowLock | None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.lock = lock
        self.name = lock.socket_name if lock is not None else socket_name()
        self.server = QLocalServer(self)
        self.server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        self.server.newConnection.connect(self._accept)

    def listen(self) -> bool:
        """Listen on the folder's socket; False (and the window works on) when the system
        refuses. Whatever a killed window left there is stale: this process holds the lock."""
        if self.lock is None:
            return False
        QLocalServer.removeServer(self.name)
        if self.server.listen(self.name):
            return True
        log.warning("later starts cannot reach this window: %s", self.server.errorString())
        return False

    def close(self) -> None:
        self.server.close()
        if self.lock is not None:
            self.lock.release()

    def _accept(self) -> None:
        while self.server.hasPendingConnections():
            socket = self.server.nextPendingConnection()
            if socket is not None:
                self._serve(socket)

    def _serve(self, socket: QLocalSocket) -> None:
        buffer = bytearray()
        timer = QTimer(socket)
        timer.setSingleShot(True)
        timer.timeout.connect(lambda: socket.abort())
        timer.start(READ_WAIT_MS)
        socket.disconnected.connect(socket.deleteLater)

        def read() -> None:
            buffer.extend(bytes(socket.readAll().data()))
            if b"\n" not in buffer:
                if len(buffer) > MAX_REQUEST_BYTES:
                    socket.abort()
                return
            timer.stop()
            socket.readyRead.disconnect(read)
            request = Request.decode(bytes(buffer).split(b"\n", 1)[0])
            try:
                self.request_received.emit(request)
            finally:
                # Answered once the window has acted: the start waiting on it says so.
                socket.write(ACK)
                socket.flush()
                socket.disconnectFromServer()

        socket.readyRead.connect(read)
        if socket.bytesAvailable():
            read()


@dataclass(frozen=True, slots=True)
class Handover:
    """How handing a start to the folder's window went."""

    answered: bool  # the window acted on it
    window: RunningWindow | None  # the window holding the folder, as it described itself
    lock: WindowLock | None = None  # the folder came free meanwhile: this start holds it now


def hand_over(
    request: Request, folder: Path | None = None, *, wait_s: float = HANDOVER_WAIT_S
) -> Handover:
    """Give ``request`` to the window holding ``folder``, trying again while it starts, up to
    ``wait_s``. Blocking: runs before this process has a window or an event loop."""
    deadline = time.monotonic() + wait_s
    window = running_window(folder)
    while True:
        if window is None:
            lock = WindowLock.acquire(folder)
            if lock is not None:
                return Handover(answered=False, window=None, lock=lock)
            window = running_window(folder)
        if window is not None and _send(window.socket_name, request, deadline):
            return Handover(answered=True, window=window)
        if time.monotonic() >= deadline:
            return Handover(answered=False, window=window or running_window(folder))
        time.sleep(RETRY_PAUSE_S)
        window = running_window(folder)


def _send(name: str, request: Request, deadline: float) -> bool:
    """One try: connect, send, wait for the answer until ``deadline``."""
    socket = QLocalSocket()
    try:
        socket.connectToServer(name)
        if not socket.waitForConnected(CONNECT_WAIT_MS):
            return False
        socket.write(request.encode())
        socket.waitForBytesWritten(_left_ms(deadline))
        answer = bytearray()
        while b"\n" not in answer:
            if not socket.bytesAvailable() and not socket.waitForReadyRead(_left_ms(deadline)):
                return False
            answer.extend(bytes(socket.readAll().data()))
        return bytes(answer).split(b"\n", 1)[0] + b"\n" == ACK
    finally:
        socket.abort()


def _left_ms(deadline: float) -> int:
    return max(1, int((deadline - time.monotonic()) * 1000))


def claim(files: Sequence[str], *, measuring: bool = False) -> InstanceServer | int:
    """This start's hold on the data folder (listening for later starts), or, where a window
    holds it already, the exit code once that window was handed ``files``. ``measuring``: a
    self-test or a first-paint measurement, which must neither reach into another window nor
    pass for one: it ends with a JSON report of its own."""
    try:
        lock = WindowLock.acquire()
    except OSError as exc:
        # The window says what is wrong with the data folder (its history cannot open either).
        log.warning("the data folder cannot be held: %s", exc)
        return InstanceServer(None)
    if lock is None and not measuring:
        outcome = hand_over(Request.of(files))
        if outcome.answered:
            print(
                tr(
                    "Start",
                    "Cove is already open on this data folder; it was brought to the front.",
                ),
                file=sys.stderr,
            )
            return 0
        if outcome.lock is None:
            print(_unanswered(outcome.window), file=sys.stderr)
            return 0
        lock = outcome.lock
    if lock is None:
        report = {"ok": False, "error": _held_for_measuring(running_window())}
        print(json.dumps(report), flush=True)
        return 1
    server = InstanceServer(lock)
    server.listen()
    return server


def _unanswered(window: RunningWindow | None) -> str:
    if window is None or window.pid is None:
        return tr(
            "Start",
            "Cove is already open on this data folder but did not answer; it may still be "
            "starting. Try again in a moment.",
        )
    return tr(
        "Start",
        "Cove is already open on this data folder (process {pid}) but did not answer; it may "
        "still be starting, or not responding: end that process if it does not come back.",
    ).format(pid=window.pid)


def _held_for_measuring(window: RunningWindow | None) -> str:
    if window is None or window.pid is None:
        return tr(
            "Start",
            "Cove is already open on this data folder: close it, or give this run a data folder "
            "of its own (COVE_DATA_DIR).",
        )
    return tr(
        "Start",
        "Cove is already open on this data folder (process {pid}): close it, or give this run a "
        "data folder of its own (COVE_DATA_DIR).",
    ).format(pid=window.pid)


def answer(window: MainWindow, request: Request) -> None:
    """A later start's request: the window comes to the front (un-minimised) and the files are
    attached to the current chat, as a drop on the composer would."""
    if window.isMinimized():
        window.setWindowState(window.windowState() & ~Qt.WindowState.WindowMinimized)
    window.show()
    window.raise_()
    window.activateWindow()
    paths = [Path(f) for f in request.files]
    found = [p for p in paths if p.is_file()]
    missing = [p.name for p in paths if not p.is_file()]
    if missing:
        window.status.notify(
            tr("Start", "Not found, not attached: {names}").format(names=", ".join(missing))
        )
    if not found:
        return
    window.show_page("chat")
    if window.controller.store is not None:
        window.composer.add_files(found)
        return
    # Documents join the chat's own collection, which needs the history open.
    window.controller.store_opened.connect(
        lambda: window.composer.add_files(found), Qt.ConnectionType.SingleShotConnection
    )
