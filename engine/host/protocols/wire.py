"""The OpenAI wire format: validate requests into engine values, and shape engine chunks into
OpenAI responses. Pure functions, no I/O, so that both directions are tested without a server.

A field Cove does not know is ignored and named in the ``cove-ignored`` header
(engine/host/http/leniency.py), as OpenAI's API and the other local engines accept fields newer than
their clients; a known field of the wrong type or out of range is a 400 that names it.
"""

from __future__ import annotations

import base64
import json
import struct
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, get_args
from urllib.parse import unquote, urlsplit

from engine.client.protocol import completion_extras
from engine.errors import InvalidRequest
from engine.host.http.leniency import unknown_fields
from engine.host.models.replies import prompt_reading
from engine.host.protocols.echo import Prompt, logprobs_block, parse_prompts
from engine.host.protocols.params import (
    PROMPT_END_FIELDS,
    SAMPLING_FIELDS,
    continues_final_message,
    flag,
    is_int,
    is_number,
    parse_params,
)
from engine.host.protocols.thinking_fields import TEMPLATE_KWARGS, template_kwargs_thinking
from engine.host.protocols.tool_wire import parse_tool_choice, parse_tools, reply_schema
from engine.images import read_data_url, read_image_file
from engine.tools import Tool, ToolCall, ToolChoice
from engine.tools.constrain import call_schema, grammar_for
from engine.types import (
    TOP_LOGPROBS_MAX,
    ChatMessage,
    Chunk,
    GenerationParams,
    ImageInput,
    Role,
    TokenLogprob,
)

MAX_MESSAGES = 4096
MAX_IMAGES = 16  # in one message
MAX_EMBED_INPUTS = 2048
ROLES: frozenset[str] = frozenset(get_args(Role))

_COMMON = {"model", "stream", "stream_options", "n", "user", "presence_penalty"}
_COMMON |= {"frequency_penalty", "logprobs", "response_format"}
# Read and degraded as docs/ENGINE_API.md says (nothing kept on a server, no tiers, no effort).
_COMMON |= {"store", "metadata", "service_tier", "prediction", "reasoning_effort"}
_COMMON |= {"safety_identifier", "prompt_cache_key", "prompt_cache_retention", "verbosity"}
# LM Studio's: seconds the model stays loaded once idle (engine/host/models/residents.py).
_COMMON |= {"ttl"}
CHAT_FIELDS = frozenset(
    {
        "messages",
        "tools",
        "tool_choice",
        "parallel_tool_calls",
        "top_logprobs",
        TEMPLATE_KWARGS,
        *_COMMON,
        *SAMPLING_FIELDS,
        *PROMPT_END_FIELDS,
    }
)
COMPLETION_FIELDS = frozenset({"prompt", "echo", *_COMMON, *SAMPLING_FIELDS})
EMBEDDING_FIELDS = frozenset({"model", "input", "encoding_format", "user", "dimensions"})


@dataclass(frozen=True, slots=True)
class ChatRequest:
    model: str
    messages: tuple[ChatMessage, ...]
    params: GenerationParams
    stream: bool
    include_usage: bool
    tools: tuple[Tool, ...] = ()
    tool_choice: ToolChoice = field(default_factory=ToolChoice)


@dataclass(frozen=True, slots=True)
class CompletionRequest:
    """``prompts``: one choice each (text, or token ids read as they are); ``echo``: each
    choice repeats its prompt before the reply, scored when ``params.logprobs`` is set."""

    model: str
    prompts: tuple[Prompt, ...]
    params: GenerationParams
    stream: bool
    include_usage: bool
    echo: bool = False

    @property
    def plain(self) -> bool:
        """One text prompt continued, as a stream can carry it."""
        return len(self.prompts) == 1 and isinstance(self.prompts[0], str) and not self.echo


@dataclass(frozen=True, slots=True)
class EmbeddingRequest:
    model: str | None
    inputs: tuple[str, ...]
    base64: bool


# Fields whose meaning would change if they were ignored: refused, with what to send instead.
REFUSED_CHAT_FIELDS = {
    "functions": "'functions' is OpenAI's older form of 'tools'; send 'tools' instead.",
    "function_call": "'function_call' is OpenAI's older form of 'tool_choice'; send that.",
}


