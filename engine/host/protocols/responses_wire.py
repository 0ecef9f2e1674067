"""OpenAI's Responses API in Cove's terms: ``input`` items (messages, function calls and their
outputs), ``instructions``, ``tools``, ``tool_choice``, ``text.format`` read into the engine's
messages and parameters; the response object, its output items and its stream events written
as OpenAI's clients read them. Pure: no I/O."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from engine.errors import InvalidRequest
from engine.host.http.leniency import ignore, unknown_fields
from engine.host.protocols.params import parse_params
from engine.host.protocols.tool_wire import parse_tool_choice, parse_tools, reply_schema
from engine.tools import Tool, ToolCall, ToolChoice
from engine.tools.constrain import call_schema, grammar_for
from engine.types import ChatMessage, Chunk, GenerationParams

FIELDS = frozenset(
    {
        "model", "input", "instructions", "max_output_tokens", "temperature", "top_p", "tools",
        "tool_choice", "parallel_tool_calls", "text", "stream", "previous_response_id", "store",
        "metadata", "reasoning", "user", "truncation", "include", "top_logprobs",
        # Read and degraded as docs/ENGINE_API.md says.
        "client_metadata", "prompt_cache_key", "prompt_cache_retention", "service_tier",
        "safety_identifier", "stream_options", "max_tool_calls", "ttl",
    }
)  # fmt: skip
# OpenAI's hosted tools (run by OpenAI's servers, not the client): not offered to the model.
CLIENT_TOOL_TYPES = ("function", "custom", "namespace")
MAX_CONVERSATION_TAG = 200


@dataclass(frozen=True, slots=True)
class ToolNames:
    """The model's names for the tools and the client's: (flat, namespace, name, custom)."""

    entries: tuple[tuple[str, str | None, str, bool], ...] = ()

    def flat(self, name: str, namespace: object = None) -> str:
        for flat, space, own, _custom in self.entries:
            if own == name and (namespace is None or namespace == space):
                return flat
        return name

    def outward(self, call: ToolCall) -> tuple[str, str | None, bool]:
        """A call's tool as the client named it: name, namespace, and whether it is custom."""
        for flat, space, own, custom in self.entries:
            if flat == call.name:
                return own, space, custom
        return call.name, None, False


@dataclass(frozen=True, slots=True)
class ResponsesRequest:
    model: str
    input: tuple[ChatMessage, ...]  # this request's own turns (after the previous response's)
    instructions: str | None
    params: GenerationParams
    stream: bool
    tools: tuple[Tool, ...]
    choice: ToolChoice
    previous: str | None
    echo: dict[str, Any]  # request fields the response repeats
    names: ToolNames = ToolNames()


