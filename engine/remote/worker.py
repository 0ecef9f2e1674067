"""``cove worker``: lend this machine's memory (and GPU) to another Cove for part of a model.

It starts llama.cpp's RPC server on this machine's loopback address (never reachable from the
network: ggml's RPC has no authentication) in a child process, and listens on the network with TLS
and a key (engine/remote/tunnel.py). A connection with the right key gets the worker's free memory,
or a tunnel to the RPC server; a wrong key is refused, and an address that keeps trying wrong keys
is locked out for a minute. The RPC server is started again if it dies (a client that disconnects
in the middle of a command can end it).

Its first stdout lines are ``key: K`` (only when the key was made now: it is shown once) and
``fingerprint: F``, so a script can read them.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import re
import signal
import socket
import ssl
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field

import psutil

from engine.launch import child_env, module_command
from engine.remote.certificate import Identity, identity
from engine.remote.keys import ensure_key, matches
from engine.remote.ratelimit import RateLimit
from engine.remote.tunnel import HELLO_TIMEOUT_S, MAX_HELLO, pump

log = logging.getLogger("cove.worker")

RPC_START_TIMEOUT_S = 60.0
_DEVICE_LINE = re.compile(r"^\s+(\S+): (.*) \((\d+) MiB, (\d+) MiB free\)\s*$")


@dataclass(slots=True)
class RpcChild:
    """llama.cpp's RPC server in a child process, on a loopback port."""

    threads: int
    port: int = 0
    device: str = "CPU"
    gpu: bool = False
    proc: subprocess.Popen[bytes] | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def ensure(self) -> int:
        """The running server's port (started, or started again, as needed)."""
        with self._lock:
            if self.proc is None or self.proc.poll() is not None:
                if self.proc is not None:
                    log.warning("llama.cpp's RPC server stopped (code %s); starting it again",
                                self.proc.returncode)  # fmt: skip
                self._start()
            return self.port

    def _start(self) -> None:
        self.port = _free_loopback_port()
        args = [*module_command("engine.remote.rpc_server"), "--port", str(self.port)]
        args += ["--threads", str(self.threads)]
        env = child_env(dict(os.environ, PYTHONUNBUFFERED="1"))
        self.proc = subprocess.Popen(
            args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=None, env=env
        )
        assert self.proc.stdout is not None
        deadline = time.monotonic() + RPC_START_TIMEOUT_S
        devices: list[str] = []
        for raw in self.proc.stdout:  # its banner; then it listens
            line = raw.decode("utf-8", "replace").rstrip()
            found = _DEVICE_LINE.match(line)
            if found:
                devices.append(f"{found.group(1)} ({found.group(2)})")
                self.gpu = self.gpu or not found.group(1).startswith("CPU")
            if line.strip().startswith("transport"):
                break
            if time.monotonic() > deadline:
                break
        self.device = ", ".join(devices) or "CPU"
        threading.Thread(target=_drain, args=(self.proc,), daemon=True).start()
        while time.monotonic() < deadline and self.proc.poll() is None:
            with (
                contextlib.suppress(OSError),
                socket.create_connection(("127.0.0.1", self.port), 1),
            ):
                return
            time.sleep(0.05)  # polling the child's port until it listens
        raise OSError("llama.cpp's RPC server did not start (see the messages above)")

    def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is not None and proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                proc.kill()


def _drain(proc: subprocess.Popen[bytes]) -> None:
    """Keep the child's stdout flowing (its per-connection lines go to the log)."""
    assert proc.stdout is not None
    with contextlib.suppress(OSError, ValueError):
        for raw in proc.stdout:
            log.info("rpc: %s", raw.decode("utf-8", "replace").rstrip())


