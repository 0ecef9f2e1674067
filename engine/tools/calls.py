"""Tool calls out of a model's reply, in every format the catalog's families write, and in what
small models write instead.

Formats recognised:

- Hermes / Qwen: ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>`` (one block per call);
- Mistral: ``[TOOL_CALLS] [{"name": ..., "arguments": {...}}, ...]``;
- Llama 3.x: ``<|python_tag|>{"name": ..., "parameters": {...}}`` or the bare object;
- Phi-4-mini: ``<|tool_call|>[...]<|/tool_call|>``;
- DeepSeek: ``<｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME`` then a fenced JSON object;
- what small models emit instead: a fenced (```json) or bare JSON object, or a list of them,
  naming a declared tool with ``arguments`` or ``parameters``.

A call is returned only when it names a declared tool and its arguments validate against that
tool's JSON schema; anything else stays text. What is left of the reply once the calls are taken
out is its content.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine.tools import Tool, ToolCall

_BLOCKS = (
    re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.S),
    re.compile(r"<\|tool_call\|>\s*(.*?)\s*(?:<\|/tool_call\|>|$)", re.S),
    re.compile(r"\[TOOL_CALLS\]\s*(.*)$", re.S),
    re.compile(r"<\|python_tag\|>\s*(.*?)\s*(?:<\|eom_id\|>|<\|eot_id\|>|$)", re.S),
    re.compile(r"```(?:json|tool_call)?\s*\n?(.*?)```", re.S),
)
_DEEPSEEK = re.compile(
    r"<｜tool▁call▁begin｜>\s*function\s*<｜tool▁sep｜>\s*([\w.\-]+)\s*"
    r"```(?:json)?\s*(.*?)```\s*(?:<｜tool▁call▁end｜>)?",
    re.S,
)
_DEEPSEEK_WRAP = re.compile(r"<｜tool▁calls▁(?:begin|end)｜>")
# Where a call may begin in a streamed reply: text before the earliest of these is prose.
MARKERS = (
    "<tool_call>",
    "<|tool_call|>",
    "[TOOL_CALLS]",
    "<|python_tag|>",
    "<｜tool▁calls▁begin｜>",
    "<｜tool▁call▁begin｜>",
    "```",
)


@dataclass(frozen=True, slots=True)
class Parsed:
    content: str
    calls: tuple[ToolCall, ...]
    rejected: tuple[str, ...] = ()  # why a call-shaped object was not returned as a call


def parse_calls(text: str, tools: Sequence[Tool]) -> Parsed:
    """The reply's valid calls to declared ``tools``, and its content without them."""
    if not tools:
        return Parsed(text, ())
    declared = {tool.name: tool for tool in tools}
    calls: list[ToolCall] = []
    rejected: list[str] = []
    spans: list[tuple[int, int]] = []

    def take(start: int, end: int, objects: list[Any]) -> None:
        found = False
        for obj in objects:
            call, why = _call(obj, declared)
            if call is not None:
                calls.append(call)
                found = True
            elif why:
                rejected.append(why)
        if found:
            spans.append((start, end))

    for match in _DEEPSEEK.finditer(text):
        arguments = _json(match.group(2))
        take(match.start(), match.end(), [{"name": match.group(1), "arguments": arguments}])
    for pattern in _BLOCKS:
        for match in pattern.finditer(text):
            if any(s <= match.start() < e for s, e in spans):
                continue
            take(match.start(), match.end(), _objects(match.group(1)))
    if not spans:
        stripped = text.strip()
        if stripped[:1] in "{[":
            take(0, len(text), _objects(stripped))
    content = text
    for start, end in sorted(spans, reverse=True):
        content = content[:start] + content[end:]
    content = _DEEPSEEK_WRAP.sub("", content).strip() if calls else text
    return Parsed(content, tuple(calls), tuple(rejected))


def _objects(raw: str) -> list[Any]:
    """The JSON values in ``raw``: one value, a list of them, or several written one after
    another (one per line, as some models do)."""
    value = _json(raw)
    if value is not None:
        return value if isinstance(value, list) else [value]
    decoder = json.JSONDecoder()
    out: list[Any] = []
    index = 0
    raw = raw.strip()
    while index < len(raw):
        start = min((i for i in (raw.find("{", index), raw.find("[", index)) if i >= 0), default=-1)
        if start < 0:
            break
        try:
            value, index = decoder.raw_decode(raw, start)
        except json.JSONDecodeError:
            index = start + 1
            continue
        out.extend(value if isinstance(value, list) else [value])
    return out


def _json(raw: str) -> Any:
    try:
        return json.loads(raw.strip())
    except (json.JSONDecodeError, ValueError):
        return None


def _call(obj: Any, declared: dict[str, Tool]) -> tuple[ToolCall | None, str | None]:
    if not isinstance(obj, dict):
        return None, None
    if isinstance(obj.get("function"), dict):  # {"type": "function", "function": {...}}
        obj = obj["function"]
    name = obj.get("name")
    if not isinstance(name, str):
        return None, None
    arguments = obj.get("arguments", obj.get("parameters", {}))
    if isinstance(arguments, str):  # OpenAI's own shape: arguments as a JSON string
        arguments = _json(arguments) if arguments.strip() else {}
    if name not in declared:
        return None, f"{name!r} is not a declared tool"
    if not isinstance(arguments, dict):
        return None, f"the arguments of {name!r} are not a JSON object"
    problem = schema_problem(arguments, declared[name].parameters)
    if problem:
        return None, f"the arguments of {name!r} do not match its schema: {problem}"
    return ToolCall(name, arguments), None


def schema_problem(value: Any, schema: dict[str, Any]) -> str | None:
    """None when ``value`` matches the JSON ``schema``, else the first mismatch, in words."""
    import jsonschema

    try:
        validator = jsonschema.validators.validator_for(schema)(schema)
        error = jsonschema.exceptions.best_match(validator.iter_errors(value))
    except jsonschema.exceptions.SchemaError as exc:
        return f"the schema is invalid ({exc.message})"
    if error is None:
        return None
    where = "/".join(str(p) for p in error.absolute_path)
    return f"{where}: {error.message}" if where else error.message


def prose_end(text: str, *, at_start_only: tuple[str, ...] = ("{", "[")) -> int:
    """How much of a reply streamed so far is certainly prose: up to the earliest place a call
    could begin (a marker, a marker's first characters at the very end, or a JSON value opening
    the reply)."""
    stripped = text.lstrip()
    if stripped[:1] in at_start_only:
        return 0
    cut = len(text)
    for marker in MARKERS:
        found = text.find(marker)
        if found >= 0:
            cut = min(cut, found)
            continue
        for size in range(min(len(marker) - 1, len(text)), 0, -1):
            if text.endswith(marker[:size]):
                cut = min(cut, len(text) - size)
                break
    return cut
