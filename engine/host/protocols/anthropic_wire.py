"""Anthropic's Messages API in Cove's terms: a request's system, turns, content blocks (text,
tool_use, tool_result, thinking), tools and tool_choice read into the engine's messages and
parameters; replies, stream events and errors written in Anthropic's shapes. Pure: no I/O."""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from engine.errors import (
    EngineAuthError,
    EngineBusy,
    EngineError,
    InvalidRequest,
    ModelNotFound,
)
from engine.host.http.leniency import ignore, unknown_fields
from engine.host.protocols.params import parse_params
from engine.host.protocols.tool_wire import check_schema
from engine.images import read_base64
from engine.tools import Tool, ToolCall, ToolChoice
from engine.tools.constrain import call_schema, grammar_for
from engine.types import ChatMessage, Chunk, ImageInput

FIELDS = frozenset(
    {
        "model",
        "messages",
        "system",
        "max_tokens",
        "stop_sequences",
        "stream",
        "temperature",
        "top_p",
        "top_k",
        "tools",
        "tool_choice",
        "metadata",
        "thinking",
        "service_tier",
        # Read and degraded as docs/ENGINE_API.md says: prompt caching is automatic (a shared
        # prefix is reused whether marked or not); context editing and effort are hints.
        "cache_control",
        "context_management",
        "output_config",
        "container",
    }
)
COUNT_FIELDS = FIELDS - {"max_tokens", "stream"}
MESSAGE_FIELDS = frozenset({"role", "content"})
# Anthropic's own server-side tools (web search, code execution, ...) have a versioned type;
# the client-side ones Cove runs through the model are custom tools.
CLIENT_TOOL_TYPES = (None, "custom")
TOOL_FIELDS = frozenset({"type", "name", "description", "input_schema", "cache_control"})
_NAME = re.compile(r"^[A-Za-z0-9_\-]{1,64}$")


@dataclass(frozen=True, slots=True)
class MessagesRequest:
    model: str
    messages: tuple[ChatMessage, ...]
    params: Any  # GenerationParams
    stream: bool
    tools: tuple[Tool, ...]
    choice: ToolChoice


def parse_messages(body: object, *, counting: bool = False) -> MessagesRequest:
    if not isinstance(body, dict):
        raise InvalidRequest("The request body must be a JSON object.")
    unknown_fields(body, COUNT_FIELDS if counting else FIELDS)
    model = body.get("model")
    if not isinstance(model, str) or not model:
        raise InvalidRequest("model: Field required.")
    thinking = _thinking(body.get("thinking"))
    messages = [*_system(body.get("system")), *_turns(body.get("messages"))]
    tools, hosted = _tools(body.get("tools"))
    choice = _choice(body.get("tool_choice"), tools, hosted)
    sampling: dict[str, Any] = {}
    if not counting:
        max_tokens = body.get("max_tokens")
        if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 1:
            raise InvalidRequest("max_tokens: Field required (a positive integer).")
        sampling["max_tokens"] = max_tokens
        for name in ("temperature", "top_p", "top_k"):
            if body.get(name) is not None:
                sampling[name] = body[name]
        if body.get("stop_sequences") is not None:
            sampling["stop"] = body["stop_sequences"]
    params = parse_params(sampling)
    offered = tools if choice.mode != "none" else ()
    required = call_schema(tools, choice)
    params = replace(
        params,
        tools=offered,
        grammar=grammar_for(required) if required is not None else None,
        thinking=thinking,
    )
    stream = body.get("stream", False)
    if not isinstance(stream, bool):
        raise InvalidRequest("stream: Input should be a valid boolean.")
    return MessagesRequest(model, tuple(messages), params, stream, offered, choice)


def _thinking(raw: object) -> bool | None:
    """``thinking``: ``disabled`` turns the model's thinking off where its chat template can
    (engine/formats/thinking_switch.py), ``enabled`` on; Cove has no budget to set. None: not given,
    or ``adaptive`` (as the template does by default). A malformed value is still refused."""
    if raw is None:
        return None
    kind = raw.get("type") if isinstance(raw, dict) else None
    if kind not in ("enabled", "disabled", "adaptive"):
        raise InvalidRequest("thinking.type: Input should be 'enabled', 'disabled' or 'adaptive'.")
    return None if kind == "adaptive" else kind == "enabled"


# Claude Code starts its system prompt with a line for Anthropic's billing that changes with every
# session: left in, no two sessions would share a prompt prefix to reuse. It says nothing to the
# model, so it is left out.
BILLING_LINE = "x-anthropic-billing-header:"


def _system(raw: object) -> list[ChatMessage]:
    if raw is None or raw == "":
        return []
    if isinstance(raw, str):
        return [ChatMessage("system", raw)]
    if isinstance(raw, list):
        raw = [b for b in raw if not _billing_line(b)]
    return [ChatMessage("system", _text_blocks(raw, "system"))]


