"""OpenAI's Responses API on the engine host: ``POST /v1/responses`` (whole or streamed with its
typed events) and ``GET /v1/responses/{id}``, on the same model, queue and guards as chat
completions. Responses are kept in memory for ``previous_response_id``: the last
``KEEP_RESPONSES``, oldest evicted; an unknown or evicted id is a clear 404."""

from __future__ import annotations

import contextlib
import threading
from collections import OrderedDict
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from engine.errors import GenerationError, ResponseNotFound
from engine.generation.reasoning import split_thinking
from engine.host.http.guards import HostConfig, read_json
from engine.host.http.streaming import collect, event_stream, sse
from engine.host.protocols import responses_wire as rw
from engine.host.protocols.tool_stream import Held, hold_calls, split_calls
from engine.host.state import HostState
from engine.types import ChatMessage, Chunk

KEEP_RESPONSES = 256


@dataclass(frozen=True, slots=True)
class Kept:
    body: dict[str, Any]
    conversation: tuple[ChatMessage, ...]  # every turn up to and including this response's


class ResponseStore:
    def __init__(self, limit: int = KEEP_RESPONSES) -> None:
        self.limit = limit
        self._kept: OrderedDict[str, Kept] = OrderedDict()
        self._lock = threading.Lock()

    def put(self, rid: str, kept: Kept) -> None:
        with self._lock:
            self._kept[rid] = kept
            while len(self._kept) > self.limit:
                self._kept.popitem(last=False)

    def get(self, rid: str) -> Kept:
        with self._lock:
            kept = self._kept.get(rid)
        if kept is None:
            raise ResponseNotFound(
                f"Response with id '{rid}' not found. This server keeps its last {self.limit} "
                "responses in memory, until it stops."
            )
        return kept


STORE = ResponseStore()


async def create(request: Request, state: HostState, config: HostConfig) -> Response:
    body = await read_json(request, config.max_body)
    req = rw.parse(body)
    earlier = STORE.get(req.previous).conversation if req.previous else ()
    turns = [*earlier, *req.input]
    system = [ChatMessage("system", req.instructions)] if req.instructions else []
    messages = [*system, *(m for m in turns if m.role != "system" or not system)]
    resident = await state.chat_for(req.model)
    state.keep_alive_from(resident, body, "ttl")
    cancel = threading.Event()
    replies = state.replies_of(resident)
    rid, mid, created, name = rw.new_id("resp"), rw.new_id("msg"), rw.now(), resident.id
    parallel = req.choice.parallel

    def produce() -> Any:
        return split_thinking(resident.model.chat(messages, req.params, cancel))

    def finish(text: str, final: Chunk, calls: Any) -> dict[str, Any]:
        output = rw.output_items(text, final.reasoning, calls, mid, req.names)
        body = rw.response(rid, name, req, output, final, created)
        reply = ChatMessage("assistant", text, tool_calls=tuple(calls))
        STORE.put(rid, Kept(body, (*turns, reply)))
        return body

    if not req.stream:
        text, final = await collect(request, replies, produce, cancel)
        content, calls = split_calls(text, req.tools, parallel) if req.tools else (text, ())
        return JSONResponse(finish(content, final, calls))
    held = Held()
    source = (lambda: hold_calls(produce(), req.tools, parallel, held)) if req.tools else produce

    async def events() -> AsyncIterator[bytes]:
        seq = _Sequence()
        # The queue's turn first: a full queue is a 429, not a stream cut short.
        async with replies.turn(), contextlib.aclosing(replies.run_stream(source, cancel)) as items:
            yield seq.event(
                "response.created", response=rw.response(rid, name, req, [], None, created)
            )
            yield seq.event("response.in_progress",
                            response=rw.response(rid, name, req, [], None, created))  # fmt: skip
            out = _Output(seq, mid, req.names)
            async for item in items:
                if isinstance(item, str):
                    yield b": keep-alive\n\n"
                    continue
                if not item.is_terminal:
                    for data in out.add(item):
                        yield data
                    continue
                if item.finish_reason == "error":
                    error = {"code": item.code or GenerationError.code, "message": item.error}
                    yield seq.event("error", **error)
                    return
                for data in out.close(held.calls):
                    yield data
                body = finish(out.text, item, held.calls)
                yield seq.event(
                    "response.incomplete"
                    if body["status"] == "incomplete"
                    else "response.completed",
                    response=body,
                )
                return

    return await event_stream(events(), cancel)