def parse_chat(body: object, local_files: bool = False) -> ChatRequest:
    """``local_files``: ``file://`` image URLs are read (a caller on this computer's loopback)."""
    if isinstance(body, dict):
        for name, why in REFUSED_CHAT_FIELDS.items():
            if body.get(name) is not None:
                raise InvalidRequest(why)
        if body.get("echo") not in (None, False):
            raise InvalidRequest(
                "'echo' is for /v1/completions (a prompt scored token by token); a chat reply "
                "does not repeat its messages."
            )
    data = _object(body, CHAT_FIELDS)
    raw = data.get("messages")
    if not isinstance(raw, list) or not raw:
        raise InvalidRequest("'messages' must be a non-empty list of {role, content} objects.")
    if len(raw) > MAX_MESSAGES:
        raise InvalidRequest(f"'messages' has {len(raw)} entries; at most {MAX_MESSAGES}.")
    messages = tuple(_message(m, i, local_files) for i, m in enumerate(raw))
    stream, include_usage = _stream_flags(data)
    tools = parse_tools(data.get("tools"))
    choice = parse_tool_choice(data, tools)
    schema = reply_schema(data.get("response_format"))
    required = call_schema(tools, choice)
    if schema is not None and required is not None:
        raise InvalidRequest(
            "'response_format' and a required tool call ('tool_choice') cannot both shape the "
            "reply; use one."
        )
    shape = required if required is not None else schema
    offered = tools if choice.mode != "none" else ()
    params = replace(
        parse_params(data),
        tools=offered,
        grammar=grammar_for(shape) if shape is not None else None,
        logprobs=_chat_logprobs(data),
        continue_final_message=continues_final_message(data),
        thinking=template_kwargs_thinking(data),
    )
    return ChatRequest(_model(data), messages, params, stream, include_usage, offered, choice)


def parse_completion(body: object) -> CompletionRequest:
    data = _object(body, COMPLETION_FIELDS)
    fmt = data.get("response_format")
    if fmt is not None and fmt != {"type": "text"}:
        raise InvalidRequest("'response_format' is for chat completions (/v1/chat/completions).")
    prompts = parse_prompts(data.get("prompt"))
    echo = flag(data, "echo", False)
    stream, include_usage = _stream_flags(data)
    # 0: the prompt scored alone, nothing generated (OpenAI's meaning, with echo).
    alone = data.get("max_tokens") == 0 and is_int(data.get("max_tokens"))
    if alone and not echo:
        raise InvalidRequest("'max_tokens': 0 generates nothing; it needs 'echo': true.")
    params = parse_params({**data, "max_tokens": 1} if alone else data)
    params = replace(
        params,
        logprobs=_completion_logprobs(data),
        max_tokens=0 if alone else params.max_tokens,
        score_prompt=echo,
    )
    return CompletionRequest(_model(data), prompts, params, stream, include_usage, echo)


def parse_embeddings(body: object) -> EmbeddingRequest:
    data = _object(body, EMBEDDING_FIELDS)
    model = data.get("model")
    if model is not None and not isinstance(model, str):
        raise InvalidRequest("'model' must be a string.")
    raw = data.get("input")
    inputs: list[str]
    if isinstance(raw, str):
        inputs = [raw]
    elif isinstance(raw, list) and raw and all(isinstance(x, str) for x in raw):
        inputs = list(raw)
    else:
        raise InvalidRequest("'input' must be a string or a non-empty list of strings.")
    if len(inputs) > MAX_EMBED_INPUTS:
        raise InvalidRequest(f"'input' has {len(inputs)} entries; at most {MAX_EMBED_INPUTS}.")
    fmt = data.get("encoding_format", "float")
    if fmt not in ("float", "base64"):
        raise InvalidRequest("'encoding_format' must be 'float' or 'base64'.")
    if data.get("dimensions") is not None:
        raise InvalidRequest("'dimensions' is not supported: this model has a fixed size.")
    return EmbeddingRequest(model, tuple(inputs), fmt == "base64")


def parse_load(body: object) -> tuple[str, int | None, bool]:
    data = _object(body, frozenset({"model", "ctx", "stream"}))
    ctx = data.get("ctx")
    if ctx is not None and (not is_int(ctx) or not 256 <= ctx <= 1 << 22):
        raise InvalidRequest("'ctx' must be an integer between 256 and 4194304.")
    return _model(data), ctx, flag(data, "stream", False)


# -- responses ---------------------------------------------------------------------------------


def completion_id(kind: str) -> str:
    return f"{kind}-{uuid.uuid4().hex[:24]}"


def chat_delta(cid: str, model: str, created: int, delta: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": cid,
        "object": "chat.completion.chunk",
        "created": created,
        "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": None}],
    }


