"""Completions answered whole: a list of prompts, or prompts echoed (scored token by token).
Each prompt is a generation of its own, in its turn, up to as many at once as the model has
sequences: on a model that answers several replies at once their tokens go through the same
steps (engine/backends/llama/parallel.py); on one that answers one at a time they run one after
another. One choice each, in the order of the prompts.

Asked for as a stream, the same answer is sent as server-sent events once it is whole: one event
a choice (its ``index``, text and log-probabilities, its ``finish_reason``), the usage on the
last, then ``[DONE]``, as OpenAI's legacy completions stream several choices. An error before
then is a plain error response with its status code."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Iterator
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from engine.host.http.streaming import drain, event_stream, sse, watch_disconnect
from engine.host.models.residents import Resident
from engine.host.protocols import echo, wire
from engine.host.state import HostState
from engine.types import Chunk


async def whole_completions(
    request: Request,
    state: HostState,
    req: wire.CompletionRequest,
    resident: Resident,
    ids: tuple[str, str, int],
) -> Response:
    """``ids``: the completion's id, model name and creation time."""
    cid, name, created = ids
    model, replies = resident.model, state.replies_of(resident)
    # One cancel event a prompt: a generation that ends sets its own
    # (engine/host/models/replies.py).
    cancels = [threading.Event() for _ in req.prompts]
    gate = asyncio.Semaphore(max(1, model.capabilities.sequences))

    def stop_all() -> None:
        for event in cancels:
            event.set()

    async def one(prompt: echo.Prompt, cancel: threading.Event) -> tuple[str, Chunk]:
        def produce() -> Iterator[Chunk]:
            return echo.listing_end(model.complete(prompt, req.params, cancel))

        async with gate:
            try:
                return await drain(replies, produce, cancel)
            except BaseException:
                stop_all()  # the others stop: the answer is this error
                raise

    async def watch() -> None:
        await watch_disconnect(request.receive, threading.Event())
        stop_all()

    watcher = asyncio.create_task(watch())
    try:
        runs = (one(p, c) for p, c in zip(req.prompts, cancels, strict=True))
        results = await asyncio.gather(*runs, return_exceptions=True)
    finally:
        watcher.cancel()
    for result in results:
        if isinstance(result, BaseException):
            raise result
    done: list[tuple[str, Chunk]] = [r for r in results if not isinstance(r, BaseException)]
    logprobs = req.params.logprobs is not None
    choices: list[dict[str, Any]] = [
        echo.choice(
            i, prompt, text, final, wire.openai_finish(final), echo=req.echo, logprobs=logprobs
        )
        for i, (prompt, (text, final)) in enumerate(zip(req.prompts, done, strict=True))
    ]
    finals = [final for _text, final in done]
    body = wire.completions_response(cid, name, created, choices, finals)
    if not req.stream:
        return JSONResponse(body)
    return await event_stream(_events(body), threading.Event())


async def _events(body: dict[str, Any]) -> AsyncIterator[bytes]:
    head = {k: body[k] for k in ("id", "object", "created", "model")}
    choices = body["choices"]
    for i, choice in enumerate(choices):
        event: dict[str, Any] = {**head, "choices": [choice]}
        if i == len(choices) - 1:
            event["usage"], event["cove"] = body["usage"], body["cove"]
        yield sse(event)
    yield b"data: [DONE]\n\n"
