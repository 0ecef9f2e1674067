"""Streaming plumbing: one generation as an SSE stream (or one JSON body), written as the model
produces it, and cancelled the moment its client disconnects: a task watches the ASGI ``receive``
channel for ``http.disconnect`` and sets the generation's cancel event, which the engine checks per
token and per prompt batch.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import threading
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterator, Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import Receive, Scope, Send

from engine.client.protocol import error_body, error_class
from engine.errors import EngineError, GenerationError
from engine.types import Chunk, ScoredPrompt, TokenLogprob

# Writes a piece's (or a whole reply's) tokens as the API's ``logprobs`` value; the int is the
# character offset of the piece in the reply.
LogprobsBlock = Callable[[Sequence[TokenLogprob], int], Any]


class Replies(Protocol):
    """One model's replies, each in its turn (engine/host/state.py's ``ModelReplies``)."""

    def turn(self) -> AbstractAsyncContextManager[None]: ...

    def run_stream(
        self, produce: Callable[[], Iterator[Chunk]], cancel: threading.Event
    ) -> AsyncGenerator[Chunk | str, None]: ...


async def generation(
    request: Request,
    replies: Replies,
    produce: Callable[[], Iterator[Chunk]],
    cancel: threading.Event,
    *,
    stream: bool,
    piece: Callable[[str, bool], dict[str, Any]],
    last: Callable[[Chunk], dict[str, Any] | list[dict[str, Any]]],
    whole: Callable[[str, Chunk], dict[str, Any]],
    logprobs: LogprobsBlock | None = None,
    thought: Callable[[str, bool], dict[str, Any]] | None = None,
) -> Response:
    """One generation as an SSE stream (``piece`` per text chunk, ``last`` for the terminal one)
    or as one JSON body (``whole``). ``logprobs`` writes the tokens' log-probabilities into the
    choice of each piece (or of the whole body); ``thought`` writes a piece of a reasoning
    model's thinking (dropped without it)."""
    if not stream:
        text, final = await collect(request, replies, produce, cancel)
        body = whole(text, final)
        if logprobs is not None:
            body["choices"][0]["logprobs"] = logprobs(final.logprobs, 0)
        return JSONResponse(body)

    async def events() -> AsyncIterator[bytes]:
        # aclosing: leaving early (a client gone) must finish the generation thread before the
        # turn passes to the next request, or that request finds the model still busy.
        async with (
            replies.turn(),
            contextlib.aclosing(replies.run_stream(produce, cancel)) as items,
        ):
            first = True
            offset = 0
            async for item in items:
                if isinstance(item, str):
                    yield b": keep-alive\n\n"
                elif not item.is_terminal:
                    if item.reasoning and thought is not None:
                        yield sse(thought(item.reasoning, first))
                        first = False
                    if not item.text and not item.logprobs:
                        continue
                    data = piece(item.text, first)
                    if logprobs is not None:
                        data["choices"][0]["logprobs"] = logprobs(item.logprobs, offset)
                    offset += len(item.text)
                    yield sse(data)
                    first = False
                elif item.finish_reason == "error":
                    code = item.code or GenerationError.code
                    yield sse(error_body(item.error or "", "server_error", code))
                    break
                else:
                    ending = last(item)
                    for data in ending if isinstance(ending, list) else [ending]:
                        yield sse(data)
                    break
            yield b"data: [DONE]\n\n"

    return await event_stream(events(), cancel)


def sse(data: object) -> bytes:
    return b"data: " + json.dumps(data, separators=(",", ":")).encode() + b"\n\n"


async def event_stream(
    events: AsyncIterator[bytes],
    cancel: threading.Event,
    response: type[EventStream] | None = None,
) -> Response:
    """Start the stream only once its first bytes exist: an error raised before (the queue is
    full) still gets its proper status code instead of a 200 with an error inside. ``response``:
    the stream's kind (SSE by default)."""
    iterator = aiter(events)
    try:
        first = await anext(iterator)
    except StopAsyncIteration:
        first = b""
    return (response or EventStream)(first, iterator, cancel)


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
        watcher = asyncio.create_task(watch_disconnect(receive, self._cancel))
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


async def watch_disconnect(receive: Receive, cancel: threading.Event) -> None:
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            cancel.set()
            return


async def collect(
    request: Request,
    replies: Replies,
    produce: Callable[[], Iterator[Chunk]],
    cancel: threading.Event,
) -> tuple[str, Chunk]:
    """Run a whole generation for a non-streaming request, still stopping if the client leaves."""
    watcher = asyncio.create_task(watch_disconnect(request.receive, cancel))
    try:
        return await drain(replies, produce, cancel)
    finally:
        watcher.cancel()


async def drain(
    replies: Replies, produce: Callable[[], Iterator[Chunk]], cancel: threading.Event
) -> tuple[str, Chunk]:
    """A whole generation in its turn: its text, and its terminal chunk carrying every token's
    log-probabilities, the thinking and the scored prompt. Raises the error it ended with. The
    caller watches for its client leaving (``cancel``)."""
    parts: list[str] = []
    thought: list[str] = []
    scored: list[TokenLogprob] = []
    prompt: ScoredPrompt | None = None
    final: Chunk | None = None
    async with replies.turn(), contextlib.aclosing(replies.run_stream(produce, cancel)) as items:
        async for item in items:
            if isinstance(item, str):
                continue
            if item.is_terminal:
                final = dataclasses.replace(
                    item,
                    logprobs=(*scored, *item.logprobs),
                    reasoning="".join(thought),
                    scored_prompt=prompt,
                )
                break
            parts.append(item.text)
            thought.append(item.reasoning)
            scored.extend(item.logprobs)
            prompt = item.scored_prompt or prompt
    if final is None:
        final = Chunk(finish_reason="error", error="The stream ended without a result.")
    if final.finish_reason == "error":
        cls = error_class(final.code) or EngineError
        raise cls(final.error or "The engine failed while generating.")
    return "".join(parts), final
