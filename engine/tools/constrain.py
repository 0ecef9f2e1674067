"""What a reply must be, as a JSON schema, and that schema as a grammar for llama.cpp's sampler.

Constrained decoding masks every token that would leave the grammar, so the reply always parses
and matches the schema. The grammar is llama.cpp's GBNF, written from the schema by the converter
llama-cpp-python ships with the runtime (the same rules llama.cpp's own server uses): one
implementation of JSON Schema to grammar, kept by the runtime's authors, not a second one here.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from engine.errors import InvalidRequest
from engine.tools import Tool, ToolChoice

ANY_JSON_OBJECT: dict[str, Any] = {"type": "object"}


def call_schema(tools: Sequence[Tool], choice: ToolChoice) -> dict[str, Any] | None:
    """The shape a reply must have when a call is required (``required`` or a named function):
    one call object, or with parallel calls allowed, a list of one or more. None otherwise."""
    if choice.mode not in ("required", "function"):
        return None
    chosen = [t for t in tools if choice.mode == "required" or t.name == choice.name]
    one = [
        {
            "type": "object",
            "properties": {"name": {"const": t.name}, "arguments": _arguments(t.parameters)},
            "required": ["name", "arguments"],
        }
        for t in chosen
    ]
    call = one[0] if len(one) == 1 else {"anyOf": one}
    if choice.parallel and choice.mode == "required":
        return {"type": "array", "items": call, "minItems": 1}
    return call


def _arguments(parameters: dict[str, Any]) -> dict[str, Any]:
    return parameters if parameters.get("type") == "object" else {"type": "object"}


def grammar_for(schema: dict[str, Any]) -> str:
    """GBNF accepting exactly the JSON texts that match ``schema``; a schema the converter cannot
    handle is a clear 400."""
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    try:
        return str(json_schema_to_gbnf(json.dumps(schema)))
    except Exception as exc:  # the converter raises plain Exception/ValueError/KeyError
        raise InvalidRequest(
            f"The JSON schema cannot be enforced while decoding ({type(exc).__name__}: {exc})."
        ) from None
