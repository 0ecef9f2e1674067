"""Ollama's API in Cove's terms: ``/api/chat`` and ``/api/generate`` requests (messages,
``options``, ``format``, ``tools``) read into the engine's messages and parameters, and the
NDJSON lines, model listings and ``{"error": ...}`` bodies its clients expect. Pure: no I/O."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from engine.errors import InvalidRequest

__all__ = ["InvalidRequest", "OllamaRequest"]
from engine.host.protocols.params import parse_params
from engine.host.protocols.thinking_fields import ollama_thinking
from engine.host.protocols.tool_wire import check_schema, parse_tools
from engine.images import read_base64
from engine.tools import Tool, ToolCall
from engine.tools.constrain import ANY_JSON_OBJECT, grammar_for
from engine.types import ChatMessage, Chunk, GenerationParams, ImageInput

# Ollama's option names for what Cove calls otherwise; options Cove cannot apply per request
# (num_ctx, num_gpu, ...: the loaded model's, set at load) are accepted and left alone.
_OPTIONS = {
    "temperature": "temperature",
    "top_p": "top_p",
    "top_k": "top_k",
    "min_p": "min_p",
    "repeat_penalty": "repeat_penalty",
    "repeat_last_n": "repeat_last_n",
    "seed": "seed",
    "num_predict": "max_tokens",
    "stop": "stop",
}


@dataclass(frozen=True, slots=True)
class OllamaRequest:
    model: str
    messages: tuple[ChatMessage, ...]
    params: GenerationParams
    stream: bool
    tools: tuple[Tool, ...]
    raw_prompt: str | None = None  # /api/generate with raw: true, no template
    load_only: bool = False  # no prompt and no messages: Ollama's way to load a model


def model_name(body: Mapping[str, Any]) -> str:
    name = body.get("model", body.get("name"))
    if not isinstance(name, str) or not name:
        raise InvalidRequest("model is required")
    return name


def parse_chat(body: object) -> OllamaRequest:
    data = _object(body)
    raw = data.get("messages") or []
    if not isinstance(raw, list):
        raise InvalidRequest("messages must be a list")
    messages = tuple(_message(m, i) for i, m in enumerate(raw))
    tools = parse_tools(data.get("tools")) if data.get("tools") else ()
    params = replace(_params(data), tools=tools)
    return OllamaRequest(
        model_name(data), messages, params, _stream(data), tools, load_only=not messages
    )


def parse_generate(body: object) -> OllamaRequest:
    data = _object(body)
    prompt = data.get("prompt", "")
    system = data.get("system")
    if not isinstance(prompt, str) or (system is not None and not isinstance(system, str)):
        raise InvalidRequest("prompt and system must be strings")
    images = _images(data.get("images"), "images")
    params = _params(data)
    if data.get("raw"):
        return OllamaRequest(model_name(data), (), params, _stream(data), (), raw_prompt=prompt,
                             load_only=not prompt)  # fmt: skip
    messages = [ChatMessage("system", system)] if system else []
    messages.append(ChatMessage("user", prompt, images=images))
    return OllamaRequest(model_name(data), tuple(messages), params, _stream(data), (),
                         load_only=not prompt)  # fmt: skip


def _object(body: object) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise InvalidRequest("the request body must be a JSON object")
    return body


def _stream(data: Mapping[str, Any]) -> bool:
    stream = data.get("stream", True)  # Ollama streams unless told not to
    if not isinstance(stream, bool):
        raise InvalidRequest("stream must be true or false")
    return stream


def _message(raw: object, i: int) -> ChatMessage:
    if not isinstance(raw, dict) or raw.get("role") not in ("system", "user", "assistant", "tool"):
        raise InvalidRequest(f"messages[{i}].role must be system, user, assistant or tool")
    images = _images(raw.get("images"), f"messages[{i}].images")
    if images and raw["role"] != "user":
        raise InvalidRequest(f"messages[{i}]: images are read in user messages only")
    content = raw.get("content", "")
    if not isinstance(content, str):
        raise InvalidRequest(f"messages[{i}].content must be a string")
    calls = []
    for j, call in enumerate(raw.get("tool_calls") or []):
        function = call.get("function") if isinstance(call, dict) else None
        name = function.get("name") if isinstance(function, dict) else None
        arguments = function.get("arguments", {}) if isinstance(function, dict) else None
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments)
            except ValueError:
                arguments = None
        if not isinstance(name, str) or not isinstance(arguments, dict):
            raise InvalidRequest(
                f"messages[{i}].tool_calls[{j}] needs a function name and arguments"
            )
        calls.append(ToolCall(name, arguments, id=f"call_{i}_{j}"))
    name = raw.get("tool_name") or raw.get("name")
    return ChatMessage(
        raw["role"],
        content,
        tool_calls=tuple(calls),
        tool_call_id=f"tool_{i}" if raw["role"] == "tool" else None,
        name=name if isinstance(name, str) else None,
        images=images,
    )


def _images(raw: object, where: str) -> tuple[ImageInput, ...]:
    """Ollama's ``images``: a list of base64-encoded images."""
    if not raw:
        return ()
    if not isinstance(raw, list) or not all(isinstance(x, str) for x in raw):
        raise InvalidRequest(f"{where} must be a list of base64-encoded images")
    return tuple(read_base64(x, f"{where}[{j}]") for j, x in enumerate(raw))


