"""The channel between Cove and a ``cove worker``: TLS with the worker's pinned certificate, then
one JSON line each way before anything else (the key, what is wanted; the answer), then, for an
RPC session, the bytes of llama.cpp's RPC protocol in both directions unchanged.

    client -> worker   {"key": "...", "want": "info" | "rpc"}\\n
    worker -> client   {"ok": true, ...}\\n   or   {"ok": false, "error": "..."}\\n

``info`` answers with the worker's name, device and free memory and closes; ``rpc`` is followed by
the RPC bytes. On the using side, each worker gets a listener on this machine's loopback address
that llama.cpp connects to as if it were the RPC server; every connection to it opens its own
tunnel (``Forward``). A tunnel whose worker side breaks while llama.cpp still uses it is reported
as that worker lost.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import socket
import ssl
import threading
from collections.abc import Callable, Coroutine
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

from engine.errors import EngineAuthError, EngineUnreachable
from engine.remote import DEFAULT_WORKER_PORT
from engine.remote.pins import Trusted, address

log = logging.getLogger("cove.remote")

MAX_HELLO = 4096
HELLO_TIMEOUT_S = 15.0
CHUNK = 1 << 16


@dataclass(frozen=True, slots=True)
class WorkerAddress:
    host: str
    port: int
    key: str | None

    @property
    def address(self) -> str:
        return address(self.host, self.port)

    @classmethod
    def parse(cls, text: str) -> WorkerAddress:
        """``HOST:PORT[=KEY]`` (``[v6]:PORT`` for IPv6; PORT defaults to 50052)."""
        where, _, key = text.partition("=")
        where = where.strip()
        if where.startswith("["):
            host, _, rest = where[1:].partition("]")
            port_text = rest.lstrip(":")
        else:
            host, _, port_text = where.rpartition(":") if ":" in where else (where, "", "")
        if not host:
            raise ValueError(f"--worker {text!r}: expected HOST:PORT[=KEY]")
        try:
            port = int(port_text) if port_text else DEFAULT_WORKER_PORT
        except ValueError:
            raise ValueError(f"--worker {text!r}: the port must be a number") from None
        if not 0 < port < 65536:
            raise ValueError(f"--worker {text!r}: no such port")
        return cls(host, port, key or None)


# Who this process is to a worker: llama.cpp's RPC server serves one client at a time, and a
# worker tells a second Cove that it is busy rather than leave it waiting.
CLIENT_ID = secrets.token_hex(8)


def with_key(worker: WorkerAddress) -> WorkerAddress:
    """The worker with its key: the one given (kept from now on, in the keyring or a private
    file) or, without one, the key kept from an earlier run."""
    from engine.remote.keychain import load_secret, save_secret

    name = f"worker {worker.address}"
    if worker.key:
        if load_secret(name) != worker.key:
            save_secret(name, worker.key)
        return worker
    kept = load_secret(name)
    if kept is None:
        raise ValueError(
            f"--worker {worker.address}: add the key that 'cove worker' printed there "
            f"(--worker {worker.address}=KEY); it is kept for the next time"
        )
    return WorkerAddress(worker.host, worker.port, kept)


def hello_line(key: str | None, want: str) -> bytes:
    return (json.dumps({"key": key or "", "want": want, "client": CLIENT_ID}) + "\n").encode()


def read_answer(raw: bytes, where: str) -> dict[str, Any]:
    try:
        answer = json.loads(raw.decode("utf-8"))
    except ValueError:
        raise EngineUnreachable(
            f"{where} is not a Cove worker (it answered {raw[:60]!r})."
        ) from None
    if not isinstance(answer, dict):
        raise EngineUnreachable(f"{where} is not a Cove worker.")
    if not answer.get("ok"):
        message = str(answer.get("error") or "refused")
        if answer.get("code") == "unauthorized":
            raise EngineAuthError(f"The worker {where} refused the key: {message}")
        raise EngineUnreachable(f"The worker {where} refused: {message}")
    return answer


def worker_info(worker: WorkerAddress, trusted: Trusted, timeout: float = 10.0) -> dict[str, Any]:
    """Ask a worker for its name, device and free memory (checks the key on the way)."""
    try:
        with (
            socket.create_connection((worker.host, worker.port), timeout=timeout) as raw,
            trusted.context().wrap_socket(raw, server_hostname=worker.host) as tls,
        ):
            tls.sendall(hello_line(worker.key, "info"))
            line = _read_line(tls)
    except ssl.SSLError as exc:
        raise EngineUnreachable(
            f"The TLS connection to {worker.address} failed ({exc.reason or exc})."
        ) from None
    except OSError as exc:
        raise EngineUnreachable(
            f"Cannot reach the worker {worker.address}: {exc.strerror or exc}."
        ) from None
    return read_answer(line, worker.address)


def _read_line(sock: ssl.SSLSocket) -> bytes:
    data = b""
    while b"\n" not in data and len(data) < MAX_HELLO:
        part = sock.recv(MAX_HELLO)
        if not part:
            break
        data += part
    return data.split(b"\n", 1)[0]


async def relay(
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    count: Callable[[int], None] | None = None,
) -> None:
    """Copy until end of stream or an error, telling ``count`` each piece's size; ``writer``
    stays open."""
    try:
        while True:
            data = await reader.read(CHUNK)
            if not data:
                break
            if count is not None:
                count(len(data))
            writer.write(data)
            await writer.drain()
    except (OSError, ssl.SSLError, asyncio.IncompleteReadError):
        pass


async def pump(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """``relay``, then close ``writer``."""
    try:
        await relay(reader, writer)
    finally:
        with contextlib.suppress(Exception):
            writer.close()


class Loop:
    """An asyncio loop on a daemon thread, for the tunnels of one process."""

    def __init__(self, name: str = "cove-tunnels") -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name=name, daemon=True)
        self._thread.start()

    def run(self, coro: Coroutine[Any, Any, Any]) -> Future[Any]:
        return asyncio.run_coroutine_threadsafe(coro, self.loop)

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)


Lost = Callable[[str, str], None]  # (worker address, what happened)


class Forward:
    """A loopback listener standing in for one worker's RPC server."""

    def __init__(self, worker: WorkerAddress, trusted: Trusted, on_lost: Lost) -> None:
        self.worker = worker
        self.trusted = trusted
        self.on_lost = on_lost
        self.port = 0
        self.sent = 0  # bytes to the worker and back, for the benchmark
        self.received = 0
        self._server: asyncio.AbstractServer | None = None

    @property
    def endpoint(self) -> str:
        return f"127.0.0.1:{self.port}"

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = int(self._server.sockets[0].getsockname()[1])

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()

    async def _serve(self, local_r: asyncio.StreamReader, local_w: asyncio.StreamWriter) -> None:
        w = self.worker
        try:
            remote_r, remote_w = await asyncio.wait_for(
                asyncio.open_connection(
                    w.host, w.port, ssl=self.trusted.context(), server_hostname=w.host
                ),
                HELLO_TIMEOUT_S,
            )
            remote_w.write(hello_line(w.key, "rpc"))
            await remote_w.drain()
            read_answer(await asyncio.wait_for(remote_r.readline(), HELLO_TIMEOUT_S), w.address)
        except Exception as exc:  # unreachable, refused: llama.cpp sees the connection close
            log.warning("cannot open a tunnel to the worker %s: %s", w.address, exc)
            self.on_lost(w.address, f"cannot reach it ({exc})")
            local_w.close()
            return
        _set_keepalive(remote_w)
        finished: dict[str, bool] = {}

        async def up() -> None:
            await relay(local_r, remote_w, self._sent)
            finished["local"] = True

        async def down() -> None:
            await relay(remote_r, local_w, self._received)
            finished["remote"] = True

        _done, pending = await asyncio.wait(
            [asyncio.ensure_future(up()), asyncio.ensure_future(down())],
            return_when=asyncio.FIRST_COMPLETED,
        )
        if "remote" in finished and "local" not in finished:
            self.on_lost(w.address, "the connection to it broke")
        for task in pending:
            task.cancel()
        for writer in (local_w, remote_w):
            with contextlib.suppress(Exception):
                writer.close()

    def _sent(self, n: int) -> None:
        self.sent += n

    def _received(self, n: int) -> None:
        self.received += n


# Data the other machine has not acknowledged for this long means it is gone (Linux's
# TCP_USER_TIMEOUT, in milliseconds): without it, a cable pulled mid-reply is retried for about
# fifteen minutes before the connection fails. Acknowledgement is the kernel's, so a worker busy
# computing a long prompt is not taken for lost.
UNACKED_TIMEOUT_MS = 30_000


def _set_keepalive(writer: asyncio.StreamWriter) -> None:
    """A worker that vanishes without closing (a cable pulled, its network gone) is noticed
    within a minute when the connection is idle (keepalive), and within ``UNACKED_TIMEOUT_MS``
    while a reply is sending it work."""
    sock = writer.get_extra_info("socket")
    if sock is None:
        return
    with contextlib.suppress(OSError, AttributeError):
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPIDLE, 20)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPINTVL, 10)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPCNT, 3)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if hasattr(socket, "TCP_USER_TIMEOUT"):  # Linux
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_USER_TIMEOUT, UNACKED_TIMEOUT_MS)
