"""Ollama's API on the engine host: ``/api/chat`` and ``/api/generate`` (NDJSON streams by
default, ``format`` JSON or a schema, ``options``, tools), ``/api/tags``, ``/api/ps``,
``/api/show``, ``/api/embed``, ``/api/embeddings`` and ``/api/version``, on the same model,
queue and guards as the OpenAI routes; errors as Ollama's ``{"error": ...}``.

A model is named as Cove lists it; the ``name:latest`` form Ollama's clients add is accepted."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

import engine
from engine.errors import EngineError, ModelInUse, ModelNotFound
from engine.formats.thinking_switch import switches_thinking
from engine.generation.reasoning import split_thinking
from engine.host.http.guards import HostConfig, busy_headers, error_status, read_json
from engine.host.http.streaming import EventStream, collect, event_stream
from engine.host.models.residents import Resident
from engine.host.protocols import ollama_wire as ow
from engine.host.protocols.tool_stream import Held, hold_calls, split_calls
from engine.host.state import HostState
from engine.images import require_vision
from engine.types import Chunk

log = logging.getLogger("cove.host")


def ollama_error(exc: EngineError, retry_after_s: int = 2) -> JSONResponse:
    """An engine error in Ollama's shape (``{"error": message}``) with its HTTP status."""
    status, _body = error_status(exc)
    headers = busy_headers(status, retry_after_s)
    return JSONResponse(ow.error(str(exc)), status_code=status, headers=headers)


async def resolve(state: HostState, name: str) -> Resident:
    """The chat model by any of its names, with or without Ollama's ``:latest`` (loaded now
    when it is installed but not resident)."""
    for candidate in dict.fromkeys((name, name.removesuffix(":latest"))):
        with contextlib.suppress(ModelNotFound):
            return await state.chat_for(candidate)
    loaded = state.chat.id if state.chat is not None else None
    raise ModelNotFound(
        f"model '{name}' not found"
        + (f"; this server runs '{loaded}'" if loaded else "; no model is loaded")
        + " (GET /api/tags lists the models)"
    )


async def chat(request: Request, state: HostState, config: HostConfig) -> Response:
    body = await read_json(request, config.max_body)
    req = await asyncio.to_thread(ow.parse_chat, body)
    run = lambda m, p, c: m.chat(req.messages, p, c)  # noqa: E731
    return await _reply(request, state, req, body, run, chat=True)


async def generate(request: Request, state: HostState, config: HostConfig) -> Response:
    body = await read_json(request, config.max_body)
    req = await asyncio.to_thread(ow.parse_generate, body)
    if req.raw_prompt is not None:
        prompt = req.raw_prompt
        run = lambda m, p, c: m.complete(prompt, p, c)  # noqa: E731
        return await _reply(request, state, req, body, run, chat=False)
    run = lambda m, p, c: m.chat(req.messages, p, c)  # noqa: E731
    return await _reply(request, state, req, body, run, chat=False)


async def _reply(
    request: Request,
    state: HostState,
    req: ow.OllamaRequest,
    body: object,
    run: Callable[[Any, Any, threading.Event], Any],
    *,
    chat: bool,
) -> Response:
    started = time.perf_counter()
    if req.load_only and _unloads(body):  # an empty request with keep_alive 0: unload it
        name = req.model.removesuffix(":latest")
        empty = ow.chat_line(name) if chat else ow.generate_line(name)
        unloaded = await state.unload_named(name) or await state.unload_named(req.model)
        del unloaded  # Ollama answers the same whether it was loaded or not
        return JSONResponse({**ow.done(empty, Chunk(finish_reason="stop"), started),
                             "done_reason": "unload"})  # fmt: skip
    resident = await resolve(state, req.model)
    state.keep_alive_from(resident, body, "keep_alive")
    require_vision(resident.model, req.messages)
    name, cancel = resident.id, threading.Event()
    replies = state.replies_of(resident)
    empty = ow.chat_line(name) if chat else ow.generate_line(name)
    if req.load_only:  # Ollama's clients load a model with an empty request
        return JSONResponse({**ow.done(empty, Chunk(finish_reason="stop"), started),
                             "done_reason": "load"})  # fmt: skip

    def produce() -> Any:
        return split_thinking(run(resident.model, req.params, cancel))

    def line(text: str = "", thinking: str = "", calls: Any = ()) -> dict[str, Any]:
        if chat:
            return ow.chat_line(name, text, thinking, calls)
        return ow.generate_line(name, text, thinking)

    if not req.stream:
        text, final = await collect(request, replies, produce, cancel)
        calls: Any = ()
        if req.tools:
            text, calls = split_calls(text, req.tools, True)
        return JSONResponse(ow.done(line(text, final.reasoning, calls), final, started))
    held = Held()
    source = (lambda: hold_calls(produce(), req.tools, True, held)) if req.tools else produce

    async def lines() -> AsyncIterator[bytes]:
        async with replies.turn(), contextlib.aclosing(replies.run_stream(source, cancel)) as items:
            async for item in items:
                if isinstance(item, str):
                    continue  # NDJSON has no comment line; the client waits
                if not item.is_terminal:
                    yield _ndjson(line(item.text, item.reasoning))
                elif item.finish_reason == "error":
                    yield _ndjson(ow.error(item.error or "generation failed"))
                    return
                else:
                    if held.calls:
                        yield _ndjson(line(calls=held.calls))
                    yield _ndjson(ow.done(line(), item, started))
                    return

    return await event_stream(lines(), cancel, _Ndjson)


