"""Anthropic's Messages API on the engine host: ``POST /v1/messages`` (whole or streamed with
Anthropic's event sequence) and ``POST /v1/messages/count_tokens``, on the same model, queue
and guards as the OpenAI routes; errors in Anthropic's shape."""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from collections.abc import AsyncIterator, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from engine.client.protocol import error_class
from engine.errors import EngineError, GenerationError
from engine.generation.reasoning import split_thinking
from engine.host.http.guards import HostConfig, busy_headers, error_status, read_json
from engine.host.http.streaming import collect, event_stream
from engine.host.protocols import anthropic_wire as aw
from engine.host.protocols.tool_stream import Held, hold_calls, split_calls
from engine.host.state import HostState, ModelReplies
from engine.images import require_vision
from engine.types import Chunk


def anthropic_error(exc: EngineError, retry_after_s: int = 2) -> JSONResponse:
    status, _body = error_status(exc)
    headers = busy_headers(status, retry_after_s)
    body = aw.error_body(str(exc), aw.error_kind(exc, status))
    return JSONResponse(body, status_code=status, headers=headers)


async def messages(request: Request, state: HostState, config: HostConfig) -> Response:
    req = await asyncio.to_thread(aw.parse_messages, await read_json(request, config.max_body))
    resident = await state.chat_for(req.model)
    require_vision(resident.model, req.messages)
    cancel = threading.Event()
    mid, name = aw.message_id(), resident.id
    parallel = req.choice.parallel

    def produce() -> Any:
        return split_thinking(resident.model.chat(req.messages, req.params, cancel))

    if not req.stream:
        text, final = await collect(request, state.replies_of(resident), produce, cancel)
        content, calls = split_calls(text, req.tools, parallel) if req.tools else (text, ())
        return JSONResponse(aw.message(mid, name, content, final, calls))
    held = Held()
    source = (lambda: hold_calls(produce(), req.tools, parallel, held)) if req.tools else produce
    return await _stream(state.replies_of(resident), source, cancel, mid, name, held)


async def count_tokens(request: Request, state: HostState, config: HostConfig) -> Response:
    req = aw.parse_messages(await read_json(request, config.max_body), counting=True)
    model = (await state.chat_for(req.model)).model

    def count() -> int:
        return model.count_tokens(req.messages, req.tools)

    return JSONResponse({"input_tokens": await asyncio.to_thread(count)})


async def _stream(
    replies: ModelReplies,
    produce: Callable[[], Any],
    cancel: threading.Event,
    mid: str,
    model: str,
    held: Held,
) -> Response:
    async def events() -> AsyncIterator[bytes]:
        async with (
            replies.turn(),
            contextlib.aclosing(replies.run_stream(produce, cancel)) as items,
        ):
            yield aw.event(
                "message_start",
                {
                    "message": {
                        "id": mid,
                        "type": "message",
                        "role": "assistant",
                        "model": model,
                        "content": [],
                        "stop_reason": None,
                        "stop_sequence": None,
                        "usage": {"input_tokens": 0, "output_tokens": 0},
                    }
                },
            )
            blocks = _Blocks()
            async for item in items:
                if isinstance(item, str):
                    yield aw.event("ping", {})
                    continue
                if not item.is_terminal:
                    for data in blocks.add(item):
                        yield data
                    continue
                if item.finish_reason == "error":
                    cls = error_class(item.code) or GenerationError
                    exc = cls(item.error or "The engine failed while generating.")
                    yield aw.event(
                        "error", {"error": aw.error_body(str(exc), "api_error")["error"]}
                    )
                    return
                for data in blocks.close():
                    yield data
                for call in held.calls:
                    for data in blocks.tool_use(call):
                        yield data
                yield aw.event(
                    "message_delta",
                    {
                        "delta": {
                            "stop_reason": aw.stop_reason(item, held.calls),
                            "stop_sequence": None,
                        },
                        "usage": aw.usage(item),
                    },
                )
                yield aw.event("message_stop", {})
                return

    return await event_stream(events(), cancel)


class _Blocks:
    """The content blocks of a streamed reply, by index: thinking, then text, then tool uses."""

    def __init__(self) -> None:
        self.index = -1
        self.open: str | None = None

    def _start(self, kind: str, block: dict[str, Any]) -> list[bytes]:
        out = self.close()
        self.index += 1
        self.open = kind
        return [
            *out,
            aw.event("content_block_start", {"index": self.index, "content_block": block}),
        ]

    def close(self) -> list[bytes]:
        if self.open is None:
            return []
        out = []
        if self.open == "thinking":
            delta = {"type": "signature_delta", "signature": ""}
            out.append(aw.event("content_block_delta", {"index": self.index, "delta": delta}))
        out.append(aw.event("content_block_stop", {"index": self.index}))
        self.open = None
        return out

    def add(self, chunk: Chunk) -> list[bytes]:
        out: list[bytes] = []
        if chunk.reasoning:
            if self.open != "thinking":
                out += self._start(
                    "thinking", {"type": "thinking", "thinking": "", "signature": ""}
                )
            delta = {"type": "thinking_delta", "thinking": chunk.reasoning}
            out.append(aw.event("content_block_delta", {"index": self.index, "delta": delta}))
        if chunk.text:
            if self.open != "text":
                out += self._start("text", {"type": "text", "text": ""})
            delta = {"type": "text_delta", "text": chunk.text}
            out.append(aw.event("content_block_delta", {"index": self.index, "delta": delta}))
        return out

    def tool_use(self, call: Any) -> list[bytes]:
        block = {**aw.tool_use_block(call), "input": {}}
        out = self._start("tool_use", block)
        delta = {"type": "input_json_delta", "partial_json": json.dumps(call.arguments)}
        out.append(aw.event("content_block_delta", {"index": self.index, "delta": delta}))
        out += self.close()
        return out