def _billing_line(block: object) -> bool:
    return (
        isinstance(block, dict)
        and isinstance(block.get("text"), str)
        and block["text"].startswith(BILLING_LINE)
        and "\n" not in block["text"].strip()
    )


def _text_blocks(raw: object, where: str) -> str:
    if isinstance(raw, str):
        return raw
    if not isinstance(raw, list):
        raise InvalidRequest(f"{where}: Input should be a string or a list of text blocks.")
    parts = []
    for i, block in enumerate(raw):
        if not isinstance(block, dict) or block.get("type") != "text":
            kind = block.get("type") if isinstance(block, dict) else None
            raise InvalidRequest(
                f"{where}.{i}: a {kind or 'non-text'} block is not supported here."
            )
        text = block.get("text")
        if not isinstance(text, str):
            raise InvalidRequest(f"{where}.{i}.text: Field required.")
        parts.append(text)
    return "\n".join(parts)


def _turns(raw: object) -> list[ChatMessage]:
    if not isinstance(raw, list) or not raw:
        raise InvalidRequest("messages: Field required (a non-empty list).")
    out: list[ChatMessage] = []
    for i, message in enumerate(raw):
        where = f"messages.{i}"
        if not isinstance(message, dict) or message.get("role") not in (
            "user",
            "assistant",
            "system",
        ):
            raise InvalidRequest(f"{where}.role: Input should be 'user' or 'assistant'.")
        unknown_fields(message, MESSAGE_FIELDS, where)
        role = message["role"]
        content = message.get("content")
        if role == "system":  # placed where the model's template holds it (templates.render)
            out.append(ChatMessage("system", _text_blocks(content, f"{where}.content")))
            continue
        if isinstance(content, str):
            out.append(ChatMessage(role, content))
            continue
        if not isinstance(content, list):
            raise InvalidRequest(f"{where}.content: Input should be a string or a list of blocks.")
        images: list[ImageInput] = []
        texts: list[str] = []
        calls: list[ToolCall] = []
        results: list[ChatMessage] = []
        for j, block in enumerate(content):
            at = f"{where}.content.{j}"
            kind = block.get("type") if isinstance(block, dict) else None
            if kind == "text" and isinstance(block.get("text"), str):
                texts.append(block["text"])
            elif kind in ("thinking", "redacted_thinking") and role == "assistant":
                continue  # an earlier reply's thinking stays out of the prompt
            elif kind == "tool_use" and role == "assistant":
                name, args, cid = block.get("name"), block.get("input", {}), block.get("id")
                if not isinstance(name, str) or not isinstance(args, dict):
                    raise InvalidRequest(f"{at}: tool_use needs a 'name' and an 'input' object.")
                calls.append(ToolCall(name, args, id=str(cid or "toolu_" + uuid.uuid4().hex)))
            elif kind == "tool_result" and role == "user":
                cid = block.get("tool_use_id")
                if not isinstance(cid, str):
                    raise InvalidRequest(f"{at}.tool_use_id: Field required.")
                text = _text_blocks(block.get("content", ""), f"{at}.content")
                if block.get("is_error"):
                    text = f"Error: {text}"
                results.append(ChatMessage("tool", text, tool_call_id=cid))
            elif kind == "image" and role == "user":
                images.append(_image_block(block, at))
            elif kind in ("image", "document"):
                raise InvalidRequest(f"{at}: {kind} blocks are not supported here.")
            else:
                raise InvalidRequest(f"{at}.type: {kind!r} is not a block Cove reads here.")
        out.extend(results)
        if texts or calls or images or not results:
            message = ChatMessage(role, "\n".join(texts), tool_calls=tuple(calls))
            out.append(replace(message, images=tuple(images)))
    return out


def _image_block(block: dict[str, Any], at: str) -> ImageInput:
    """An ``image`` block with a base64 source; URL sources are refused (Cove fetches
    nothing on a model's behalf)."""
    source = block.get("source")
    kind = source.get("type") if isinstance(source, dict) else None
    if kind == "url":
        raise InvalidRequest(
            f"{at}.source: Cove does not fetch images from the network; send a base64 source."
        )
    if kind != "base64" or not isinstance(source, dict) or not isinstance(source.get("data"), str):
        raise InvalidRequest(f"{at}.source: a base64 image source (type, media_type, data).")
    return read_base64(source["data"], f"{at} (image)")


