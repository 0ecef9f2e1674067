"""The engine host's HTTP surface: the OpenAI-compatible API plus Cove's load, unload, plan and
status endpoints, as a Starlette application behind the guards (engine/host/http/guards.py).

Every response is JSON (errors in OpenAI's shape) or an SSE stream (engine/host/http/streaming.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp

from engine.client.protocol import ModelInfo, error_body
from engine.errors import EngineError, InvalidRequest
from engine.generation.reasoning import split_thinking
from engine.host.http.cors import Cors
from engine.host.http.endpoint import Handler, endpoint, in_daemon_thread
from engine.host.http.guards import (
    Guard,
    HostConfig,
    error_status,
    local_caller,
    read_json,
)
from engine.host.http.streaming import collect, event_stream, generation, sse, watch_disconnect
from engine.host.models.residents import Resident
from engine.host.protocols import anthropic_routes as anthropic
from engine.host.protocols import anthropic_wire, echo, ollama_wire, wire
from engine.host.protocols import ollama_routes as ollama
from engine.host.protocols import responses_routes as responses
from engine.host.protocols.completion_batch import whole_completions
from engine.host.protocols.tool_stream import Held, hold_calls, split_calls
from engine.host.state import HostState
from engine.images import require_vision
from engine.types import Chunk

log = logging.getLogger("cove.host")


def make_app(state: HostState, config: HostConfig) -> ASGIApp:
    routes = [
        Route("/v1/models", endpoint(state, config, _models), methods=["GET"]),
        Route("/v1/chat/completions", endpoint(state, config, _chat), methods=["POST"]),
        Route("/v1/completions", endpoint(state, config, _completions), methods=["POST"]),
        Route("/v1/embeddings", endpoint(state, config, _embeddings), methods=["POST"]),
        Route("/v1/rerank", endpoint(state, config, _rerank), methods=["POST"]),
        Route("/rerank", endpoint(state, config, _rerank), methods=["POST"]),
        Route(
            "/v1/messages",
            endpoint(state, config, anthropic.messages, anthropic.anthropic_error),
            methods=["POST"],
        ),
        Route(
            "/v1/messages/count_tokens",
            endpoint(state, config, anthropic.count_tokens, anthropic.anthropic_error),
            methods=["POST"],
        ),
        Route("/v1/responses", endpoint(state, config, responses.create), methods=["POST"]),
        *_tokenizer_routes(state, config),
        Route("/v1/responses/{rid}", endpoint(state, config, responses.fetch), methods=["GET"]),
        *_ollama_routes(state, config),
        Route("/cove/v1/status", endpoint(state, config, _status), methods=["GET"]),
        Route("/cove/v1/load", endpoint(state, config, _load), methods=["POST"]),
        Route("/cove/v1/unload", endpoint(state, config, _unload), methods=["POST"]),
        Route("/cove/v1/plan", endpoint(state, config, _plan), methods=["POST"]),
        Route("/cove/v1/hardware", endpoint(state, config, _hardware), methods=["GET"]),
        Route("/cove/v1/background", endpoint(state, config, _background), methods=["POST"]),
        Route(
            "/cove/v1/state",
            endpoint(state, config, _saved_state),
            methods=["GET", "POST", "DELETE"],
        ),
    ]
    app = Starlette(routes=routes, exception_handlers={404: _not_found, 405: _not_allowed})
    return Cors(Guard(app, config), config)


def _tokenizer_routes(state: HostState, config: HostConfig) -> list[Route]:
    from engine.host.protocols import tokenizer_routes as t

    return [
        Route("/tokenizer_info", endpoint(state, config, t.tokenizer_info), methods=["GET"]),
        Route("/tokenize", endpoint(state, config, t.tokenize), methods=["POST"]),
        Route("/detokenize", endpoint(state, config, t.detokenize), methods=["POST"]),
    ]


def _ollama_routes(state: HostState, config: HostConfig) -> list[Route]:
    o = ollama
    table: list[tuple[str, Handler[HostState], str]] = [
        ("/api/chat", o.chat, "POST"),
        ("/api/generate", o.generate, "POST"),
        ("/api/tags", o.tags, "GET"),
        ("/api/ps", o.ps, "GET"),
        ("/api/show", o.show, "POST"),
        ("/api/embed", o.embed, "POST"),
        ("/api/embeddings", o.embed, "POST"),
        ("/api/version", o.version, "GET"),
        ("/api/pull", o.pull, "POST"),
        ("/api/delete", o.delete, "DELETE"),
    ]
    return [
        Route(path, endpoint(state, config, fn, o.ollama_error), methods=[m])
        for path, fn, m in table
    ]


async def _not_found(request: Request, exc: Exception) -> Response:
    """In the shape of the protocol the path belongs to, so that its clients can read it."""
    path = request.url.path
    message = f"No such endpoint: {path}"
    if path.startswith("/api/"):
        return JSONResponse(ollama_wire.error(message), status_code=404)
    if path.startswith("/v1/messages"):
        return JSONResponse(anthropic_wire.error_body(message, "not_found_error"), status_code=404)
    return JSONResponse(error_body(message, "not_found_error", "not_found"), status_code=404)


async def _not_allowed(request: Request, exc: Exception) -> Response:
    return JSONResponse(
        error_body(
            f"{request.method} is not allowed on {request.url.path}",
            "invalid_request_error",
            "method_not_allowed",
        ),
        status_code=405,
    )


# -- endpoints ---------------------------------------------------------------------------------


async def _models(request: Request, state: HostState, config: HostConfig) -> Response:
    """Every installed chat model, the loaded ones first (a request naming any of them is
    answered by it, loaded on demand), what ``--alias`` answers, and the embedding model."""
    from engine.library.installed import scan_models

    data = []
    listed: set[Path] = set()
    for resident in state.residents:
        created = int(resident.path.stat().st_mtime)
        data.append({**_model_card(resident.id, "chat", created), "loaded": True})
        listed.add(resident.path)
    try:
        entries = await asyncio.to_thread(scan_models)
    except OSError:
        entries = []
    for entry in entries:
        if entry.path.resolve() in listed:
            continue
        name = "starter" if entry.source == "starter" else entry.path.stem
        created = int(entry.path.stat().st_mtime)
        data.append({**_model_card(name, "chat", created), "loaded": False})
    for pattern, target in state.names.aliases:  # what --alias answers, and with which model
        data.append({**_model_card(pattern, "chat", wire.now()), "alias_of": target})
    if state.embedder is not None:
        card = _model_card(state.embedder.name, "embedding", wire.now())
        data.append({**card, "loaded": True})
    return JSONResponse({"object": "list", "data": data})


def _model_card(model_id: str, kind: str, created: int) -> dict[str, Any]:
    return ModelInfo(model_id, kind, created, "cove").to_dict()


async def _chat(request: Request, state: HostState, config: HostConfig) -> Response:
    body = await read_json(request, config.max_body)
    # Images are decoded and checked off the event loop.
    req = await asyncio.to_thread(wire.parse_chat, body, local_caller(request))
    resident = await state.chat_for(req.model)
    state.keep_alive_from(resident, body, "ttl")
    require_vision(resident.model, req.messages)
    if state.log_prompts:
        log.info("chat prompt: %s", json.dumps([m.content for m in req.messages])[:2000])
    cancel = threading.Event()
    cid, created, name = wire.completion_id("chatcmpl"), wire.now(), resident.id

    def piece(text: str, first: bool) -> dict[str, Any]:
        delta = {"role": "assistant", "content": text} if first else {"content": text}
        return wire.chat_delta(cid, name, created, delta)

    if req.tools:
        ids = (cid, name, created)
        return await _chat_with_tools(request, state, req, resident, cancel, ids, piece)
    return await generation(
        request,
        state.replies_of(resident),
        lambda: split_thinking(resident.model.chat(req.messages, req.params, cancel)),
        cancel,
        stream=req.stream,
        piece=piece,
        last=lambda final: wire.chat_final_chunk(cid, name, created, final),
        whole=lambda text, final: wire.chat_response(cid, name, created, text, final),
        logprobs=wire.chat_logprobs if req.params.logprobs is not None else None,
        thought=lambda text, first: wire.chat_thought(cid, name, created, text, first),
    )


async def _chat_with_tools(
    request: Request,
    state: HostState,
    req: wire.ChatRequest,
    resident: Resident,
    cancel: threading.Event,
    ids: tuple[str, str, int],
    content_piece: Callable[[str, bool], dict[str, Any]],
) -> Response:
    """A chat with tools offered: the reply's calls parsed out of its text, validated against
    their schemas, and returned as ``tool_calls`` (streamed: held back from the content).
    ``ids``: the completion's id, model name and creation time; ``content_piece``: the chat's
    own content delta."""
    cid, name, created = ids
    parallel = req.tool_choice.parallel
    model, replies = resident.model, state.replies_of(resident)
    if not req.stream:
        text, final = await collect(
            request,
            replies,
            lambda: split_thinking(model.chat(req.messages, req.params, cancel)),
            cancel,
        )
        content, calls = split_calls(text, req.tools, parallel)
        body = wire.chat_response(cid, name, created, content, final, calls)
        if req.params.logprobs is not None:
            body["choices"][0]["logprobs"] = wire.chat_logprobs(final.logprobs)
        return JSONResponse(body)
    held = Held()
    started = [False]  # whether a content piece (with the role) went out before the calls

    def piece(text: str, first: bool) -> dict[str, Any]:
        started[0] = True
        return content_piece(text, first)

    def last(final: Chunk) -> list[dict[str, Any]]:
        events = []
        if held.calls:
            events.append(wire.chat_call_delta(cid, name, created, held.calls, not started[0]))
        events.append(wire.chat_final_chunk(cid, name, created, final, held.calls))
        return events

    return await generation(
        request,
        replies,
        lambda: hold_calls(
            split_thinking(model.chat(req.messages, req.params, cancel)), req.tools, parallel, held
        ),
        cancel,
        stream=True,
        piece=piece,
        last=last,
        whole=lambda text, final: wire.chat_response(cid, name, created, text, final),
        logprobs=wire.chat_logprobs if req.params.logprobs is not None else None,
        thought=lambda text, first: wire.chat_thought(cid, name, created, text, first),
    )


async def _completions(request: Request, state: HostState, config: HostConfig) -> Response:
    body = await read_json(request, config.max_body)
    req = wire.parse_completion(body)
    resident = await state.chat_for(req.model)
    state.keep_alive_from(resident, body, "ttl")
    if state.log_prompts:
        log.info("completion prompt: %s", json.dumps(req.prompts)[:2000])
    cancel = threading.Event()
    cid, created, name = wire.completion_id("cmpl"), wire.now(), resident.id
    if not req.plain:
        ids = (cid, name, created)
        return await whole_completions(request, state, req, resident, ids)
    prompt = req.prompts[0]
    return await generation(
        request,
        state.replies_of(resident),
        lambda: echo.listing_end(resident.model.complete(prompt, req.params, cancel)),
        cancel,
        stream=req.stream,
        piece=lambda text, _first: wire.text_chunk(cid, name, created, text),
        last=lambda final: wire.text_final(cid, name, created, "", final),
        whole=lambda text, final: wire.text_final(cid, name, created, text, final),
        logprobs=wire.completion_logprobs if req.params.logprobs is not None else None,
    )


async def _embeddings(request: Request, state: HostState, config: HostConfig) -> Response:
    req = wire.parse_embeddings(await read_json(request, config.max_body))
    model = await state.embedder_for(req.model)
    async with state.embed_turn():

        def run() -> tuple[list[list[float]], int]:
            vectors = model.embed(req.inputs)
            return vectors, sum(model.count_tokens(t) for t in req.inputs)

        vectors, tokens = await asyncio.to_thread(run)
    return JSONResponse(wire.embeddings_response(model.name, vectors, tokens, req.base64))


async def _rerank(request: Request, state: HostState, config: HostConfig) -> Response:
    """Documents ordered by a cross-encoder's relevance to a query (llama-server's and Jina's
    shape)."""
    from engine.host.models.encoders import parse_rerank, rerank_response

    req = parse_rerank(await read_json(request, config.max_body))
    model = await state.reranker_for(req.model)
    async with state.embed_turn():
        scores = await asyncio.to_thread(model.score, req.query, list(req.documents))
    return JSONResponse(rerank_response(model.name, req, scores))


async def _status(request: Request, state: HostState, config: HostConfig) -> Response:
    return JSONResponse(state.status().to_dict())


async def _background(request: Request, state: HostState, config: HostConfig) -> Response:
    """Turn measuring in the background on or off (``{"measuring": false}``), kept in the data
    folder for every later start; turning it off stops what runs now. Answers the status."""
    body = await read_json(request, config.max_body)
    on = body.get("measuring") if isinstance(body, dict) else None
    if not isinstance(on, bool):
        raise InvalidRequest('The body must be {"measuring": true} or {"measuring": false}.')
    if on and not state.background.allowed:
        raise InvalidRequest(
            "Background measuring is off for this run (--no-background-measuring); start the "
            "engine without it to turn it on."
        )
    await asyncio.to_thread(state.background.set_enabled, on)
    return JSONResponse(state.status().to_dict())


async def _plan(request: Request, state: HostState, config: HostConfig) -> Response:
    model, ctx, _stream = wire.parse_load(await read_json(request, config.max_body))
    plan = await asyncio.to_thread(state.plan, model, ctx)
    return JSONResponse(plan.to_dict())


async def _hardware(request: Request, state: HostState, config: HostConfig) -> Response:
    """What the probe found, what Cove chose and why: probed here, in the process that owns the
    runtimes, so that the app never loads one to find out."""

    def run() -> dict[str, object]:
        report = state.hardware_report()
        data = report.to_dict()
        data["summary"] = report.summary_lines()
        data["best_device"] = report.best_device()
        return data

    return JSONResponse(await in_daemon_thread(run))


async def _saved_state(request: Request, state: HostState, config: HostConfig) -> Response:
    """Conversations' saved model state: how much there is (GET); a new size limit (POST,
    ``{"limit_bytes": N}``); forget it all, or one conversation's (DELETE,
    ``?conversation=ID``)."""
    states = state.states
    if states is None:
        return JSONResponse({"enabled": False, "bytes": 0, "limit_bytes": 0, "removed": 0})
    removed = 0
    if request.method == "POST":
        body = await read_json(request, config.max_body)
        limit = body.get("limit_bytes") if isinstance(body, dict) else None
        if not isinstance(limit, int) or isinstance(limit, bool) or limit < 0:
            raise InvalidRequest("'limit_bytes' must be a whole number of bytes, 0 or more.")
        await asyncio.to_thread(states.set_limit, limit)
    if request.method == "DELETE":
        removed = await asyncio.to_thread(
            states.forget, request.query_params.get("conversation") or None
        )
    conversation = request.query_params.get("conversation") or None
    total = await asyncio.to_thread(states.total_bytes)
    snapshots = await asyncio.to_thread(states.count, conversation)
    return JSONResponse(
        {
            "enabled": True,
            "bytes": total,
            "limit_bytes": states.limit_bytes,
            "snapshots": snapshots,
            "removed": removed,
        }
    )


async def _unload(request: Request, state: HostState, config: HostConfig) -> Response:
    """The default chat model, or the one the body names (``{"model": NAME}``)."""
    raw = await request.body()
    try:
        body = json.loads(raw) if raw.strip() else {}
    except ValueError:
        raise InvalidRequest('The body must be JSON: {} or {"model": NAME}.') from None
    name = body.get("model") if isinstance(body, dict) else None
    if name is not None and not isinstance(name, str):
        raise InvalidRequest("'model' must be a model's name.")
    unloaded = await state.unload_named(name or None)
    return JSONResponse({"unloaded": unloaded, "status": state.status().to_dict()})


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
        from engine.documents.embeddings import is_embedding_folder

        path = Path(model).expanduser()
        if is_embedding_folder(path):  # the embedding slot; the chat model stays resident
            async with state.embed_turn():
                await asyncio.to_thread(state.load_embedder, path)
            progress(1.0)
            return state.status().to_dict()
        async with state.turn_alone():
            await asyncio.to_thread(state.load_chat, model, ctx, progress)
        return state.status().to_dict()

    if not stream:
        task = asyncio.create_task(run_load())
        watcher = asyncio.create_task(watch_disconnect(request.receive, cancel))
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
                    yield sse({"progress": round(getter.result(), 4)})
                else:
                    getter.cancel()
                    yield b": keep-alive\n\n"
            while not progress_q.empty():
                yield sse({"progress": round(progress_q.get_nowait(), 4)})
            try:
                yield sse({"status": task.result()})
            except EngineError as exc:
                yield sse(error_status(exc)[1])
            yield b"data: [DONE]\n\n"
        finally:
            if not task.done():
                cancel.set()
                with contextlib.suppress(Exception):
                    await task

    return await event_stream(events(), cancel)
