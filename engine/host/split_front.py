"""``cove serve --model M --worker HOST:PORT[=KEY] ...``: one model split across this machine and
``cove worker`` machines, served like any ``cove serve``.

llama.cpp ends the process that uses an RPC device whose connection breaks (ggml aborts). So the
model runs in an engine host child process (the one the window uses, engine/client/local.py), and
this process is what clients talk to: it checks keys, holds the TLS tunnels to the workers, and
passes each request through to the child. When a worker is lost mid-reply the child dies; the reply
ends with an error that names the worker, this process stays up (answering with a clear 503
meanwhile), and the model is loaded again as soon as every worker answers.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import signal
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx

from engine.backends.loader import current_resources, require_fit
from engine.client.local import LocalEngine
from engine.client.protocol import READY_PREFIX, error_body
from engine.errors import EngineError, EngineUnreachable, InsufficientMemory
from engine.host.http.cors import Cors
from engine.host.http.guards import Guard
from engine.host.server import (
    ServeOptions,
    bind,
    check_exposure,
    host_config,
    make_server,
)
from engine.launch import setup_logging
from engine.planner.plan import Plan
from engine.remote.pins import trust
from engine.remote.split import WorkerShare, encode, plan_with_workers
from engine.remote.tunnel import (
    CLIENT_ID,
    Forward,
    Loop,
    WorkerAddress,
    with_key,
    worker_info,
)
from engine.units import format_bytes

log = logging.getLogger("cove.host")

RETRY_S = 5.0  # how often lost workers are asked again
LOST_GRACE_S = 2.0  # a broken reply waits this long, at most, to learn which worker was lost
_HOP_HEADERS = frozenset(
    {"host", "authorization", "x-api-key", "content-length", "connection", "transfer-encoding",
     "keep-alive", "accept-encoding"}
)  # fmt: skip


@dataclass(slots=True)
class Supervisor:
    """The engine host child and the workers it uses: started, watched, and started again."""

    options: ServeOptions
    workers: list[WorkerAddress]
    forwards: list[Forward]
    engine: LocalEngine | None = None
    problem: str | None = None  # why no engine serves right now
    lost: dict[str, str] = field(default_factory=dict)
    stopping: bool = False
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _lost_event: threading.Event = field(default_factory=threading.Event)

    def on_lost(self, where: str, what: str) -> None:
        with self._lock:
            first = not self.lost
            self.lost.setdefault(where, what)
            engine = self.engine
            self._lost_event.set()
        log.warning("lost the worker %s: %s", where, what)
        if first and engine is not None:
            # The model cannot run without the worker's layers: end the engine host now (a
            # reply in progress ends with the error), rather than at its next use.
            threading.Thread(target=engine.stop, name="cove-worker-lost", daemon=True).start()

    def shares(self) -> list[WorkerShare]:
        shares = []
        for w, f in zip(self.workers, self.forwards, strict=True):
            info = worker_info(w, f.trusted)
            user = str(info.get("in_use_by") or "")
            if user and not user.endswith(CLIENT_ID):
                raise EngineUnreachable(
                    f"The worker {w.address} is in use by another Cove (at {user.split(' ')[0]}); "
                    "a worker lends itself to one at a time."
                )
            shares.append(WorkerShare.from_info(f.endpoint, w.address, info))
        return shares

    def start(self) -> None:
        """Plan the split with the workers' free memory now, refuse it when it does not fit,
        and start the engine host on it."""
        shares = self.shares()
        model = self.options.model
        assert model is not None
        plan = plan_with_workers(model, self.options.ctx, current_resources(), shares)
        show_split(plan)
        require_fit(plan)
        args = ["--workers", encode(shares)]
        if self.options.max_queue is not None:
            args += ["--max-queue", str(self.options.max_queue)]
        args += ["--state-cache-mb", str(self.options.state_cache_bytes // 2**20)]
        if self.options.log_prompts:
            args.append("--log-prompts")
        if self.options.draft is not None:
            args += ["--draft", self.options.draft]
        engine = LocalEngine.start(
            model=model,
            ctx=self.options.ctx,
            embedding_model=self.options.embedding_model,
            extra_args=tuple(args),
            ready_timeout=600.0,
        )
        with self._lock:
            self.engine, self.problem = engine, None
            self.lost.clear()
            self._lost_event.clear()
        threading.Thread(target=self._watch, args=(engine,), daemon=True).start()

    def _watch(self, engine: LocalEngine) -> None:
        engine.wait()
        if self.stopping:
            return
        with self._lock:
            lost = dict(self.lost)
        why = (
            "; ".join(f"the worker {w} was lost ({what})" for w, what in lost.items())
            if lost
            else (engine.exit_description() or "the engine process stopped")
        )
        log.warning("the model is unavailable: %s; loading it again when every worker answers",
                    why)  # fmt: skip
        with self._lock:
            self.engine, self.problem = None, why
        engine.stop()
        self._restart(why)

    def _restart(self, why: str) -> None:
        while not self.stopping:
            try:
                self.start()
                log.info("the model is loaded again")
                return
            except Exception as exc:  # keep trying: this thread is what brings the model back
                with self._lock:
                    self.problem = f"{why}. Loading the model again: {str(exc).rstrip('.')}"
            time.sleep(RETRY_S)  # a worker that went away is asked again after a pause

    def stop(self) -> None:
        self.stopping = True
        engine, self.engine = self.engine, None
        if engine is not None:
            engine.stop()

    def unavailable(self) -> str:
        with self._lock:
            return (
                f"The model is not available right now: {self.problem}."
                if self.problem
                else "The model is still loading."
            )

    def lost_message(self, grace: float = 0.0) -> str:
        """Why a reply broke. A worker's loss reaches the engine host and this process's tunnel
        at once, by two paths: the broken reply waits up to ``grace`` seconds for the tunnel's
        word, so that the reply names the worker whichever path was quicker."""
        if grace > 0:
            self._lost_event.wait(grace)
        with self._lock:
            lost = dict(self.lost)
        if lost:
            names = ", ".join(lost)
            return (
                f"The connection to the worker {names} broke mid-reply, so the reply ends here. "
                "The model is loaded again as soon as every worker answers."
            )
        return "The engine stopped mid-reply; the reply ends here."


def show_split(plan: Plan) -> None:
    log.info("model split: %s", plan.device)
    for budget in plan.budgets:
        log.info(
            "  %s: %s needed (weights %s, KV cache %s), %s free",
            budget.device,
            format_bytes(budget.total),
            format_bytes(budget.weights),
            format_bytes(budget.kv_cache),
            format_bytes(budget.free),
        )
    for reason in plan.reasons:
        log.info("  %s", reason)


class Proxy:
    """Passes each request to the engine host child, streaming the answer back; a stream that
    breaks gets a last error event in its protocol's shape."""

    def __init__(self, supervisor: Supervisor, max_body: int) -> None:
        self.sup = supervisor
        self.max_body = max_body
        self.http = httpx.AsyncClient(timeout=httpx.Timeout(30.0, read=None), trust_env=False)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        path = str(scope.get("path", "/"))
        engine = self.sup.engine
        if engine is None:
            await _error(send, path, 503, self.sup.unavailable())
            return
        body = bytearray()
        while True:
            message = await receive()
            body.extend(message.get("body", b""))
            if len(body) > self.max_body:
                await _error(send, path, 413, "The request body is too large.")
                return
            if not message.get("more_body"):
                break
        headers = [
            (k.decode("latin-1"), v.decode("latin-1"))
            for k, v in scope.get("headers", [])
            if k.decode("latin-1").lower() not in _HOP_HEADERS
        ]
        headers.append(("authorization", f"Bearer {engine.token}"))
        query = scope.get("query_string", b"").decode("latin-1")
        url = f"http://127.0.0.1:{engine.port}{path}" + (f"?{query}" if query else "")
        started = False
        try:
            request = self.http.build_request(
                scope["method"], url, headers=headers, content=bytes(body)
            )
            response = await self.http.send(request, stream=True)
            try:
                passed = [
                    (k.encode("latin-1"), v.encode("latin-1"))
                    for k, v in response.headers.multi_items()
                    if k.lower() not in ("content-length", "transfer-encoding", "connection")
                ]
                await send({"type": "http.response.start", "status": response.status_code,
                            "headers": passed})  # fmt: skip
                started = True
                kind = response.headers.get("content-type", "")
                try:
                    async for chunk in response.aiter_raw():
                        await send({"type": "http.response.body", "body": chunk,
                                    "more_body": True})  # fmt: skip
                except httpx.HTTPError:
                    why = await asyncio.to_thread(self.sup.lost_message, LOST_GRACE_S)
                    await send({"type": "http.response.body",
                                "body": _stream_error(kind, path, why),
                                "more_body": True})  # fmt: skip
            finally:
                await response.aclose()
        except httpx.HTTPError:
            if not started:
                await _error(send, path, 503, self.sup.lost_message())
                return
        await send({"type": "http.response.body", "body": b"", "more_body": False})


