"""One chat turn with MCP tools, the same for the window and the terminal: the model's reply
goes through the engine's tool-calling API; each call it makes is asked about (unless always
allowed), run on its server, and its result sent back as a ``tool`` message; the model then
answers or calls again, up to a bounded number of rounds."""

from __future__ import annotations

import dataclasses
import json
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from engine.mcp_servers.consent import ConsentStore, Decision
from engine.mcp_servers.hub import ServerTool, ToolResult
from engine.tools import ToolCall
from engine.types import ChatMessage, Chunk, GenerationParams

MAX_ROUNDS = 6
DENIED = "The user did not allow this call. Do not try it again; answer without it."
WRAP_UP = (
    "Answer my question now from the tool results above, in plain words, without calling a tool."
)

CallState = Literal["asking", "running", "done", "failed", "denied"]
Chat = Callable[[Sequence[ChatMessage], GenerationParams], Iterator[Chunk]]
Ask = Callable[[ServerTool, ToolCall], Decision]


class ToolSource(Protocol):
    def tools(self) -> list[ServerTool]: ...

    def call(self, tool: ServerTool, arguments: Mapping[str, Any]) -> ToolResult: ...


@dataclass(slots=True)
class CallRecord:
    """A call as the conversation shows it; ``on_call`` sees it at each change of state."""

    id: str
    server: str
    tool: str
    arguments: dict[str, Any]
    state: CallState = "asking"
    result: str = ""

    @property
    def finished(self) -> bool:
        return self.state in ("done", "failed", "denied")


@dataclass(slots=True)
class TurnResult:
    text: str  # the model's last reply: the answer
    final: Chunk
    messages: list[ChatMessage] = field(default_factory=list)  # the calls and results, in order
    calls: list[CallRecord] = field(default_factory=list)


def run_turn(
    chat: Chat,
    history: Sequence[ChatMessage],
    params: GenerationParams,
    source: ToolSource,
    consent: ConsentStore,
    ask: Ask,
    *,
    on_text: Callable[[str], None] = lambda _text: None,
    on_call: Callable[[CallRecord], None] = lambda _record: None,
    on_reasoning: Callable[[str], None] = lambda _text: None,
    cancel: threading.Event | None = None,
    max_rounds: int = MAX_ROUNDS,
) -> TurnResult:
    tools = {t.offered: t for t in source.tools()}
    denied: set[str] = set()
    answered: set[str] = set()  # the calls already run this turn, by name and arguments
    result = TurnResult("", Chunk(finish_reason="stop"))
    wrap_up = False
    for round_ in range(max_rounds + 1):
        # A denied tool is withdrawn for the rest of the turn. The last round, one after the
        # model asked again for what it already has (small models loop so), and one with every
        # tool denied offer no tools and ask for the answer: that request is not kept in the
        # conversation.
        offered = tuple(t.to_tool() for name, t in tools.items() if name not in denied)
        wrap_up = wrap_up or round_ == max_rounds or (round_ > 0 and not offered)
        if wrap_up:
            offered = ()
        asked = [*history, *result.messages, *([ChatMessage("user", WRAP_UP)] if wrap_up else [])]
        reply = chat(asked, dataclasses.replace(params, tools=offered))
        text, final = _reply(reply, on_text, on_reasoning)
        result.text, result.final = text, final
        if not final.tool_calls or final.finish_reason not in ("stop", "length"):
            return result
        # Calls cut off by the token limit are a reply that ran away, not a plan.
        runaway = final.finish_reason == "length"
        if not wrap_up and (runaway or all(_key(c) in answered for c in final.tool_calls)):
            wrap_up = True
            continue
        if wrap_up:  # asked to answer, it called again: what it wrote is all there is
            return result
        answered.update(_key(call) for call in final.tool_calls)
        result.messages.append(ChatMessage("assistant", text, tool_calls=final.tool_calls))
        for call in final.tool_calls:
            if cancel is not None and cancel.is_set():
                result.final = Chunk(finish_reason="cancelled", stats=final.stats)
                return result
            record = _run(call, tools.get(call.name), consent, ask, source, on_call)
            if record.state == "denied":
                denied.add(call.name)
            result.calls.append(record)
            result.messages.append(
                ChatMessage("tool", record.result, tool_call_id=call.id, name=call.name)
            )
    return result


def _key(call: ToolCall) -> str:
    return call.name + json.dumps(call.arguments, sort_keys=True)


def _reply(
    chunks: Iterator[Chunk], on_text: Callable[[str], None], on_reasoning: Callable[[str], None]
) -> tuple[str, Chunk]:
    parts: list[str] = []
    for chunk in chunks:
        if chunk.reasoning:
            on_reasoning(chunk.reasoning)
        if chunk.is_terminal:
            return "".join(parts), chunk
        if chunk.text:
            parts.append(chunk.text)
            on_text(chunk.text)
    return "".join(parts), Chunk(finish_reason="error", error="the stream ended without a result")


def _run(
    call: ToolCall,
    tool: ServerTool | None,
    consent: ConsentStore,
    ask: Ask,
    source: ToolSource,
    on_call: Callable[[CallRecord], None],
) -> CallRecord:
    if tool is None:  # the engine returns only offered tools; a stale list is still handled
        record = CallRecord(call.id, "", call.name, call.arguments, "failed")
        record.result = f"There is no tool named {call.name!r}."
        on_call(record)
        return record
    record = CallRecord(call.id, tool.server, tool.name, call.arguments)
    if not consent.allowed(tool.server, tool.name):
        on_call(record)
        decision = ask(tool, call)
        consent.record(tool.server, tool.name, decision)
        if decision == "deny":
            record.state, record.result = "denied", DENIED
            on_call(record)
            return record
    record.state = "running"
    on_call(record)
    outcome = source.call(tool, call.arguments)
    record.state = "failed" if outcome.is_error else "done"
    record.result = outcome.text
    on_call(record)
    return record