def _free_loopback_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Worker:
    def __init__(self, tls: Identity, key_digest: bytes, rpc: RpcChild) -> None:
        self.tls = tls
        self.key_digest = key_digest
        self.rpc = rpc
        self.limit = RateLimit(requests_per_minute=120)
        self.sessions = 0
        self.user: str | None = None  # the address using the RPC server now

    def info(self) -> dict[str, object]:
        free, total = _memory(self.rpc.gpu)
        return {
            "ok": True,
            "name": socket.gethostname(),
            "device": self.rpc.device,
            "free_memory": free,
            "total_memory": total,
            "sessions": self.sessions,
            "in_use_by": self.user,  # "ADDRESS CLIENT-ID" of the Cove using it, or None
        }

    async def serve(self, host: str, port: int) -> None:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.minimum_version = ssl.TLSVersion.TLSv1_2
        ctx.load_cert_chain(self.tls.cert_path, self.tls.key_path)
        server = await asyncio.start_server(self._client, host, port, ssl=ctx,
                                            ssl_handshake_timeout=HELLO_TIMEOUT_S)  # fmt: skip
        where = ", ".join(str(s.getsockname()[:2]) for s in server.sockets)
        log.info("worker listening on %s (TLS)", where)
        print(f"listening: {host}:{server.sockets[0].getsockname()[1]}", flush=True)
        async with server:
            await server.serve_forever()

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = writer.get_extra_info("peername")
        who = str(peer[0]) if peer else "?"
        try:
            answer, session = await self._hello(reader, who)
            writer.write((json.dumps(answer) + "\n").encode())
            await writer.drain()
            if session:
                await self._session(reader, writer, who)
        except (TimeoutError, OSError, ssl.SSLError, ValueError) as exc:
            log.info("connection from %s ended: %s", who, exc or type(exc).__name__)
        finally:
            with contextlib.suppress(Exception):
                writer.close()

    async def _hello(
        self, reader: asyncio.StreamReader, who: str
    ) -> tuple[dict[str, object], bool]:
        wait = self.limit.check(who)
        if wait is not None:
            return _refusal(
                f"too many attempts; try again in {int(wait) + 1} s", "rate_limited"
            ), False
        line = await asyncio.wait_for(reader.readline(), HELLO_TIMEOUT_S)
        if len(line) > MAX_HELLO:
            return _refusal("malformed request", "invalid_request"), False
        hello = json.loads(line.decode("utf-8") or "{}")
        if not isinstance(hello, dict) or not matches(str(hello.get("key", "")), self.key_digest):
            self.limit.failed(who)
            log.warning("refused %s: wrong key", who)
            return _refusal("wrong key (use the key 'cove worker' printed)", "unauthorized"), False
        want = hello.get("want")
        if want == "info":
            return self.info(), False
        if want == "rpc":
            client = f"{who} {hello.get('client', '')}"
            if self.user is not None and self.user != client:
                # llama.cpp's RPC server serves one client at a time: a second would wait
                # unseen behind the first, so it is told instead.
                user = self.user.split(" ")[0]
                return _refusal(f"busy: in use by another Cove (at {user})", "busy"), False
            self.user = client
            return {"ok": True}, True
        return _refusal(f"unknown request {want!r}", "invalid_request"), False

    async def _session(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, who: str
    ) -> None:
        self.sessions += 1
        try:
            port = await asyncio.to_thread(self.rpc.ensure)
            rpc_r, rpc_w = await asyncio.open_connection("127.0.0.1", port)
            log.info("%s uses this machine's %s", who, self.rpc.device)
            await asyncio.gather(pump(reader, rpc_w), pump(rpc_r, writer))
        finally:
            self.sessions -= 1
            if self.sessions == 0:
                self.user = None
            log.info("%s is done", who)


def _refusal(message: str, code: str) -> dict[str, object]:
    return {"ok": False, "error": message, "code": code}


def _memory(gpu: bool) -> tuple[int, int]:
    if gpu:
        from engine.hardware.probes import probe_nvidia
        from engine.hardware.report import GpuInfo

        cards = [g for g in probe_nvidia() if isinstance(g, GpuInfo)]
        if cards:
            return sum(g.free_bytes for g in cards), sum(g.total_bytes for g in cards)
    memory = psutil.virtual_memory()
    return int(memory.available), int(memory.total)


def worker_command(
    host: str, port: int, key: str | None, *, new_key: bool = False, threads: int | None = None
) -> int:
    from engine.launch import setup_logging

    setup_logging()
    logging.getLogger("cove").setLevel(logging.INFO)
    tls = identity()
    made = ensure_key("worker", key, new=new_key)
    if made.shown is not None:
        print(f"key: {made.shown}", flush=True)
    print(f"fingerprint: {tls.fingerprint}", flush=True)
    rpc = RpcChild(threads=threads or os.cpu_count() or 1)
    rpc.ensure()
    worker = Worker(tls, made.digest, rpc)
    print(f"device: {rpc.device}", flush=True)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        asyncio.run(worker.serve(host, port))
    except KeyboardInterrupt:
        return 130
    finally:
        rpc.stop()
    return 0