def parse(body: object) -> ResponsesRequest:
    if not isinstance(body, dict):
        raise InvalidRequest("The request body must be a JSON object.")
    unknown_fields(body, FIELDS)
    model = body.get("model")
    if not isinstance(model, str) or not model:
        raise InvalidRequest("'model' is required.")
    offered, hosted = _offered(body.get("tools"))
    tools = parse_tools([entry.chat for entry in offered])
    names = ToolNames(tuple((e.chat["function"]["name"], e.namespace, e.name, e.custom)
                            for e in offered))  # fmt: skip
    turns = _input(body.get("input"), names)
    instructions = body.get("instructions")
    if instructions is not None and not isinstance(instructions, str):
        raise InvalidRequest("'instructions' must be a string.")
    choice_raw = body.get("tool_choice")
    if isinstance(choice_raw, dict) and choice_raw.get("type") in hosted:
        raise InvalidRequest(
            f"'tool_choice' asks for the hosted tool {choice_raw.get('type')!r}, which Cove does "
            "not run; offer a function tool instead, or let the model choose."
        )
    if isinstance(choice_raw, dict) and choice_raw.get("type") in ("function", "custom"):
        wanted = names.flat(str(choice_raw.get("name")), choice_raw.get("namespace"))
        choice_raw = {"type": "function", "function": {"name": wanted}}
    choice = parse_tool_choice(
        {"tool_choice": choice_raw, "parallel_tool_calls": body.get("parallel_tool_calls", True)},
        tools,
    )
    text = body.get("text") or {}
    if not isinstance(text, dict):
        raise InvalidRequest("'text' must be an object.")
    schema = reply_schema(_format(text.get("format")))
    required = call_schema(tools, choice)
    if schema is not None and required is not None:
        raise InvalidRequest("'text.format' and a required tool call cannot both shape the reply.")
    shape = required if required is not None else schema
    sampling = {k: body[k] for k in ("temperature", "top_p") if body.get(k) is not None}
    if body.get("max_output_tokens") is not None:
        sampling["max_tokens"] = body["max_output_tokens"]
    top = body.get("top_logprobs")
    params = replace(
        parse_params(sampling),
        tools=tools if choice.mode != "none" else (),
        grammar=grammar_for(shape) if shape is not None else None,
    )
    if top is not None:
        if not isinstance(top, int) or isinstance(top, bool) or not 0 <= top <= 20:
            raise InvalidRequest("'top_logprobs' must be an integer from 0 to 20.")
        params = replace(params, logprobs=top)
    stream = body.get("stream", False)
    if not isinstance(stream, bool):
        raise InvalidRequest("'stream' must be true or false.")
    previous = body.get("previous_response_id")
    if previous is not None and not isinstance(previous, str):
        raise InvalidRequest("'previous_response_id' must be a string.")
    cache_key = body.get("prompt_cache_key")
    if isinstance(cache_key, str) and 0 < len(cache_key) <= MAX_CONVERSATION_TAG:
        # The client's name for the session: its saved state is kept under it.
        params = replace(params, conversation=params.conversation or cache_key)
    echo = {
        "instructions": instructions,
        "max_output_tokens": body.get("max_output_tokens"),
        "temperature": body.get("temperature", 1.0),
        "top_p": body.get("top_p", 1.0),
        "tools": body.get("tools") or [],
        "tool_choice": body.get("tool_choice", "auto"),
        "parallel_tool_calls": body.get("parallel_tool_calls", True),
        "text": {"format": text.get("format") or {"type": "text"}},
        "metadata": body.get("metadata") or {},
        "previous_response_id": previous,
    }
    return ResponsesRequest(model, tuple(turns), instructions, params, stream,
                            params.tools, choice, previous, echo, names)  # fmt: skip


@dataclass(frozen=True, slots=True)
class _Offered:
    chat: dict[str, Any]  # the tool as chat completions write it
    name: str  # the client's name for it
    namespace: str | None = None
    custom: bool = False  # a free-form tool: its one argument is the text ``input``


def _offered(raw: object) -> tuple[list[_Offered], tuple[str, ...]]:
    """The tools the model is offered (namespaces flattened into their tools), and the types
    of OpenAI's hosted tools left out."""
    if raw is None:
        return [], ()
    if not isinstance(raw, list):
        raise InvalidRequest("'tools' must be a list.")
    offered: list[_Offered] = []
    hosted: list[str] = []
    for i, item in enumerate(raw):
        kind = item.get("type") if isinstance(item, dict) else None
        if not isinstance(item, dict) or not isinstance(kind, str):
            raise InvalidRequest(f"tools[{i}] must be an object with a 'type'.")
        if kind not in CLIENT_TOOL_TYPES:
            hosted.append(kind)
            ignore(f"tools[{i}] (the hosted tool {kind}: Cove runs no tool itself)")
        elif kind == "namespace":
            inner = item.get("tools")
            if not isinstance(inner, list) or not isinstance(item.get("name"), str):
                raise InvalidRequest(f"tools[{i}]: a namespace needs a 'name' and 'tools'.")
            for j, tool in enumerate(inner):
                offered.append(_tool(tool, f"tools[{i}].tools[{j}]", item["name"]))
        else:
            offered.append(_tool(item, f"tools[{i}]", None))
    _flatten_names(offered)
    return offered, tuple(hosted)


