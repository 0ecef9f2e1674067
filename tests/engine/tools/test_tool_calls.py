"""Tool calls out of model text in each family's format and in what small models write instead;
validation against the tool's schema; prose held back only where a call could begin; the
fallback that puts tools into a template that knows nothing of them; the API's 400s."""

from __future__ import annotations

import json
from typing import Any

import pytest

from engine.errors import InvalidRequest
from engine.host.protocols import wire
from engine.host.protocols.tool_stream import Held, hold_calls
from engine.templates import fallback, render
from engine.tools import Tool, ToolCall, ToolChoice
from engine.tools.calls import parse_calls, prose_end
from engine.tools.constrain import call_schema, grammar_for
from engine.types import ChatMessage, Chunk

WEATHER = Tool(
    "get_weather",
    "Current weather for a city",
    {
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
        },
        "required": ["city"],
    },
)
TIME = Tool("get_time", "The time in a zone", {"type": "object", "properties": {}})
TOOLS = (WEATHER, TIME)
ARGS = '{"city": "Paris", "unit": "celsius"}'


@pytest.mark.parametrize(
    "text",
    [
        f'<tool_call>\n{{"name": "get_weather", "arguments": {ARGS}}}\n</tool_call>',
        f'[TOOL_CALLS] [{{"name": "get_weather", "arguments": {ARGS}}}]',
        f'<|python_tag|>{{"name": "get_weather", "parameters": {ARGS}}}<|eom_id|>',
        f'<|tool_call|>[{{"name": "get_weather", "arguments": {ARGS}}}]<|/tool_call|>',
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n"
        f"```json\n{ARGS}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
        f'```json\n{{"name": "get_weather", "arguments": {ARGS}}}\n```',
        f'{{"name": "get_weather", "arguments": {ARGS}}}',
        json.dumps({"type": "function", "function": {"name": "get_weather", "arguments": ARGS}}),
    ],
    ids=["hermes", "mistral", "llama3", "phi4", "deepseek", "fenced", "bare", "openai-shape"],
)
def test_every_family_format_gives_the_same_call(text: str) -> None:
    parsed = parse_calls(text, TOOLS)
    assert [(c.name, c.arguments) for c in parsed.calls] == [
        ("get_weather", {"city": "Paris", "unit": "celsius"})
    ]
    assert parsed.content == ""


def test_prose_around_calls_stays_content_and_parallel_calls_all_come_back() -> None:
    text = (
        "Let me check both.\n"
        f'<tool_call>{{"name": "get_weather", "arguments": {ARGS}}}</tool_call>\n'
        '<tool_call>{"name": "get_time", "arguments": {}}</tool_call>'
    )
    parsed = parse_calls(text, TOOLS)
    assert [c.name for c in parsed.calls] == ["get_weather", "get_time"]
    assert parsed.content == "Let me check both."
    assert parsed.calls[0].id != parsed.calls[1].id


def test_an_undeclared_tool_or_arguments_off_schema_are_never_calls() -> None:
    undeclared = '<tool_call>{"name": "rm_rf", "arguments": {"path": "/"}}</tool_call>'
    parsed = parse_calls(undeclared, TOOLS)
    assert parsed.calls == ()
    assert parsed.content == undeclared
    assert "not a declared tool" in parsed.rejected[0]
    wrong = '{"name": "get_weather", "arguments": {"city": "Paris", "unit": "kelvin"}}'
    parsed = parse_calls(wrong, TOOLS)
    assert parsed.calls == ()
    assert "unit" in parsed.rejected[0]
    missing = '{"name": "get_weather", "arguments": {}}'
    assert parse_calls(missing, TOOLS).calls == ()


def test_json_that_names_no_tool_and_code_blocks_stay_text() -> None:
    for text in ('{"city": "Paris"}', "```python\nprint('hi')\n```", "The answer is 4."):
        parsed = parse_calls(text, TOOLS)
        assert parsed.calls == ()
        assert parsed.content == text


def test_prose_streams_until_a_call_could_begin() -> None:
    assert prose_end("The weather is") == len("The weather is")
    assert prose_end("Checking <tool_c") == len("Checking ")
    assert prose_end("Checking <tool_call>{") == len("Checking ")
    assert prose_end('{"name"') == 0
    assert prose_end("  [") == 0
    assert prose_end("Use a set [1, 2]") == len("Use a set [1, 2]")


def test_a_streamed_reply_holds_the_call_and_lets_the_prose_through() -> None:
    pieces = [
        "I will ",
        "look.",
        " <tool",
        '_call>{"name": "get_time", ',
        '"arguments": {}}',
        "</tool_call>",
    ]
    chunks = [Chunk(text=p) for p in pieces] + [Chunk(finish_reason="stop")]
    held = Held()
    out = list(hold_calls(iter(chunks), TOOLS, True, held))
    text = "".join(c.text for c in out if not c.is_terminal)
    assert text == "I will look."
    assert "tool_call" not in text
    assert [c.name for c in held.calls] == ["get_time"]
    assert out[-1].is_terminal