def _stream_error(kind: str, path: str, message: str) -> bytes:
    """The last event of a broken stream, as each protocol's clients read errors."""
    if "ndjson" in kind:  # Ollama's
        return (json.dumps({"error": message}) + "\n").encode()
    if path.startswith("/v1/messages"):  # Anthropic's
        data = {"type": "error", "error": {"type": "api_error", "message": message}}
        return f"event: error\ndata: {json.dumps(data)}\n\n".encode()
    body = error_body(message, "server_error", "worker_lost")
    return f"data: {json.dumps(body)}\n\n".encode()


async def _error(send: Any, path: str, status: int, message: str) -> None:
    if path.startswith("/v1/messages"):
        data: dict[str, Any] = {"type": "error", "error": {"type": "api_error", "message": message}}
    elif path.startswith("/api/"):
        data = {"error": message}
    else:
        data = error_body(message, "server_error", "engine_unavailable")
    raw = json.dumps(data).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"retry-after", str(int(RETRY_S)).encode())]})  # fmt: skip
    await send({"type": "http.response.body", "body": raw, "more_body": False})


def serve_split(options: ServeOptions, specs: Sequence[str]) -> int:
    """Blocking: connect to the workers, plan and load the split model, serve until stopped."""
    setup_logging()
    if options.model is None:
        raise ValueError("--worker needs --model: the model to split across the machines")
    if options.ollama:
        raise ValueError("--ollama cannot be combined with --worker")
    workers = [with_key(WorkerAddress.parse(spec)) for spec in specs]
    check_exposure(options)
    loop = Loop()
    forwards: list[Forward] = []
    sup = Supervisor(options, workers, forwards)
    for w in workers:
        trusted = trust(w.host, w.port)
        if trusted.first_use:
            log.info("pinned the certificate of the worker %s: %s (check that the worker showed "
                     "the same)", w.address, trusted.fingerprint)  # fmt: skip
        forward = Forward(w, trusted, sup.on_lost)
        loop.run(forward.start()).result()
        forwards.append(forward)
    try:
        sup.start()
    except InsufficientMemory as exc:
        loop.stop()
        raise EngineError(f"The split does not fit: {exc}") from None
    config = host_config(options)
    app = Cors(Guard(Proxy(sup, options.max_body), config), config)  # type: ignore[arg-type]
    sock = bind(options.host, options.port)
    server = make_server(app, options)
    port = sock.getsockname()[1]
    scheme = "https" if options.tls else "http"
    log.info("serving on %s://%s:%d/v1 (the model split across %d machines)", scheme,
             options.host, port, len(workers) + 1)  # fmt: skip
    if options.announce:
        print(READY_PREFIX + json.dumps({"port": port, "pid": os.getpid()}), flush=True)
    with contextlib.suppress(ValueError):  # not the main thread (tests)
        signal.signal(signal.SIGTERM, lambda *_: setattr(server, "should_exit", True))
    try:
        server.run(sockets=[sock])
    finally:
        sup.stop()
        sock.close()
        loop.stop()
    return 0