def _tool(raw: object, where: str, namespace: str | None) -> _Offered:
    """A function or custom tool, as chat completions write it."""
    kind = raw.get("type") if isinstance(raw, dict) else None
    if not isinstance(raw, dict) or kind not in ("function", "custom"):
        raise InvalidRequest(f"{where}: function and custom tools are offered (not {kind!r}).")
    unknown_fields(raw, _TOOL_FIELDS, where)
    name = raw.get("name")
    if not isinstance(name, str):
        raise InvalidRequest(f"{where}.name must be a string.")
    if kind == "custom":
        function: dict[str, Any] = {
            "name": name,
            "description": str(raw.get("description") or ""),
            "parameters": _CUSTOM_INPUT,
        }
    else:
        function = {k: raw[k] for k in ("name", "description", "parameters", "strict") if k in raw}
        if function.get("strict") is None:
            function.pop("strict", None)
    return _Offered({"type": "function", "function": function}, name, namespace, kind == "custom")


_TOOL_FIELDS = frozenset(
    {"type", "name", "description", "parameters", "strict", "format", "defer_loading"}
)
_CUSTOM_INPUT = {
    "type": "object",
    "properties": {"input": {"type": "string", "description": "The tool's whole input."}},
    "required": ["input"],
}


def _flatten_names(offered: list[_Offered]) -> None:
    """The name each tool has for the model: its own, or ``namespace.name`` where two would
    share one."""
    counts: dict[str, int] = {}
    for entry in offered:
        counts[entry.name] = counts.get(entry.name, 0) + 1
    for entry in offered:
        if entry.namespace is not None and counts[entry.name] > 1:
            entry.chat["function"]["name"] = f"{entry.namespace}.{entry.name}"


def _format(raw: object) -> object:
    """``text.format`` as chat completions' ``response_format``."""
    if raw is None or not isinstance(raw, dict):
        return raw
    if raw.get("type") != "json_schema":
        return raw
    spec = {k: raw[k] for k in ("name", "schema", "description", "strict") if k in raw}
    return {"type": "json_schema", "json_schema": spec}


def _input(raw: object, names: ToolNames) -> list[ChatMessage]:
    if isinstance(raw, str):
        return [ChatMessage("user", raw)]
    if not isinstance(raw, list) or not raw:
        raise InvalidRequest("'input' must be a string or a non-empty list of items.")
    out: list[ChatMessage] = []
    for i, item in enumerate(raw):
        if not isinstance(item, dict):
            raise InvalidRequest(f"input[{i}] must be an object.")
        kind = item.get("type", "message")
        if kind == "message":
            role = item.get("role")
            if role not in ("user", "assistant", "system", "developer"):
                raise InvalidRequest(
                    f"input[{i}].role must be user, assistant, system or developer."
                )
            out.append(ChatMessage("system" if role == "developer" else role,
                                   _content(item.get("content"), i)))  # fmt: skip
        elif kind in ("function_call", "custom_tool_call"):
            name = names.flat(str(item.get("name")), item.get("namespace"))
            if kind == "custom_tool_call":
                arguments: object = {"input": str(item.get("input") or "")}
            else:
                try:
                    arguments = json.loads(item.get("arguments") or "{}")
                except (TypeError, ValueError):
                    raise InvalidRequest(
                        f"input[{i}].arguments must be a JSON object string."
                    ) from None
            if not isinstance(arguments, dict):
                raise InvalidRequest(f"input[{i}].arguments must be a JSON object string.")
            call = ToolCall(name, arguments, id=str(item.get("call_id")))
            if out and out[-1].role == "assistant" and out[-1].tool_calls and not out[-1].content:
                last = out.pop()
                out.append(replace(last, tool_calls=(*last.tool_calls, call)))
            else:
                out.append(ChatMessage("assistant", "", tool_calls=(call,)))
        elif kind in ("function_call_output", "custom_tool_call_output"):
            output = item.get("output")
            if isinstance(output, list):  # content parts (text, images): their text
                output = _content(output, i)
            elif not isinstance(output, str):
                output = json.dumps(output)
            out.append(ChatMessage("tool", output, tool_call_id=str(item.get("call_id"))))
        elif kind == "reasoning":
            continue  # an earlier reply's thinking stays out of the prompt
        elif kind in ("compaction", "item_reference"):
            ignore(f"input[{i}] ({kind}: Cove keeps no items on the server)")
        else:
            raise InvalidRequest(f"input[{i}].type {kind!r} is not supported.")
    return out