async def fetch(request: Request, state: HostState, config: HostConfig) -> Response:
    return JSONResponse(STORE.get(request.path_params["rid"]).body)


class _Sequence:
    """Events numbered from 0, as OpenAI numbers them."""

    def __init__(self) -> None:
        self.n = -1

    def event(self, kind: str, **data: Any) -> bytes:
        self.n += 1
        return (
            b"event: "
            + kind.encode()
            + b"\n"
            + sse({"type": kind, "sequence_number": self.n, **data})
        )


class _Output:
    """The streamed output items: the thinking (as a reasoning item), the message, the calls."""

    def __init__(self, seq: _Sequence, mid: str, names: rw.ToolNames) -> None:
        self.seq, self.mid, self.names = seq, mid, names
        self.index = -1
        self.text = ""
        self.thought = ""
        self.reasoning_id = rw.new_id("rs")
        self.open: str | None = None

    def _item(self, kind: str, item: dict[str, Any]) -> list[bytes]:
        out = self._close()
        self.index += 1
        self.open = kind
        return [
            *out,
            self.seq.event("response.output_item.added", output_index=self.index, item=item),
        ]

    def add(self, chunk: Chunk) -> list[bytes]:
        out: list[bytes] = []
        if chunk.reasoning:
            if self.open != "reasoning":
                item = {"type": "reasoning", "id": self.reasoning_id, "summary": []}
                out += self._item("reasoning", item)
            self.thought += chunk.reasoning
            out.append(self.seq.event("response.reasoning_summary_text.delta",
                                      item_id=self.reasoning_id, output_index=self.index,
                                      summary_index=0, delta=chunk.reasoning))  # fmt: skip
        if chunk.text:
            if self.open != "message":
                out += self._item("message", rw.message_item(self.mid, "", "in_progress"))
                part = {"type": "output_text", "text": "", "annotations": []}
                added = self.seq.event(
                    "response.content_part.added",
                    item_id=self.mid,
                    output_index=self.index,
                    content_index=0,
                    part=part,
                )
                out.append(added)
            self.text += chunk.text
            out.append(self.seq.event("response.output_text.delta", item_id=self.mid,
                                      output_index=self.index, content_index=0,
                                      delta=chunk.text, logprobs=[]))  # fmt: skip
        return out

    def _close(self) -> list[bytes]:
        kind, self.open = self.open, None
        seq, i = self.seq, self.index
        if kind == "reasoning":
            summary = [{"type": "summary_text", "text": self.thought}]
            item = {"type": "reasoning", "id": self.reasoning_id, "summary": summary}
            return [seq.event("response.output_item.done", output_index=i, item=item)]
        if kind == "message":
            part = {"type": "output_text", "text": self.text, "annotations": []}
            return [
                seq.event("response.output_text.done", item_id=self.mid, output_index=i,
                          content_index=0, text=self.text, logprobs=[]),
                seq.event("response.content_part.done", item_id=self.mid, output_index=i,
                          content_index=0, part=part),
                seq.event("response.output_item.done", output_index=i,
                          item=rw.message_item(self.mid, self.text, "completed")),
            ]  # fmt: skip
        return []

    def close(self, calls: Any) -> list[bytes]:
        out = self._close()
        for call in calls:
            item = rw.call_item(call, self.names)
            field, kind = (
                ("input", "custom_tool_call_input")
                if item["type"] == "custom_tool_call"
                else ("arguments", "function_call_arguments")
            )
            out += self._item("call", {**item, field: "", "status": "in_progress"})
            args = item[field]
            out.append(self.seq.event(f"response.{kind}.delta", item_id=item["id"],
                                      output_index=self.index, delta=args))  # fmt: skip
            out.append(self.seq.event(f"response.{kind}.done", item_id=item["id"],
                                      output_index=self.index, **{field: args}))  # fmt: skip
            out.append(self.seq.event("response.output_item.done", output_index=self.index,
                                      item=item))  # fmt: skip
            self.open = None
        return out