def _unloads(body: object) -> bool:
    from engine.host.models.residents import keep_alive_seconds

    if not isinstance(body, dict) or body.get("keep_alive") is None:
        return False
    return keep_alive_seconds(body["keep_alive"]) == 0


def _ndjson(data: object) -> bytes:
    return json.dumps(data, separators=(",", ":")).encode() + b"\n"


class _Ndjson(EventStream):
    """Newline-delimited JSON, with the same connection handling as the SSE streams."""

    def __init__(self, first: bytes, rest: AsyncIterator[bytes], cancel: threading.Event) -> None:
        super().__init__(first, rest, cancel)
        self.raw_headers = [
            (b"content-type", b"application/x-ndjson"),
            (b"cache-control", b"no-cache"),
        ]


# -- models ----------------------------------------------------------------------------------------


async def version(request: Request, state: HostState, config: HostConfig) -> Response:
    return JSONResponse({"version": engine.__version__})


async def tags(request: Request, state: HostState, config: HostConfig) -> Response:
    from engine.library.installed import scan_models

    entries = await asyncio.to_thread(scan_models)
    models = []
    listed = set()
    for resident in state.residents:
        models.append(_card(resident.id, _size(resident), resident.backend))
        listed.add(resident.path)
    for entry in entries:
        if entry.path.resolve() in listed:
            continue
        # A name a client can send: no spaces (the starter by its name, files by theirs).
        name = "starter" if entry.source == "starter" else entry.path.name
        models.append(_card(name, entry.size_bytes, entry.kind, entry.quantization))
    return JSONResponse({"models": models})


async def ps(request: Request, state: HostState, config: HostConfig) -> Response:
    """The models in memory, with their size, context and when they are unloaded if idle."""
    models = []
    for resident in state.residents:
        card = _card(resident.id, _size(resident), resident.backend)
        plan = resident.plan
        expires = resident.expires_at
        card.update(
            size=plan.total_bytes,
            size_vram=plan.total_bytes if plan.gpu_layers else 0,
            context_length=plan.n_ctx,
            expires_at=ow.timestamp(expires) if expires is not None else FOREVER,
        )
        models.append(card)
    return JSONResponse({"models": models})


# The expiry shown for a model kept until told.
FOREVER = "9999-12-31T23:59:59Z"


def _size(resident: Resident) -> int:
    path = resident.path
    if path.is_dir():
        return sum(f.stat().st_size for f in path.iterdir() if f.is_file())
    return path.stat().st_size


async def show(request: Request, state: HostState, config: HostConfig) -> Response:
    """A model's details; one that is installed but not in memory is read from its file, not
    loaded (front ends ask this of every model they list)."""
    body = await read_json(request, config.max_body)
    name = ow.model_name(body if isinstance(body, dict) else {})
    resident = None
    for candidate in dict.fromkeys((name, name.removesuffix(":latest"))):
        with contextlib.suppress(ModelNotFound):
            resident = state.resolve_chat(candidate)
            break
    if resident is None:
        return JSONResponse(await asyncio.to_thread(_show_installed, name))
    plan = resident.plan
    template = getattr(getattr(resident.model, "template", None), "source", "")
    return JSONResponse(
        {
            "modelfile": f"FROM {resident.path}",
            "parameters": "",
            "template": template,
            "details": _details(resident.backend),
            "model_info": {"general.context_length": plan.n_ctx},
            "capabilities": _capabilities(template),
        }
    )


def _capabilities(template: str | None) -> list[str]:
    """What Ollama's clients read to offer a model's features: ``thinking`` where its chat
    template can turn the thinking off (``think``)."""
    return ["completion", "tools", *(["thinking"] if switches_thinking(template) else [])]


def _show_installed(name: str) -> dict[str, Any]:
    from engine.formats.gguf import read_gguf
    from engine.library.names import resolve_model

    path = None
    for candidate in dict.fromkeys((name, name.removesuffix(":latest"))):
        with contextlib.suppress(ModelNotFound, OSError):
            path = resolve_model(candidate)
            break
    if path is None:
        raise ModelNotFound(f"model '{name}' not found (GET /api/tags lists the models)")
    if path.suffix.lower() != ".gguf":
        return {"modelfile": f"FROM {path}", "parameters": "", "template": "",
                "details": _details("onnx"), "model_info": {},
                "capabilities": ["completion"]}  # fmt: skip
    info = read_gguf(path)
    return {
        "modelfile": f"FROM {path}",
        "parameters": "",
        "template": info.chat_template or "",
        "details": _details("gguf"),
        "model_info": {"general.context_length": info.context_length},
        "capabilities": _capabilities(info.chat_template),
    }