def _content(raw: object, i: int) -> str:
    if isinstance(raw, str):
        return raw
    if not isinstance(raw, list):
        raise InvalidRequest(f"input[{i}].content must be a string or a list of parts.")
    parts = []
    for part in raw:
        kind = part.get("type") if isinstance(part, dict) else None
        if kind in ("input_text", "output_text", "text"):
            parts.append(str(part.get("text", "")))
        else:
            raise InvalidRequest(f"input[{i}].content: {kind!r} parts are not supported.")
    return "".join(parts)


# -- the response ----------------------------------------------------------------------------------


def new_id(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex}"


def output_items(
    text: str, reasoning: str, calls: Sequence[ToolCall], mid: str, names: ToolNames
) -> list[Any]:
    items: list[dict[str, Any]] = []
    if reasoning:
        items.append({"type": "reasoning", "id": new_id("rs"),
                      "summary": [{"type": "summary_text", "text": reasoning}]})  # fmt: skip
    if text or not calls:
        items.append(message_item(mid, text, "completed"))
    items.extend(call_item(c, names) for c in calls)
    return items


def message_item(mid: str, text: str, status: str) -> dict[str, Any]:
    content = [{"type": "output_text", "text": text, "annotations": []}] if status else []
    return {"type": "message", "id": mid, "status": status, "role": "assistant", "content": content}


def call_item(call: ToolCall, names: ToolNames) -> dict[str, Any]:
    """A call as the client named its tool: a ``custom_tool_call`` with its text ``input`` for
    a custom tool, else a ``function_call`` (with its ``namespace`` where it has one)."""
    name, namespace, custom = names.outward(call)
    if custom:
        return {
            "type": "custom_tool_call",
            "id": "ctc_" + call.id.removeprefix("call_"),
            "call_id": call.id,
            "name": name,
            "input": str(call.arguments.get("input", "")),
            "status": "completed",
        }
    item = {
        "type": "function_call",
        "id": "fc_" + call.id.removeprefix("call_"),
        "call_id": call.id,
        "name": name,
        "arguments": call.arguments_json(),
        "status": "completed",
    }
    if namespace is not None:
        item["namespace"] = namespace
    return item


def response(rid: str, model: str, req: ResponsesRequest, output: list[Any],
             final: Chunk | None, created: int) -> dict[str, Any]:  # fmt: skip
    s = final.stats if final is not None else None
    done = final is not None
    incomplete = final is not None and final.finish_reason == "length"
    return {
        "id": rid,
        "object": "response",
        "created_at": created,
        "status": ("incomplete" if incomplete else "completed") if done else "in_progress",
        "incomplete_details": {"reason": "max_output_tokens"} if incomplete else None,
        "error": None,
        "model": model,
        "output": output,
        **req.echo,
        "usage": None
        if s is None
        else {
            "input_tokens": s.prompt_tokens,
            "input_tokens_details": {"cached_tokens": s.cached_tokens},
            "output_tokens": s.completion_tokens,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": s.prompt_tokens + s.completion_tokens,
        },
    }


def now() -> int:
    return int(time.time())