def _tools(raw: object) -> tuple[tuple[Tool, ...], tuple[str, ...]]:
    """The client's tools, and the names of Anthropic's server tools left out (Cove runs no
    tool itself: a server tool is not offered to the model, and said so in ``cove-ignored``)."""
    if raw is None:
        return (), ()
    if not isinstance(raw, list):
        raise InvalidRequest("tools: Input should be a list.")
    tools: list[Tool] = []
    hosted: list[str] = []
    for i, item in enumerate(raw):
        where = f"tools.{i}"
        if not isinstance(item, dict):
            raise InvalidRequest(f"{where}: Input should be an object.")
        if item.get("type") not in CLIENT_TOOL_TYPES:
            hosted.append(str(item.get("name") or item.get("type")))
            ignore(f"{where} (the server tool {item.get('type')!s}: Cove runs no tool itself)")
            continue
        unknown_fields(item, TOOL_FIELDS, where)
        name = item.get("name")
        if not isinstance(name, str) or not _NAME.match(name):
            raise InvalidRequest(f"{where}.name: 1-64 letters, digits, '_' or '-'.")
        if any(t.name == name for t in tools):
            raise InvalidRequest(f"{where}.name: {name!r} is declared twice.")
        schema = item.get("input_schema")
        check_schema(schema, f"{where}.input_schema")
        description = item.get("description", "")
        if not isinstance(description, str):
            raise InvalidRequest(f"{where}.description: Input should be a string.")
        assert isinstance(schema, dict)
        tools.append(Tool(name, description, schema))
    return tuple(tools), tuple(hosted)


def _choice(raw: object, tools: Sequence[Tool], hosted: Sequence[str] = ()) -> ToolChoice:
    if raw is None:
        return ToolChoice("auto")
    if not isinstance(raw, dict):
        raise InvalidRequest("tool_choice: Input should be an object with a 'type'.")
    parallel = not raw.get("disable_parallel_tool_use", False)
    kind = raw.get("type")
    if kind in ("auto", "none"):
        return ToolChoice(kind, None, parallel)
    if kind == "any":
        if not tools:
            raise InvalidRequest("tool_choice: 'any' needs 'tools'.")
        return ToolChoice("required", None, parallel)
    if kind == "tool":
        name = raw.get("name")
        if name in hosted:
            raise InvalidRequest(
                f"tool_choice.name: {name!r} is a server tool, which Cove does not run; "
                "offer it as a client tool (with an input_schema) or let the model choose."
            )
        if not any(t.name == name for t in tools):
            raise InvalidRequest(f"tool_choice.name: {name!r} is not among 'tools'.")
        return ToolChoice("function", str(name), parallel)
    raise InvalidRequest("tool_choice.type: Input should be 'auto', 'any', 'tool' or 'none'.")


# -- replies ---------------------------------------------------------------------------------------


def message_id() -> str:
    return "msg_" + uuid.uuid4().hex[:24]


def stop_reason(final: Chunk, calls: Sequence[ToolCall], stop_hit: str | None = None) -> str:
    if calls:
        return "tool_use"
    if final.finish_reason == "length":
        return "max_tokens"
    return "stop_sequence" if stop_hit else "end_turn"


def usage(final: Chunk) -> dict[str, int]:
    s = final.stats
    return {
        "input_tokens": s.prompt_tokens if s else 0,
        "output_tokens": s.completion_tokens if s else 0,
        "cache_read_input_tokens": s.cached_tokens if s else 0,
    }


def tool_use_block(call: ToolCall) -> dict[str, Any]:
    return {"type": "tool_use", "id": _tool_id(call), "name": call.name, "input": call.arguments}


def _tool_id(call: ToolCall) -> str:
    return call.id if call.id.startswith("toolu_") else "toolu_" + call.id.removeprefix("call_")


def message(
    mid: str, model: str, text: str, final: Chunk, calls: Sequence[ToolCall]
) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    if final.reasoning:
        content.append({"type": "thinking", "thinking": final.reasoning, "signature": ""})
    if text:
        content.append({"type": "text", "text": text})
    content.extend(tool_use_block(c) for c in calls)
    return {
        "id": mid,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop_reason(final, calls),
        "stop_sequence": None,
        "usage": usage(final),
    }


def event(kind: str, data: Mapping[str, Any]) -> bytes:
    body = json.dumps({"type": kind, **data}, separators=(",", ":"))
    return f"event: {kind}\ndata: {body}\n\n".encode()


# -- errors ----------------------------------------------------------------------------------------

_KINDS: tuple[tuple[type[EngineError], str], ...] = (
    (EngineAuthError, "authentication_error"),
    (ModelNotFound, "not_found_error"),
    (EngineBusy, "rate_limit_error"),
    (InvalidRequest, "invalid_request_error"),
)


def error_kind(exc: EngineError, status: int) -> str:
    if status == 413:
        return "request_too_large"
    for cls, kind in _KINDS:
        if isinstance(exc, cls):
            return kind
    return "invalid_request_error" if status < 500 else "api_error"


def error_body(message: str, kind: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": message}}
