"""The engine host's HTTP surface: the OpenAI-compatible API plus Cove's load, unload, plan and
status endpoints, as a Starlette application.

Every response is JSON (errors in OpenAI's shape) or an SSE stream; nothing here ever sends a
traceback. A stream's generation is cancelled the moment its client disconnects: a task watches the
ASGI ``receive`` channel for ``http.disconnect`` and sets the generation's cancel event, which the
engine checks per token and per prompt batch.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import logging
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from engine.errors import (
    BackendUnavailable,
    ContextOverflow,
    EngineAuthError,
    EngineBusy,
    EngineError,
    InsufficientMemory,
    InvalidRequest,
    LoadCancelled,
    ModelLoadError,
    ModelNotFound,
)
from engine.host import wire
from engine.host.state import HostState
from engine.types import Chunk

log = logging.getLogger("cove.host")

DEFAULT_MAX_BODY = 8 * 1024 * 1024
LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "::1", "[::1]"})

_STATUS: tuple[tuple[type[EngineError], int, str], ...] = (
    (InvalidRequest, 400, "invalid_request_error"),
    (ContextOverflow, 400, "invalid_request_error"),
    (ModelLoadError, 400, "invalid_request_error"),
    (BackendUnavailable, 400, "invalid_request_error"),
    (EngineAuthError, 401, "authentication_error"),
    (ModelNotFound, 404, "not_found_error"),
    (LoadCancelled, 409, "cancelled"),
    (EngineBusy, 429, "rate_limit_error"),
    (InsufficientMemory, 507, "insufficient_memory"),
)


class PayloadTooLarge(InvalidRequest):
    code = "payload_too_large"


class UnsupportedMediaType(InvalidRequest):
    code = "unsupported_media_type"


@dataclass(frozen=True, slots=True)
class HostConfig:
    api_key: str | None = None
    max_body: int = DEFAULT_MAX_BODY
    loopback_only: bool = True
    retry_after_s: int = 2


def error_status(exc: EngineError) -> tuple[int, dict[str, Any]]:
    """The HTTP status and OpenAI-style body for an engine error."""
    status, kind = 500, "server_error"
    for cls, code, name in _STATUS:
        if isinstance(exc, cls):
            status, kind = code, name
            break
    if isinstance(exc, PayloadTooLarge):
        status = 413
    elif isinstance(exc, UnsupportedMediaType):
        status = 415
    body = wire.error_body(str(exc), kind, exc.code)
    if isinstance(exc, InsufficientMemory) and exc.plan is not None:
        body["error"]["plan"] = exc.plan
    return status, body


def error_response(exc: EngineError, retry_after_s: int = 2) -> JSONResponse:
    status, body = error_status(exc)
    headers = {"Retry-After": str(retry_after_s)} if status == 429 else None
    if status == 401:
        headers = {"WWW-Authenticate": "Bearer"}
    return JSONResponse(body, status_code=status, headers=headers)


def make_app(state: HostState, config: HostConfig) -> ASGIApp:
    routes = [
        Route("/v1/models", _endpoint(state, config, _models), methods=["GET"]),
        Route("/v1/chat/completions", _endpoint(state, config, _chat), methods=["POST"]),
        Route("/v1/completions", _endpoint(state, config, _completions), methods=["POST"]),
        Route("/v1/embeddings", _endpoint(state, config, _embeddings), methods=["POST"]),
        Route("/cove/v1/status", _endpoint(state, config, _status), methods=["GET"]),
        Route("/cove/v1/load", _endpoint(state, config, _load), methods=["POST"]),
        Route("/cove/v1/unload", _endpoint(state, config, _unload), methods=["POST"]),
        Route("/cove/v1/plan", _endpoint(state, config, _plan), methods=["POST"]),
        Route("/cove/v1/hardware", _endpoint(state, config, _hardware), methods=["GET"]),
    ]
    app = Starlette(routes=routes, exception_handlers={404: _not_found, 405: _not_allowed})
    return _Guard(app, config)


Handler = Callable[[Request, HostState, HostConfig], Awaitable[Response]]


def _endpoint(
    state: HostState, config: HostConfig, handler: Handler
) -> Callable[[Request], Awaitable[Response]]:
    async def run(request: Request) -> Response:
        try:
            return await handler(request, state, config)
        except EngineError as exc:
            return error_response(exc, config.retry_after_s)
        except Exception:  # the process boundary: log it, answer in JSON, stay up
            log.exception("unexpected error in %s", request.url.path)
            return error_response(EngineError("The engine hit an internal error; see its log."))

    return run


async def _not_found(request: Request, exc: Exception) -> Response:
    return JSONResponse(
        wire.error_body(f"No such endpoint: {request.url.path}", "not_found_error", "not_found"),
        status_code=404,
    )


async def _not_allowed(request: Request, exc: Exception) -> Response:
    return JSONResponse(
        wire.error_body(
            f"{request.method} is not allowed on {request.url.path}",
            "invalid_request_error",
            "method_not_allowed",
        ),
        status_code=405,
    )


# -- endpoints ---------------------------------------------------------------------------------


async def _models(request: Request, state: HostState, config: HostConfig) -> Response:
    data = []
    if state.chat is not None:
        data.append(_model_card(state.chat.id, "chat", int(state.chat.path.stat().st_mtime)))
    if state.embedder is not None:
        data.append(_model_card(state.embedder.name, "embedding", wire.now()))
    return JSONResponse({"object": "list", "data": data})


def _model_card(model_id: str, kind: str, created: int) -> dict[str, Any]:
    return {"id": model_id, "object": "model", "created": created, "owned_by": "cove", "kind": kind}


async def _chat(request: Request, state: HostState, config: HostConfig) -> Response:
    req = wire.parse_chat(await read_json(request, config.max_body))
    resident = state.resolve_chat(req.model)
    if state.log_prompts:
        log.info("chat prompt: %s", json.dumps([m.content for m in req.messages])[:2000])
    cancel = threading.Event()
    cid, created, name = wire.completion_id("chatcmpl"), wire.now(), resident.id

    def piece(text: str, first: bool) -> dict[str, Any]:
        delta = {"role": "assistant", "content": text} if first else {"content": text}
        return wire.chat_delta(cid, name, created, delta)

    return await _generation(
        request,
        state,
        lambda: resident.model.chat(req.messages, req.params, cancel),
        cancel,
        stream=req.stream,
        piece=piece,
        last=lambda final: wire.chat_final_chunk(cid, name, created, final),
        whole=lambda text, final: wire.chat_response(cid, name, created, text, final),
    )


async def _completions(request: Request, state: HostState, config: HostConfig) -> Response:
    req = wire.parse_completion(await read_json(request, config.max_body))
    resident = state.resolve_chat(req.model)
    if state.log_prompts:
        log.info("completion prompt: %s", json.dumps(req.prompt)[:2000])
    cancel = threading.Event()
    cid, created, name = wire.completion_id("cmpl"), wire.now(), resident.id
    return await _generation(
        request,
        state,
        lambda: resident.model.complete(req.prompt, req.params, cancel),
        cancel,
        stream=req.stream,
        piece=lambda text, _first: wire.text_chunk(cid, name, created, text),
        last=lambda final: wire.text_final(cid, name, created, "", final),
        whole=lambda text, final: wire.text_final(cid, name, created, text, final),
    )


async def _generation(
    request: Request,
    state: HostState,
    produce: Callable[[], Iterator[Chunk]],
    cancel: threading.Event,
    *,
    stream: bool,
    piece: Callable[[str, bool], dict[str, Any]],
    last: Callable[[Chunk], dict[str, Any]],
    whole: Callable[[str, Chunk], dict[str, Any]],
) -> Response:
    """One generation as an SSE stream (``piece`` per text chunk, ``last`` for the terminal one)
    or as one JSON body (``whole``)."""
    if not stream:
        text, final = await _collect(request, state, produce, cancel)
        return JSONResponse(whole(text, final))

    async def events() -> AsyncIterator[bytes]:
        # aclosing: leaving early (a client gone) must finish the generation thread before the
        # turn passes to the next request, or that request finds the model still busy.
        async with state.turn(), contextlib.aclosing(state.run_stream(produce, cancel)) as items:
            first = True
            async for item in items:
                if isinstance(item, str):
                    yield b": keep-alive\n\n"
                elif not item.is_terminal:
                    yield _sse(piece(item.text, first))
                    first = False
                elif item.finish_reason == "error":
                    yield _sse(wire.error_body(item.error or "", "server_error", "engine"))
                    break
                else:
                    yield _sse(last(item))
                    break
            yield b"data: [DONE]\n\n"

    return await _event_stream(state, events(), cancel)


async def _embeddings(request: Request, state: HostState, config: HostConfig) -> Response:
    req = wire.parse_embeddings(await read_json(request, config.max_body))
    model = state.resolve_embedder(req.model)
    async with state.embed_turn():

        def run() -> tuple[list[list[float]], int]:
            vectors = model.embed(req.inputs)
            return vectors, sum(model.count_tokens(t) for t in req.inputs)

        vectors, tokens = await asyncio.to_thread(run)
    return JSONResponse(wire.embeddings_response(model.name, vectors, tokens, req.base64))


async def _status(request: Request, state: HostState, config: HostConfig) -> Response:
    return JSONResponse(state.status())


async def _plan(request: Request, state: HostState, config: HostConfig) -> Response:
    model, ctx, _stream = wire.parse_load(await read_json(request, config.max_body))
    plan = await asyncio.to_thread(state.plan, model, ctx)
    return JSONResponse(plan.to_dict())


async def _hardware(request: Request, state: HostState, config: HostConfig) -> Response:
    """What the probe found, what Cove chose and why: probed here, in the process that owns the
    runtimes, so that the app never loads one to find out."""
    from engine.hardware import probe_hardware

    def run() -> dict[str, object]:
        report = probe_hardware()
        data = report.to_dict()
        data["summary"] = report.summary_lines()
        data["best_device"] = report.best_device()
        return data

    return JSONResponse(await asyncio.to_thread(run))


async def _unload(request: Request, state: HostState, config: HostConfig) -> Response:
    async with state.turn():
        unloaded = await asyncio.to_thread(state.unload_chat)
    return JSONResponse({"unloaded": unloaded, "status": state.status()})


async def _load(request: Request, state: HostState, config: HostConfig) -> Response:
    model, ctx, stream = wire.parse_load(await read_json(request, config.max_body))
    loop = asyncio.get_running_loop()
    cancel = threading.Event()
    progress_q: asyncio.Queue[float] = asyncio.Queue()
    sent = [-1.0]

    def progress(fraction: float) -> bool:
        # Called from the loading thread; throttled to whole percents.
        if fraction - sent[0] >= 0.01 or fraction >= 1.0:
            sent[0] = fraction
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(progress_q.put_nowait, fraction)
        return not cancel.is_set()

    async def run_load() -> dict[str, Any]:
        from engine.embeddings import is_embedding_folder

        path = Path(model).expanduser()
        if is_embedding_folder(path):  # the embedding slot; the chat model stays resident
            async with state.embed_turn():
                await asyncio.to_thread(state.load_embedder, path)
            progress(1.0)
            return state.status()
        async with state.turn():
            await asyncio.to_thread(state.load_chat, model, ctx, progress)
        return state.status()

    if not stream:
        task = asyncio.create_task(run_load())
        watcher = asyncio.create_task(_watch_disconnect(request.receive, cancel))
        try:
            status = await task
        finally:
            watcher.cancel()
        return JSONResponse(status)

    async def events() -> AsyncIterator[bytes]:
        task = asyncio.create_task(run_load())
        try:
            while not task.done():
                getter = asyncio.ensure_future(progress_q.get())
                done, _ = await asyncio.wait({getter, task}, timeout=0.25)
                if getter in done:
                    yield _sse({"progress": round(getter.result(), 4)})
                else:
                    getter.cancel()
                    yield b": keep-alive\n\n"
            while not progress_q.empty():
                yield _sse({"progress": round(progress_q.get_nowait(), 4)})
            try:
                yield _sse({"status": task.result()})
            except EngineError as exc:
                yield _sse(error_status(exc)[1])
            yield b"data: [DONE]\n\n"
        finally:
            if not task.done():
                cancel.set()
                with contextlib.suppress(Exception):
                    await task

    return await _event_stream(state, events(), cancel)


# -- streaming plumbing ------------------------------------------------------------------------


def _sse(data: object) -> bytes:
    return b"data: " + json.dumps(data, separators=(",", ":")).encode() + b"\n\n"


async def _event_stream(
    state: HostState, events: AsyncIterator[bytes], cancel: threading.Event
) -> Response:
    """Start the stream only once its first bytes exist: an error raised before (the queue is
    full) still gets its proper status code instead of a 200 with an error inside."""
    iterator = aiter(events)
    try:
        first = await anext(iterator)
    except StopAsyncIteration:
        first = b""
    return EventStream(first, iterator, cancel)


class EventStream(Response):
    """An SSE response that owns its connection: it watches for the client leaving while it
    writes, which is what cancels the generation behind it."""

    media_type = "text/event-stream"

    def __init__(self, first: bytes, rest: AsyncIterator[bytes], cancel: threading.Event) -> None:
        self.status_code = 200
        self.background = None
        self.raw_headers = [
            (b"content-type", b"text/event-stream; charset=utf-8"),
            (b"cache-control", b"no-cache"),
            (b"x-accel-buffering", b"no"),
        ]
        self._first = first
        self._rest = rest
        self._cancel = cancel

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        watcher = asyncio.create_task(_watch_disconnect(receive, self._cancel))
        try:
            await send({"type": "http.response.start", "status": 200, "headers": self.raw_headers})
            await send({"type": "http.response.body", "body": self._first, "more_body": True})
            async for data in self._rest:
                if self._cancel.is_set():
                    break
                await send({"type": "http.response.body", "body": data, "more_body": True})
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        except OSError:  # the client went away mid-write
            self._cancel.set()
        finally:
            watcher.cancel()
            with contextlib.suppress(Exception):
                await self._rest.aclose()  # type: ignore[attr-defined]


async def _watch_disconnect(receive: Receive, cancel: threading.Event) -> None:
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            cancel.set()
            return


async def _collect(
    request: Request,
    state: HostState,
    produce: Callable[[], Iterator[Chunk]],
    cancel: threading.Event,
) -> tuple[str, Chunk]:
    """Run a whole generation for a non-streaming request, still stopping if the client leaves."""
    watcher = asyncio.create_task(_watch_disconnect(request.receive, cancel))
    parts: list[str] = []
    final: Chunk | None = None
    try:
        async with state.turn(), contextlib.aclosing(state.run_stream(produce, cancel)) as items:
            async for item in items:
                if isinstance(item, str):
                    continue
                if item.is_terminal:
                    final = item
                    break
                parts.append(item.text)
    finally:
        watcher.cancel()
    if final is None:
        final = Chunk(finish_reason="error", error="The stream ended without a result.")
    if final.finish_reason == "error":
        raise EngineError(final.error or "The engine failed while generating.")
    return "".join(parts), final


async def read_json(request: Request, limit: int) -> object:
    """The request body as JSON, refusing bodies over ``limit`` bytes before reading them all."""
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > limit):
        raise PayloadTooLarge(f"The request body is larger than the {limit}-byte limit.")
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    body = bytearray()
    async for part in request.stream():
        body.extend(part)
        if len(body) > limit:
            raise PayloadTooLarge(f"The request body is larger than the {limit}-byte limit.")
    if not body:
        return {}
    if ctype != "application/json":
        # Also what stops a web page from posting here as a "simple" cross-site request.
        raise UnsupportedMediaType(
            "Send the request body as JSON (Content-Type: application/json)."
        )
    try:
        return json.loads(bytes(body), parse_constant=_reject_constant)
    except (ValueError, RecursionError) as exc:
        raise InvalidRequest(f"The request body is not valid JSON: {exc}.") from None


def _reject_constant(name: str) -> object:
    raise ValueError(f"{name} is not allowed")


class _Guard:
    """Outermost middleware: host-header check (DNS rebinding), API key, and a log line per
    request (method, path, status, time; never the body)."""

    def __init__(self, app: ASGIApp, config: HostConfig) -> None:
        self.app = app
        self.config = config
        self._key = config.api_key.encode() if config.api_key else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = [0]

        async def send_logged(message: Message) -> None:
            if message["type"] == "http.response.start":
                status[0] = message["status"]
            await send(message)

        headers = {k.decode("latin-1").lower(): v for k, v in scope.get("headers", [])}
        failure = self._reject(headers)
        try:
            if failure is not None:
                await failure(scope, receive, send_logged)
            else:
                await self.app(scope, receive, send_logged)
        finally:
            log.info(
                "%s %s %d %.1f ms",
                scope.get("method", "?"),
                scope.get("path", "?"),
                status[0],
                (time.perf_counter() - started) * 1000,
            )

    def _reject(self, headers: dict[str, bytes]) -> Response | None:
        if self.config.loopback_only:
            host = headers.get("host", b"").decode("latin-1")
            name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
            if name and name.lower() not in LOOPBACK_NAMES:
                return JSONResponse(
                    wire.error_body(
                        "This engine only answers requests addressed to localhost.",
                        "invalid_request_error",
                        "bad_host",
                    ),
                    status_code=400,
                )
        if self._key is not None:
            given = headers.get("authorization", b"")
            expected = b"Bearer " + self._key
            if not hmac.compare_digest(given, expected):
                return error_response(
                    EngineAuthError("Missing or wrong API key (send 'Authorization: Bearer KEY').")
                )
        return None