def _card(name: str, size: int, fmt: str, quant: str = "") -> dict[str, Any]:
    return {
        "name": name,
        "model": name,
        "modified_at": ow.now(),
        "size": size,
        "digest": "",
        "details": _details(fmt, quant),
    }


def _details(fmt: str, quant: str = "") -> dict[str, Any]:
    kind = "gguf" if fmt.lower() in ("gguf", "llama.cpp") else fmt.lower()
    return {"format": kind, "family": "", "parameter_size": "", "quantization_level": quant}


async def embed(request: Request, state: HostState, config: HostConfig) -> Response:
    body = await read_json(request, config.max_body)
    data = body if isinstance(body, dict) else {}
    inputs = data.get("input", data.get("prompt"))
    texts = [inputs] if isinstance(inputs, str) else inputs
    if not isinstance(texts, list) or not texts or not all(isinstance(t, str) for t in texts):
        raise ow.InvalidRequest("input must be a string or a list of strings")
    name = data.get("model")
    model = await state.embedder_for(name if isinstance(name, str) and name else None)
    async with state.embed_turn():
        vectors = await asyncio.to_thread(model.embed, texts)
    if request.url.path.endswith("/embeddings"):  # the older route: one prompt, one vector
        return JSONResponse({"embedding": vectors[0]})
    return JSONResponse({"model": model.name, "embeddings": vectors})


# -- the library -----------------------------------------------------------------------------------

PULL_REPORT_S = 0.25  # progress lines at most this often


async def pull(request: Request, state: HostState, config: HostConfig) -> Response:
    """Cove's own download (a catalog id, ``owner/repo`` or ``owner/repo/FILE``; a tag other
    than ``latest`` is the quantisation), reported as Ollama's progress lines."""
    body = await read_json(request, config.max_body)
    data = body if isinstance(body, dict) else {}
    name = ow.model_name(data)
    stream = data.get("stream", True) is not False
    base, _, tag = name.partition(":")
    quant = tag if tag and tag != "latest" else None
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()

    def put(line: dict[str, Any] | None) -> None:
        loop.call_soon_threadsafe(queue.put_nowait, line)

    threading.Thread(target=_pull, args=(base, quant, put), name="cove-pull", daemon=True).start()

    async def lines() -> AsyncIterator[dict[str, Any]]:
        while (line := await queue.get()) is not None:
            yield line

    if not stream:
        last: dict[str, Any] = {}
        async for line in lines():
            last = line
        if "error" in last:
            return JSONResponse(last, status_code=404 if last.get("missing") else 500)
        return JSONResponse(last)

    async def encoded() -> AsyncIterator[bytes]:
        async for line in lines():
            yield _ndjson({k: v for k, v in line.items() if k != "missing"})

    return await event_stream(encoded(), threading.Event(), _Ndjson)


def _pull(name: str, quant: str | None, put: Callable[[dict[str, Any] | None], None]) -> None:
    from engine.advice.choose import plan_pull
    from engine.errors import HubNotFound
    from engine.hub.download import FINAL, DownloadManager

    manager = DownloadManager()
    try:
        put({"status": "pulling manifest"})
        plan = plan_pull(manager.hub, name, quant)
        for request in plan.requests:
            download = manager.enqueue(request)
            while True:
                progress = download.wait(PULL_REPORT_S)
                put({"status": f"pulling {progress.name}", "digest": progress.name,
                     "total": progress.total_bytes, "completed": progress.done_bytes})  # fmt: skip
                if progress.status in FINAL:
                    break
            if progress.status != "done":
                put({"error": progress.error or f"the download ended {progress.status}"})
                return
        put({"status": "verifying sha256 digest"})
        put({"status": "writing manifest"})
        put({"status": "success"})
    except HubNotFound as exc:
        put({"error": str(exc), "missing": True})
    except EngineError as exc:
        put({"error": str(exc)})
    except Exception as exc:  # the thread boundary: the client hears why
        log.exception("pull failed")
        put({"error": f"{type(exc).__name__}: {exc}"})
    finally:
        manager.close()
        put(None)


async def delete(request: Request, state: HostState, config: HostConfig) -> Response:
    """``cove rm``: an installed model by a name ``/api/tags`` lists (the loaded one refused)."""
    from engine.library.installed import remove_model

    body = await read_json(request, config.max_body)
    name = ow.model_name(body if isinstance(body, dict) else {}).removesuffix(":latest")
    resident = state.chat
    if resident is not None and name in resident.aliases | {resident.path.name}:
        return JSONResponse(ow.error(f"model '{name}' is loaded; unload it first"), status_code=409)
    try:
        await asyncio.to_thread(remove_model, name)
    except ModelNotFound as exc:
        return JSONResponse(ow.error(f"model '{name}' not found: {exc}"), status_code=404)
    except ModelInUse as exc:
        return JSONResponse(ow.error(str(exc)), status_code=409)
    return JSONResponse({})