def chat_thought(cid: str, model: str, created: int, text: str, first: bool) -> dict[str, Any]:
    """A piece of a reasoning model's thinking, as llama-server and others stream it."""
    delta: dict[str, Any] = {"reasoning_content": text}
    if first:
        delta = {"role": "assistant", "content": None, **delta}
    return chat_delta(cid, model, created, delta)


def chat_final_chunk(
    cid: str, model: str, created: int, final: Chunk, calls: Sequence[ToolCall] = ()
) -> dict[str, Any]:
    return {
        "id": cid,
        "object": "chat.completion.chunk",
        "created": created,
        "model": model,
        "choices": [{"index": 0, "delta": {}, "finish_reason": openai_finish(final, calls)}],
        "usage": usage(final),
        "cove": completion_extras(final),
    }


def chat_call_delta(
    cid: str, model: str, created: int, calls: Sequence[ToolCall], first: bool
) -> dict[str, Any]:
    """The reply's tool calls as one delta, each whole (OpenAI's clients join a call's pieces by
    its ``index``; one piece is a valid stream)."""
    delta: dict[str, Any] = {
        "tool_calls": [{"index": i, **c.to_openai()} for i, c in enumerate(calls)]
    }
    if first:
        delta = {"role": "assistant", "content": None, **delta}
    return chat_delta(cid, model, created, delta)


def chat_response(
    cid: str,
    model: str,
    created: int,
    text: str,
    final: Chunk,
    calls: Sequence[ToolCall] = (),
) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if final.reasoning:
        message["reasoning_content"] = final.reasoning
    if calls:
        message["content"] = text or None
        message["tool_calls"] = [c.to_openai() for c in calls]
    return {
        "id": cid,
        "object": "chat.completion",
        "created": created,
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": openai_finish(final, calls)}],
        "usage": usage(final),
        "cove": completion_extras(final),
    }


def text_chunk(cid: str, model: str, created: int, text: str) -> dict[str, Any]:
    return {
        "id": cid,
        "object": "text_completion",
        "created": created,
        "model": model,
        "choices": [{"index": 0, "text": text, "logprobs": None, "finish_reason": None}],
    }


def text_final(cid: str, model: str, created: int, text: str, final: Chunk) -> dict[str, Any]:
    body = text_chunk(cid, model, created, text)
    body["choices"][0]["finish_reason"] = openai_finish(final)
    body["usage"] = usage(final)
    body["cove"] = completion_extras(final)
    return body


def completions_response(
    cid: str, model: str, created: int, choices: list[dict[str, Any]], finals: Sequence[Chunk]
) -> dict[str, Any]:
    """A whole completions answer of one choice per prompt, its usage added up over them."""
    total = usage(finals[0])
    for final in finals[1:]:
        total = _added(total, usage(final))
    cove = total["cove"]  # the speed over all the prompts read, not the sum of their speeds
    seconds = cove["prompt_read_s"]
    cove["prompt_tokens_per_s"] = round(cove["prompt_read_tokens"] / seconds, 2) if seconds else 0.0
    return {
        "id": cid,
        "object": "text_completion",
        "created": created,
        "model": model,
        "choices": choices,
        "usage": total,
        "cove": completion_extras(finals[-1]),
    }


def _added(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    return {k: _added(v, b[k]) if isinstance(v, dict) else v + b[k] for k, v in a.items()}


def embeddings_response(
    model: str, vectors: Sequence[Sequence[float]], tokens: int, as_base64: bool
) -> dict[str, Any]:
    data = []
    for i, vec in enumerate(vectors):
        value: object = (
            base64.b64encode(struct.pack(f"<{len(vec)}f", *vec)).decode("ascii")
            if as_base64
            else list(vec)
        )
        data.append({"object": "embedding", "index": i, "embedding": value})
    return {
        "object": "list",
        "data": data,
        "model": model,
        "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
    }


def openai_finish(final: Chunk, calls: Sequence[ToolCall] = ()) -> str:
    if calls:
        return "tool_calls"
    return "length" if final.finish_reason == "length" else "stop"


def usage(final: Chunk) -> dict[str, Any]:
    s = final.stats
    prompt = s.prompt_tokens if s else 0
    completion = s.completion_tokens if s else 0
    drafted = s.draft_tokens if s else 0
    accepted = s.accepted_tokens if s else 0
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        # The prompt's tokens read from the KV cache of an earlier request (a shared prefix).
        "prompt_tokens_details": {"cached_tokens": s.cached_tokens if s else 0},
        # OpenAI's fields for guessed tokens the model kept and threw away (its "predicted
        # outputs"), and Cove's own names for speculation.
        "completion_tokens_details": {
            "accepted_prediction_tokens": accepted,
            "rejected_prediction_tokens": drafted - accepted,
        },
        "cove": {
            "draft_tokens": drafted,
            "accepted_tokens": accepted,
            "batched_tokens": s.batched_tokens if s else 0,
            **prompt_reading(s),
        },
    }