def _params(data: Mapping[str, Any]) -> GenerationParams:
    options = data.get("options") or {}
    if not isinstance(options, dict):
        raise InvalidRequest("options must be an object")
    fields: dict[str, Any] = {}
    for name, target in _OPTIONS.items():
        value = options.get(name)
        if value is None:
            continue
        if name == "num_predict" and isinstance(value, int) and value < 0:
            continue  # -1 and -2: until the context is full
        if name == "repeat_last_n":
            continue  # applied below: GenerationParams takes it directly
        fields[target] = value
    params = parse_params(fields)
    last_n = options.get("repeat_last_n")
    if isinstance(last_n, int) and not isinstance(last_n, bool):
        params = replace(params, repeat_last_n=last_n)
    params = replace(params, thinking=ollama_thinking(data))
    shape = data.get("format")
    if shape in (None, ""):
        return params
    if shape == "json":
        return replace(params, grammar=grammar_for(ANY_JSON_OBJECT))
    check_schema(shape, "format")
    assert isinstance(shape, dict)
    return replace(params, grammar=grammar_for(shape))


# -- replies ---------------------------------------------------------------------------------------


def now() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


def timestamp(epoch_s: float) -> str:
    return datetime.fromtimestamp(epoch_s, UTC).isoformat().replace("+00:00", "Z")


def call_json(call: ToolCall) -> dict[str, Any]:
    return {"function": {"name": call.name, "arguments": call.arguments}}


def chat_line(model: str, text: str = "", thinking: str = "",
              calls: Sequence[ToolCall] = ()) -> dict[str, Any]:  # fmt: skip
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if thinking:
        message["thinking"] = thinking
    if calls:
        message["tool_calls"] = [call_json(c) for c in calls]
    return {"model": model, "created_at": now(), "message": message, "done": False}


def generate_line(model: str, text: str = "", thinking: str = "") -> dict[str, Any]:
    line: dict[str, Any] = {"model": model, "created_at": now(), "response": text, "done": False}
    if thinking:
        line["thinking"] = thinking
    return line


def done(line: dict[str, Any], final: Chunk, started: float) -> dict[str, Any]:
    """The last line (or the whole reply): why it stopped and how long each part took, in
    nanoseconds as Ollama counts them."""
    s = final.stats
    total = time.perf_counter() - started
    prompt_s = s.prompt_tokens / s.prompt_tokens_per_s if s and s.prompt_tokens_per_s else 0.0
    decode_s = s.completion_tokens / s.decode_tokens_per_s if s and s.decode_tokens_per_s else 0.0
    return {
        **line,
        "done": True,
        "done_reason": "length" if final.finish_reason == "length" else "stop",
        "total_duration": int(total * 1e9),
        "load_duration": 0,
        "prompt_eval_count": s.prompt_tokens if s else 0,
        "prompt_eval_duration": int(prompt_s * 1e9),
        "eval_count": s.completion_tokens if s else 0,
        "eval_duration": int(decode_s * 1e9),
    }


def error(message: str) -> dict[str, str]:
    return {"error": message}