def test_a_streamed_reply_that_is_not_a_call_comes_out_whole() -> None:
    pieces = ["Here:\n", "```python\n", "x = 1\n", "```"]
    chunks = [Chunk(text=p) for p in pieces] + [Chunk(finish_reason="stop")]
    held = Held()
    out = list(hold_calls(iter(chunks), TOOLS, True, held))
    assert "".join(c.text for c in out) == "".join(pieces)
    assert held.calls == ()


def test_a_template_without_tools_gets_them_through_the_fallback() -> None:
    chatml = fallback("chatml")
    messages = [
        ChatMessage("user", "Weather in Paris?"),
        ChatMessage("assistant", "", (ToolCall("get_weather", {"city": "Paris"}, "call_1"),)),
        ChatMessage("tool", '{"temperature": 18}', tool_call_id="call_1"),
    ]
    prompt = render(chatml, messages, tools=TOOLS)
    assert '"name": "get_weather"' in prompt  # the tool list, in the system turn
    assert prompt.startswith("<|im_start|>system\n")
    assert '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}' in prompt
    assert '<tool_response>\n{"temperature": 18}\n</tool_response>' in prompt
    assert prompt.endswith("<|im_start|>assistant\n")


def test_a_required_call_is_a_grammar_that_admits_only_declared_calls() -> None:
    schema = call_schema(TOOLS, ToolChoice("function", "get_weather", parallel=False))
    assert schema is not None
    assert schema["properties"]["name"] == {"const": "get_weather"}
    grammar = grammar_for(schema)
    assert "get_weather" in grammar and "get_time" not in grammar
    several = call_schema(TOOLS, ToolChoice("required"))
    assert several is not None and several["type"] == "array"
    assert call_schema(TOOLS, ToolChoice("auto")) is None


def _chat(**extra: Any) -> dict[str, Any]:
    return {"model": "m", "messages": [{"role": "user", "content": "hi"}], **extra}


TOOL_JSON = [WEATHER.to_openai()]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        (_chat(tools={"type": "function"}), "'tools'"),
        (_chat(tools=[{"type": 5}]), "tools[0].type"),
        (
            _chat(tools=[{"type": "function", "function": {"name": "bad name!"}}]),
            "tools[0].function.name",
        ),
        (
            _chat(
                tools=[{"type": "function", "function": {"name": "f", "parameters": {"type": 5}}}]
            ),
            "tools[0].function.parameters",
        ),
        (_chat(tools=TOOL_JSON, tool_choice="always"), "'tool_choice'"),
        (
            _chat(tools=TOOL_JSON, tool_choice={"type": "function", "function": {"name": "nope"}}),
            "nope",
        ),
        (_chat(tool_choice="required"), "declares none"),
        (_chat(tools=TOOL_JSON, parallel_tool_calls="yes"), "parallel_tool_calls"),
        (_chat(response_format={"type": "xml"}), "response_format.type"),
        (
            _chat(
                response_format={"type": "json_schema", "json_schema": {"schema": {"type": "nope"}}}
            ),
            "schema",
        ),
        (
            _chat(tools=TOOL_JSON, tool_choice="required", response_format={"type": "json_object"}),
            "cannot both",
        ),
        ({"model": "m", "messages": [{"role": "tool", "content": "x"}]}, "tool_call_id"),
    ],
)
def test_malformed_tool_fields_are_a_400_naming_the_field(body: dict[str, Any], field: str) -> None:
    with pytest.raises(InvalidRequest) as caught:
        wire.parse_chat(body)
    assert field in str(caught.value)


def test_a_tool_round_trip_request_parses_into_engine_values() -> None:
    body = {
        "model": "m",
        "messages": [
            {"role": "user", "content": "Weather?"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_7",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": ARGS},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "call_7", "content": "18 C"},
        ],
        "tools": TOOL_JSON,
        "tool_choice": {"type": "function", "function": {"name": "get_weather"}},
        "parallel_tool_calls": False,
    }
    req = wire.parse_chat(body)
    assert req.messages[1].tool_calls[0] == ToolCall("get_weather", json.loads(ARGS), "call_7")
    assert req.messages[2].tool_call_id == "call_7"
    assert req.tool_choice == ToolChoice("function", "get_weather", parallel=False)
    assert req.params.grammar is not None and req.params.tools == (
        Tool("get_weather", WEATHER.description, WEATHER.parameters),
    )
    none = wire.parse_chat({**body, "tool_choice": "none"})
    assert none.params.tools == () and none.params.grammar is None
