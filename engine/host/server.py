"""Run the engine host: bind, load what was asked for, announce readiness, serve until stopped.

The app starts it as ``python -m engine.host --port 0`` with a per-launch token in the environment
(never on the command line, where other users could read it) and reads one JSON line from its
stdout to learn the port. ``cove serve`` runs the same function in the foreground.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import socket
import threading
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING

from engine.client.protocol import READY_PREFIX
from engine.generation.state_cache import DEFAULT_LIMIT_BYTES, StateCache
from engine.host.http.cors import with_environment
from engine.host.http.guards import DEFAULT_MAX_BODY, HostConfig
from engine.host.http.loopback import is_loopback
from engine.host.models.model_names import NameRules
from engine.host.models.replies import STREAM_FLUSH_S
from engine.host.models.residents import DEFAULT_KEEP_ALIVE_S
from engine.host.protocols.routes import make_app
from engine.host.state import HostState
from engine.launch import setup_logging, watch_parent
from engine.paths import state_dir
from engine.remote.certificate import Identity
from engine.remote.ratelimit import RateLimit
from engine.remote.split import WorkerShare

if TYPE_CHECKING:
    import uvicorn
    from starlette.types import ASGIApp

log = logging.getLogger("cove.host")


@dataclass(frozen=True, slots=True)
class ServeOptions:
    host: str = "127.0.0.1"
    port: int = 8080
    model: str | None = None
    embedding_model: Path | None = None
    ctx: int | None = None
    api_key: str | None = None
    # Requests waiting beyond the running ones before a 429 (None: 8 for each sequence).
    max_queue: int | None = 8
    # Replies at once for a llama.cpp model (None: "auto", as many as fit up to AUTO_PARALLEL).
    parallel: int | None = 1
    # How long a model loaded on demand stays idle before it is unloaded (None: until told), and
    # how many chat models may be resident at once (None: as many as fit).
    keep_alive_s: float | None = DEFAULT_KEEP_ALIVE_S
    max_models: int | None = None
    ollama: bool = False  # also listen on Ollama's port on the loopback address
    max_body: int = DEFAULT_MAX_BODY
    log_prompts: bool = False
    announce: bool = False
    parent_pid: int | None = None
    flush_s: float = STREAM_FLUSH_S
    # Conversations' model state kept on disk (engine/generation/state_cache.py); 0: off.
    state_cache_bytes: int = DEFAULT_LIMIT_BYTES
    draft: str | None = None  # a draft model for speculative decoding, or "auto"
    # ``cove serve --lan``: TLS with this machine's certificate, the kept key's digest, and
    # limits per client address (engine/remote).
    tls: Identity | None = None
    key_digest: bytes | None = None
    rate_limit: RateLimit | None = None
    advertise: bool = False  # announce the name and fingerprint on the LAN (mDNS)
    # cove workers that GGUF models are split with, reached through loopback tunnels.
    workers: tuple[WorkerShare, ...] = ()
    # The model names clients send: --alias PATTERN=MODEL, --any-model-name.
    names: NameRules = field(default_factory=NameRules)
    # Measuring in the background when the computer is idle (False: off for this run, whatever
    # the kept setting says; engine/host/idle/background.py).
    background_measuring: bool = True
    # Web origins allowed beyond the default ones (--allow-origin; COVE_ORIGINS adds to them).
    allow_origins: tuple[str, ...] = ()


def bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise OSError(f"Cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    sock.listen(128)
    sock.set_inheritable(False)
    return sock


OLLAMA_PORT = 11434
# How long a host whose app is gone may take to stop before it ends without finishing.
ORPHAN_GRACE_S = 20.0


def serve(options: ServeOptions) -> int:
    """Blocking. Returns the process exit code."""
    setup_logging()
    check_exposure(options)
    state = HostState(
        max_queue=options.max_queue,
        log_prompts=options.log_prompts,
        flush_s=options.flush_s,
        states=StateCache(state_dir(), options.state_cache_bytes)
        if options.state_cache_bytes > 0
        else None,
        draft=options.draft,
        workers=options.workers,
        names=options.names,
        parallel=options.parallel,
        keep_alive_s=options.keep_alive_s,
        max_models=options.max_models,
        background_measuring=options.background_measuring,
    )
    if options.parent_pid is not None:
        state.background.adopt(options.parent_pid)  # the window's work is Cove's own
    sock = bind(options.host, options.port)
    sockets = [sock]
    if options.ollama:
        try:
            sockets.append(bind("127.0.0.1", OLLAMA_PORT))
        except OSError as exc:
            log.warning(
                "cannot listen on Ollama's port %d (%s): is Ollama itself running? "
                "Its clients can still reach Cove on port %d.",
                OLLAMA_PORT,
                exc.strerror or exc,
                sock.getsockname()[1],
            )
    try:
        if options.embedding_model is not None:
            state.load_embedder(options.embedding_model)
        if options.model is not None:
            state.load_chat(options.model, options.ctx)
        app = make_app(state, host_config(options))
        tls = options.tls
        server = make_server(app, options)
        port = sock.getsockname()[1]
        scheme = "https" if tls else "http"

        def announce(signum: int | None = None, frame: FrameType | None = None) -> None:
            state.loop = asyncio.get_running_loop()  # called inside the server's startup
            ready = {"port": port, "pid": os.getpid()}
            if options.announce:
                print(READY_PREFIX + json.dumps(ready), flush=True)
            log.info("serving on %s://%s:%d/v1", scheme, _url_host(options.host), port)
            if tls is not None:
                log.info("certificate fingerprint (pinned by clients): %s", tls.fingerprint)

            if len(sockets) > 1:
                log.info("and Ollama's API on http://127.0.0.1:%d/api", OLLAMA_PORT)

        _on_started(server, announce)
        if options.advertise:
            from engine.remote.discovery import advertise

            try:
                advertise(port, tls.fingerprint if tls else None)
            except Exception as exc:  # announcing is optional: serve without it
                log.warning("could not announce this engine on the network: %r", exc)
        if options.parent_pid is not None:
            _exit_with_parent(server, options.parent_pid)
        _finish_on_sigterm()
        server.run(sockets=sockets)
    finally:
        for listening in sockets:
            listening.close()
        state.close()
    return 0


def check_exposure(options: ServeOptions) -> None:
    """Beyond loopback only with a key (refused otherwise), and said so in the log."""
    if is_loopback(options.host):
        return
    if options.api_key is None and options.key_digest is None:
        raise ValueError(
            f"--host {options.host} would let other computers use this engine without a "
            "key. Use --lan (a key and an encrypted, pinned connection), or set --api-key."
        )
    log.warning(
        "listening on %s: other machines on the network can reach this engine (with the key)%s",
        options.host,
        "" if options.tls else "; the connection is not encrypted (--lan encrypts it)",
    )


def host_config(options: ServeOptions) -> HostConfig:
    """What stands in front of every endpoint, from the serve options."""
    return HostConfig(
        api_key=options.api_key,
        max_body=options.max_body,
        loopback_only=is_loopback(options.host),
        key_digest=options.key_digest,
        rate_limit=options.rate_limit,
        allow_origins=with_environment(options.allow_origins),
    )


def make_server(app: ASGIApp, options: ServeOptions) -> uvicorn.Server:
    """uvicorn as Cove runs it: no log of its own, no lifespan, TLS with ``--lan``, requests
    acknowledged at once (engine/host/http/quick_ack.py)."""
    import uvicorn

    from engine.host.http.quick_ack import QuickAckH11

    tls = options.tls
    return uvicorn.Server(
        uvicorn.Config(
            app,
            log_config=None,
            access_log=False,
            lifespan="off",
            http=QuickAckH11,
            timeout_graceful_shutdown=2,
            ws="none",
            ssl_certfile=str(tls.cert_path) if tls else None,
            ssl_keyfile=str(tls.key_path) if tls else None,
        )
    )


def _on_started(server: object, callback: object) -> None:
    """Call ``callback`` once uvicorn has started serving (its ``startup`` has run)."""
    import uvicorn

    assert isinstance(server, uvicorn.Server)
    original = server.startup

    async def startup(sockets: list[socket.socket] | None = None) -> None:
        await original(sockets=sockets)
        if callable(callback):
            callback()

    server.startup = startup  # type: ignore[method-assign]


def _exit_with_parent(server: object, parent_pid: int) -> None:
    """A private host must not outlive the app that started it (a crash, a kill -9 of the app):
    once the parent is gone, stop serving and free the model."""

    def stop() -> None:
        log.info("the app that started this engine is gone; stopping")
        server.should_exit = True  # type: ignore[attr-defined]
        # Serving stops within uvicorn's graceful timeout; a model load or a state write that
        # does not return in time is not waited for.
        deadline = threading.Timer(ORPHAN_GRACE_S, _end_now)
        deadline.daemon = True
        deadline.start()

    watch_parent(parent_pid, stop)


def _finish_on_sigterm() -> None:
    """uvicorn stops serving on SIGTERM, then raises the signal again under the handler it
    found: with Python's default one the process ends there, before the host has freed its
    models and finished writing a conversation's saved state (a 90 MB state a second after a
    reply was left a partial file). Under this one, SIGTERM ends the process the way SIGINT
    does, through ``serve``'s cleanup."""
    if threading.current_thread() is not threading.main_thread():
        return

    def stop(signum: int, _frame: FrameType | None) -> None:
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, stop)


def _end_now() -> None:
    log.warning(
        "still not stopped %.0f s after the app that started it ended; ending now", ORPHAN_GRACE_S
    )
    logging.shutdown()
    os._exit(1)


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host
