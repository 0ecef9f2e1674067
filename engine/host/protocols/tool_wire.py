"""OpenAI's tool and structured-output fields, validated: ``tools``, ``tool_choice``,
``parallel_tool_calls`` and ``response_format``. A malformed value is a 400 naming the field."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from engine.errors import InvalidRequest
from engine.host.http.leniency import ignore, unknown_fields
from engine.tools import Tool, ToolChoice
from engine.tools.constrain import ANY_JSON_OBJECT

MAX_TOOLS = 128
_FUNCTION_FIELDS = ("name", "description", "parameters", "strict")
_NAME = re.compile(r"^[A-Za-z0-9_\-.]{1,64}$")


def parse_tools(raw: object) -> tuple[Tool, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise InvalidRequest("'tools' must be a list of {type: 'function', function: {...}}.")
    if len(raw) > MAX_TOOLS:
        raise InvalidRequest(f"'tools' has {len(raw)} entries; at most {MAX_TOOLS}.")
    tools: list[Tool] = []
    for i, item in enumerate(raw):
        where = f"tools[{i}]"
        if not isinstance(item, dict) or not isinstance(item.get("type"), str):
            raise InvalidRequest(f"{where}.type must be 'function'.")
        if item["type"] != "function":
            ignore(f"{where} (a {item['type']} tool: Cove offers function tools)")
            continue
        unknown_fields(item, ("type", "function"), where)
        function = item.get("function")
        if not isinstance(function, dict):
            raise InvalidRequest(f"{where}.function must be an object.")
        unknown_fields(function, _FUNCTION_FIELDS, f"{where}.function")
        name = function.get("name")
        if not isinstance(name, str) or not _NAME.match(name):
            raise InvalidRequest(
                f"{where}.function.name must be 1-64 letters, digits, '_', '-' or '.'."
            )
        if any(t.name == name for t in tools):
            raise InvalidRequest(f"{where}.function.name {name!r} is declared twice.")
        description = function.get("description", "")
        if not isinstance(description, str):
            raise InvalidRequest(f"{where}.function.description must be a string.")
        parameters = function.get("parameters", {"type": "object", "properties": {}})
        check_schema(parameters, f"{where}.function.parameters")
        strict = function.get("strict", False)
        if not isinstance(strict, bool):
            raise InvalidRequest(f"{where}.function.strict must be true or false.")
        tools.append(Tool(name, description, parameters, strict))
    return tuple(tools)


def parse_tool_choice(data: Mapping[str, Any], tools: tuple[Tool, ...]) -> ToolChoice:
    raw = data.get("tool_choice")
    parallel = data.get("parallel_tool_calls", True)
    if not isinstance(parallel, bool):
        raise InvalidRequest("'parallel_tool_calls' must be true or false.")
    if raw is None:
        return ToolChoice("auto", None, parallel)
    if raw in ("auto", "none", "required"):
        if raw == "required" and not tools:
            raise InvalidRequest("'tool_choice' is 'required' but 'tools' declares none.")
        return ToolChoice(raw, None, parallel)
    function = raw.get("function") if isinstance(raw, dict) else None
    name = function.get("name") if isinstance(function, dict) else None
    if not isinstance(raw, dict) or raw.get("type") != "function" or not isinstance(name, str):
        raise InvalidRequest(
            "'tool_choice' must be 'auto', 'none', 'required' or "
            "{type: 'function', function: {name: ...}}."
        )
    if not any(t.name == name for t in tools):
        raise InvalidRequest(f"'tool_choice' names {name!r}, which 'tools' does not declare.")
    return ToolChoice("function", name, parallel)


def reply_schema(raw: object) -> dict[str, Any] | None:
    """The JSON schema a reply must match for ``response_format``; None for plain text."""
    if raw is None or raw == {"type": "text"}:
        return None
    kind = raw.get("type") if isinstance(raw, dict) else None
    if kind == "json_object":
        return ANY_JSON_OBJECT
    if kind != "json_schema" or not isinstance(raw, dict):
        raise InvalidRequest(
            "'response_format.type' must be 'text', 'json_object' or 'json_schema'."
        )
    spec = raw.get("json_schema")
    if not isinstance(spec, dict):
        raise InvalidRequest("'response_format.json_schema' must be an object with a 'schema'.")
    extra = sorted(set(spec) - {"name", "description", "schema", "strict"})
    if extra:
        raise InvalidRequest(
            f"'response_format.json_schema' has an unsupported field {extra[0]!r}."
        )
    name = spec.get("name", "response")
    if not isinstance(name, str) or not _NAME.match(name):
        raise InvalidRequest("'response_format.json_schema.name' must be 1-64 letters or digits.")
    schema = spec.get("schema", ANY_JSON_OBJECT)
    check_schema(schema, "response_format.json_schema.schema")
    return schema if isinstance(schema, dict) else ANY_JSON_OBJECT


def check_schema(schema: object, where: str) -> None:
    import jsonschema

    if not isinstance(schema, dict):
        raise InvalidRequest(f"'{where}' must be a JSON schema object.")
    try:
        jsonschema.validators.validator_for(schema).check_schema(schema)
    except jsonschema.exceptions.SchemaError as exc:
        raise InvalidRequest(f"'{where}' is not a valid JSON schema: {exc.message}") from None