def now() -> int:
    return int(time.time())


# -- validation helpers ------------------------------------------------------------------------


def _object(body: object, allowed: frozenset[str]) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise InvalidRequest("The request body must be a JSON object.")
    unknown_fields(body, allowed)
    return body


def _model(data: Mapping[str, Any]) -> str:
    model = data.get("model")
    if not isinstance(model, str) or not model.strip():
        raise InvalidRequest("'model' is required and must be a non-empty string.")
    return model


def _message(raw: object, i: int, local_files: bool = False) -> ChatMessage:
    if not isinstance(raw, dict):
        raise InvalidRequest(f"messages[{i}] must be an object with 'role' and 'content'.")
    # reasoning_content: an earlier reply's thinking, which a template leaves out of the history.
    allowed = ("role", "content", "name", "tool_calls", "tool_call_id", "reasoning_content")
    unknown_fields(raw, allowed, f"messages[{i}]")
    role = raw.get("role")
    if role == "developer":
        role = "system"
    if role not in ROLES:
        raise InvalidRequest(
            f"messages[{i}].role must be one of system, user, assistant, tool (got {role!r})."
        )
    name = raw.get("name")
    if name is not None and not isinstance(name, str):
        raise InvalidRequest(f"messages[{i}].name must be a string.")
    calls: tuple[ToolCall, ...] = ()
    if raw.get("tool_calls") is not None:
        if role != "assistant":
            raise InvalidRequest(f"messages[{i}].tool_calls is for assistant messages.")
        calls = _message_calls(raw["tool_calls"], i)
    call_id = raw.get("tool_call_id")
    if role == "tool":
        if not isinstance(call_id, str) or not call_id:
            raise InvalidRequest(f"messages[{i}] (role tool) needs a 'tool_call_id' string.")
    elif call_id is not None:
        raise InvalidRequest(f"messages[{i}].tool_call_id is for tool messages.")
    content = raw.get("content")
    if content is None and calls:
        content = ""
    text, images = _content(content, i, local_files)
    if images and role != "user":
        raise InvalidRequest(f"messages[{i}]: images are read in user messages only.")
    return ChatMessage(role, text, calls, call_id, name, images)


def _message_calls(raw: object, i: int) -> tuple[ToolCall, ...]:
    where = f"messages[{i}].tool_calls"
    if not isinstance(raw, list):
        raise InvalidRequest(f"{where} must be a list.")
    calls = []
    for j, item in enumerate(raw):
        function = item.get("function") if isinstance(item, dict) else None
        if not isinstance(function, dict) or not isinstance(function.get("name"), str):
            raise InvalidRequest(f"{where}[{j}] needs a 'function' with a 'name'.")
        arguments: object = function.get("arguments", "{}")
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments) if arguments.strip() else {}
            except json.JSONDecodeError:
                raise InvalidRequest(
                    f"{where}[{j}].function.arguments is not valid JSON."
                ) from None
        if not isinstance(arguments, dict):
            raise InvalidRequest(f"{where}[{j}].function.arguments must be a JSON object.")
        call_id = item.get("id")
        if call_id is not None and not isinstance(call_id, str):
            raise InvalidRequest(f"{where}[{j}].id must be a string.")
        if call_id:
            calls.append(ToolCall(function["name"], arguments, call_id))
        else:
            calls.append(ToolCall(function["name"], arguments))
    return tuple(calls)


def _content(
    content: object, i: int, local_files: bool = False
) -> tuple[str, tuple[ImageInput, ...]]:
    """A message's text, and its images (OpenAI ``image_url`` parts) in order."""
    if isinstance(content, str):
        return content, ()
    if isinstance(content, list):
        parts: list[str] = []
        images: list[ImageInput] = []
        for j, part in enumerate(content):
            kind = part.get("type") if isinstance(part, dict) else None
            if kind == "image_url" and isinstance(part, dict):
                if len(images) >= MAX_IMAGES:
                    raise InvalidRequest(f"messages[{i}] has more than {MAX_IMAGES} images.")
                images.append(
                    _image_part(part.get("image_url"), f"messages[{i}].content[{j}]", local_files)
                )
                continue
            if kind != "text" or not isinstance(part, dict):
                raise InvalidRequest(
                    f"messages[{i}].content[{j}]: Cove reads text and image_url parts "
                    f"(got {kind!r})."
                )
            text = part.get("text")
            if not isinstance(text, str):
                raise InvalidRequest(f"messages[{i}].content: a text part needs a 'text' string.")
            parts.append(text)
        return "".join(parts), tuple(images)
    raise InvalidRequest(f"messages[{i}].content must be a string or a list of content parts.")


def _image_part(raw: object, where: str, local_files: bool) -> ImageInput:
    """An ``image_url`` part: a data: URL, or on the local API a file:// path. Cove fetches
    nothing from the network on a model's behalf."""
    url = raw.get("url") if isinstance(raw, dict) else raw
    if not isinstance(url, str) or not url:
        raise InvalidRequest(f"{where}.image_url needs a 'url' string.")
    scheme = url.split(":", 1)[0].lower()
    if scheme == "data":
        return read_data_url(url, f"{where} (image)")
    if scheme in ("http", "https"):
        raise InvalidRequest(
            f"{where}: Cove does not fetch images from the network; send the image itself as a "
            "data: URL (data:image/png;base64,...)."
        )
    if scheme == "file":
        if not local_files:
            raise InvalidRequest(
                f"{where}: file:// images are read only for callers on this computer; send a "
                "data: URL."
            )
        path = Path(unquote(urlsplit(url).path))
        return read_image_file(path)
    raise InvalidRequest(f"{where}: an image URL must be a data: URL (got {scheme}:).")


def _stream_flags(data: Mapping[str, Any]) -> tuple[bool, bool]:
    stream = flag(data, "stream", False)
    opts = data.get("stream_options")
    include_usage = False
    if opts is not None:
        if not isinstance(opts, dict) or set(opts) - {"include_usage"}:
            raise InvalidRequest("'stream_options' may only hold 'include_usage'.")
        include_usage = flag(opts, "include_usage", False)
    n = data.get("n", 1)
    if n != 1 or isinstance(n, bool):
        raise InvalidRequest("'n' must be 1: one choice per request.")
    for name in ("presence_penalty", "frequency_penalty"):
        value = data.get(name)
        if value is not None and (not is_number(value) or not -2.0 <= value <= 2.0):
            raise InvalidRequest(f"'{name}' must be a number between -2 and 2.")
    user = data.get("user")
    if user is not None and not isinstance(user, str):
        raise InvalidRequest("'user' must be a string.")
    return stream, include_usage


def _chat_logprobs(data: Mapping[str, Any]) -> int | None:
    """Chat: ``logprobs: true`` asks for them, ``top_logprobs`` (0-20) for alternatives."""
    wanted = flag(data, "logprobs", False)
    top = data.get("top_logprobs")
    if top is not None and (not is_int(top) or not 0 <= top <= TOP_LOGPROBS_MAX):
        raise InvalidRequest(f"'top_logprobs' must be an integer from 0 to {TOP_LOGPROBS_MAX}.")
    if top is not None and not wanted:
        raise InvalidRequest("'top_logprobs' needs 'logprobs': true.")
    return (top or 0) if wanted else None


def _completion_logprobs(data: Mapping[str, Any]) -> int | None:
    """Completions: ``logprobs`` is the number of alternatives (0-20), or null for none."""
    value = data.get("logprobs")
    if value is None:
        return None
    if not is_int(value) or not 0 <= value <= TOP_LOGPROBS_MAX:
        raise InvalidRequest(f"'logprobs' must be an integer from 0 to {TOP_LOGPROBS_MAX}.")
    return int(value)


def chat_logprobs(tokens: Sequence[TokenLogprob], _offset: int = 0) -> dict[str, Any]:
    """OpenAI's chat ``logprobs``: each token with its alternatives."""

    def one(text: str, logprob: float, raw: tuple[int, ...]) -> dict[str, Any]:
        return {"token": text, "logprob": logprob, "bytes": list(raw)}

    return {
        "content": [
            {**one(t.token, t.logprob, t.bytes), "top_logprobs": [one(*alt) for alt in t.top]}
            for t in tokens
        ],
        "refusal": None,
    }


def completion_logprobs(tokens: Sequence[TokenLogprob], offset: int = 0) -> dict[str, Any]:
    """The completions API's ``logprobs``: parallel lists, ``text_offset`` counted in characters
    from the start of the reply (engine/host/protocols/echo.py)."""
    return logprobs_block(tokens, offset)
