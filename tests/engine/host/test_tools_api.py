"""Tools and structured output through the official ``openai`` client against a real engine host
on a real tool-trained model (Qwen2.5-Coder-0.5B-Instruct): a call, its result and the answer,
streamed and not; a required or named call always valid against its schema; JSON replies that
always parse and validate, even where the prompt invites prose; malformed requests are 400s."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import openai
import pytest

from engine.client.local import LocalEngine
from tests.engine.conftest import tool_host

WEATHER: Any = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "The current weather in a city",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            },
            "required": ["city"],
        },
    },
}
CONVERT: Any = {
    "type": "function",
    "function": {
        "name": "convert_currency",
        "description": "Convert an amount of money from one currency to another",
        "parameters": {
            "type": "object",
            "properties": {
                "amount": {"type": "number"},
                "source": {"type": "string"},
                "target": {"type": "string"},
            },
            "required": ["amount", "source", "target"],
        },
    },
}
TOOLS: Any = [WEATHER, CONVERT]
SCHEMAS = {t["function"]["name"]: t["function"]["parameters"] for t in TOOLS}
ASK: Any = [{"role": "user", "content": "What is the weather like in Paris right now?"}]


@pytest.fixture(scope="module")
def host(tool_model: Path) -> Iterator[LocalEngine]:
    with tool_host(tool_model) as engine:
        yield engine


def valid_call(call: Any) -> dict[str, Any]:
    """The call's arguments, after checking them against the declared tool's schema."""
    assert call.type == "function"
    assert call.function.name in SCHEMAS
    arguments: dict[str, Any] = json.loads(call.function.arguments)
    jsonschema.validate(arguments, SCHEMAS[call.function.name])
    assert call.id
    return arguments


def test_a_tool_round_trip_without_streaming(oai: openai.OpenAI, model_id: str) -> None:
    first = oai.chat.completions.create(
        model=model_id,
        messages=ASK,
        tools=TOOLS,
        tool_choice="required",
        temperature=0,
        max_tokens=96,
    )
    choice = first.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.tool_calls
    call = choice.message.tool_calls[0]
    valid_call(call)
    result = {"city": "Paris", "temperature_c": 18, "sky": "light rain"}
    follow: Any = [
        *ASK,
        {"role": "assistant", "content": None, "tool_calls": [call.model_dump()]},
        {"role": "tool", "tool_call_id": call.id, "content": json.dumps(result)},
    ]
    final = oai.chat.completions.create(
        model=model_id,
        messages=follow,
        tools=TOOLS,
        tool_choice="none",
        temperature=0,
        max_tokens=64,
    )
    answer = final.choices[0]
    assert answer.finish_reason in ("stop", "length")
    assert answer.message.tool_calls is None
    assert answer.message.content and answer.message.content.strip()


def test_a_tool_call_streams_as_openai_deltas(oai: openai.OpenAI, model_id: str) -> None:
    stream = oai.chat.completions.create(
        model=model_id,
        messages=ASK,
        tools=TOOLS,
        tool_choice="required",
        temperature=0,
        max_tokens=96,
        stream=True,
    )
    calls: dict[int, dict[str, str]] = {}
    finish = None
    content = ""
    for chunk in stream:
        if not chunk.choices:
            continue
        delta = chunk.choices[0].delta
        content += delta.content or ""
        for part in delta.tool_calls or []:
            slot = calls.setdefault(part.index, {"id": "", "name": "", "arguments": ""})
            slot["id"] += part.id or ""
            if part.function is not None:
                slot["name"] += part.function.name or ""
                slot["arguments"] += part.function.arguments or ""
        finish = chunk.choices[0].finish_reason or finish
    assert finish == "tool_calls"
    assert calls and "<tool_call>" not in content
    for slot in calls.values():
        assert slot["id"] and slot["name"] in SCHEMAS
        jsonschema.validate(json.loads(slot["arguments"]), SCHEMAS[slot["name"]])


@pytest.mark.parametrize(
    "question",
    [
        "What is the weather like in Paris right now?",
        "Write me a haiku about autumn.",  # needs no tool: the named call is forced all the same
        "How many euros is 120 US dollars?",
    ],
)
def test_a_named_function_is_always_a_valid_call(
    oai: openai.OpenAI, model_id: str, question: str
) -> None:
    reply = oai.chat.completions.create(
        model=model_id,
        messages=[{"role": "user", "content": question}],
        tools=TOOLS,
        tool_choice={"type": "function", "function": {"name": "convert_currency"}},
        temperature=0,
        max_tokens=96,
    )
    calls: Any = reply.choices[0].message.tool_calls
    assert calls and len(calls) == 1
    assert calls[0].function.name == "convert_currency"
    valid_call(calls[0])


PERSON = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "maxLength": 40},
        "age": {"type": "integer", "minimum": 0},
        "languages": {
            "type": "array",
            "items": {"type": "string", "maxLength": 20},
            "maxItems": 4,
        },
    },
    "required": ["name", "age", "languages"],
    "additionalProperties": False,
}


@pytest.mark.parametrize(
    "prompt",
    [
        "Describe a fictional software engineer.",
        "Tell me a long story about a cat, in prose, with no JSON at all.",
        "Reply only with the word hello.",
    ],
)
def test_a_json_schema_reply_always_parses_and_validates(
    oai: openai.OpenAI, model_id: str, prompt: str
) -> None:
    reply = oai.chat.completions.create(
        model=model_id,
        messages=[{"role": "user", "content": prompt}],
        response_format={
            "type": "json_schema",
            "json_schema": {"name": "person", "schema": PERSON, "strict": True},
        },
        temperature=0.7,
        seed=3,
        max_tokens=200,
    )
    content = reply.choices[0].message.content
    assert content is not None
    # Bounded strings and lists: the grammar closes the object well inside max_tokens.
    assert reply.choices[0].finish_reason == "stop"
    jsonschema.validate(json.loads(content), PERSON)


def test_json_object_mode_gives_an_object(oai: openai.OpenAI, model_id: str) -> None:
    reply = oai.chat.completions.create(
        model=model_id,
        messages=[{"role": "user", "content": "List three colours."}],
        response_format={"type": "json_object"},
        temperature=0,
        max_tokens=120,
    )
    assert isinstance(json.loads(reply.choices[0].message.content or ""), dict)


def test_malformed_tools_are_a_400_naming_the_field(oai: openai.OpenAI, model_id: str) -> None:
    bad: Any = [{"type": "function", "function": {"name": "x", "parameters": {"type": 3}}}]
    with pytest.raises(openai.BadRequestError, match=r"tools\[0\]\.function\.parameters"):
        oai.chat.completions.create(model=model_id, messages=ASK, tools=bad)
    with pytest.raises(openai.BadRequestError, match="tool_choice"):
        oai.chat.completions.create(
            model=model_id,
            messages=ASK,
            tools=TOOLS,
            tool_choice={"type": "function", "function": {"name": "missing"}},
        )


# -- MCP servers' tools through Cove's own client: the loop the window and the terminal run ------


def test_an_mcp_tool_round_trip_through_the_engine_client(
    host: LocalEngine, model_id: str, tmp_path: Path
) -> None:
    from engine.mcp_servers import config
    from engine.mcp_servers.consent import ConsentStore
    from engine.mcp_servers.hub import McpHub
    from engine.mcp_servers.turn import run_turn
    from engine.types import ChatMessage, GenerationParams
    from tests.mcp_servers import NOTES, entry

    servers = config.parse({"mcpServers": {"notes": entry(NOTES)}})
    with McpHub(servers, tmp_path) as hub:
        result = run_turn(
            lambda messages, params: host.client.chat(messages, params, model=model_id),
            [ChatMessage("user", "Use the add tool: what is 1234 plus 4321?")],
            GenerationParams(temperature=0.0, max_tokens=120),
            hub,
            ConsentStore(tmp_path / "consent.json"),
            lambda _tool, _call: "once",
        )
    done = [c for c in result.calls if c.tool == "add" and c.state == "done"]
    assert done, f"no call to add ran: {result.calls}"
    # The arguments the engine returned were checked against the server's own schema, and the
    # server's answer went back to the model as the call's result.
    assert all(isinstance(c.arguments["a"], int) for c in done)
    results = [m for m in result.messages if m.role == "tool"]
    assert results[0].content == str(done[0].arguments["a"] + done[0].arguments["b"])
    assert result.final.finish_reason in ("stop", "length")


def test_cove_chat_with_mcp_at_the_terminal(tool_model: Path, tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    from tests.mcp_servers import CRASHES, NOTES, entry

    servers = tmp_path / "mcp.json"
    servers.write_text(
        json.dumps({"mcpServers": {"notes": entry(NOTES), "broken": entry(CRASHES)}})
    )
    env = {**os.environ, "COVE_DATA_DIR": str(tmp_path / "data")}
    done = subprocess.run(
        [sys.executable, "-m", "engine.cli", "chat", "--model", str(tool_model),
         "--mcp", str(servers), "--yes", "--temperature", "0", "--max-tokens", "120",
         "Use the add tool: what is 1234 plus 4321?"],
        capture_output=True, text=True, env=env, timeout=600, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert "[notes: ready, 4 tools" in done.stderr
    assert "[broken: failed" in done.stderr and "notes database not found" in done.stderr
    assert "[notes.add result: " in done.stderr


# -- logprobs ----------------------------------------------------------------------------------


def _check_distribution(entries: list[Any], greedy: bool) -> None:
    for entry in entries:
        assert entry.logprob <= 0.0
        assert bytes(entry.bytes).decode("utf-8", "replace") == entry.token
        tops = entry.top_logprobs
        assert len(tops) == 5
        assert [t.logprob for t in tops] == sorted((t.logprob for t in tops), reverse=True)
        # Probabilities of distinct tokens: together at most 1.
        assert sum(math.exp(t.logprob) for t in tops) <= 1.0 + 1e-6
        if greedy:  # the chosen token is the most likely one
            assert math.isclose(entry.logprob, tops[0].logprob, abs_tol=1e-6)


def test_chat_logprobs_describe_the_reply(oai: openai.OpenAI, model_id: str) -> None:
    reply = oai.chat.completions.create(
        model=model_id,
        messages=[{"role": "user", "content": "Name three colours."}],
        temperature=0,
        max_tokens=24,
        logprobs=True,
        top_logprobs=5,
        extra_body={"repeat_penalty": 1.0},
    )
    choice = reply.choices[0]
    assert choice.logprobs is not None and choice.logprobs.content
    entries = choice.logprobs.content
    assert "".join(e.token for e in entries) == choice.message.content
    assert reply.usage is not None and len(entries) == reply.usage.completion_tokens
    _check_distribution(entries, greedy=True)


def test_streamed_logprobs_follow_the_text(oai: openai.OpenAI, model_id: str) -> None:
    stream = oai.chat.completions.create(
        model=model_id,
        messages=[{"role": "user", "content": "Count from one to five in words."}],
        temperature=0.8,
        seed=7,
        max_tokens=24,
        logprobs=True,
        top_logprobs=5,
        stream=True,
    )
    text, entries = "", []
    for chunk in stream:
        for choice in chunk.choices:
            text += choice.delta.content or ""
            if choice.logprobs is not None and choice.logprobs.content:
                entries.extend(choice.logprobs.content)
    assert entries and "".join(e.token for e in entries) == text
    _check_distribution(entries, greedy=False)


def test_completion_logprobs(oai: openai.OpenAI, model_id: str) -> None:
    reply = oai.completions.create(
        model=model_id,
        prompt="The capital of France is",
        max_tokens=8,
        temperature=0,
        logprobs=3,
        # Greedy on the model's own distribution: what logprobs report, before any penalty.
        extra_body={"repeat_penalty": 1.0},
    )
    logprobs = reply.choices[0].logprobs
    assert logprobs is not None and logprobs.tokens and logprobs.token_logprobs
    assert "".join(logprobs.tokens) == reply.choices[0].text
    assert logprobs.text_offset == [
        sum(len(t) for t in logprobs.tokens[:i]) for i in range(len(logprobs.tokens))
    ]
    assert logprobs.top_logprobs is not None
    for chosen, top in zip(logprobs.token_logprobs, logprobs.top_logprobs, strict=True):
        assert 1 <= len(top) <= 3 and math.isclose(chosen, max(top.values()), abs_tol=1e-6)


def test_logprobs_out_of_range_are_a_400(oai: openai.OpenAI, model_id: str) -> None:
    with pytest.raises(openai.BadRequestError, match="top_logprobs"):
        oai.chat.completions.create(
            model=model_id, messages=ASK, logprobs=True, top_logprobs=21, max_tokens=2
        )
    with pytest.raises(openai.BadRequestError, match="needs 'logprobs'"):
        oai.chat.completions.create(model=model_id, messages=ASK, top_logprobs=2, max_tokens=2)
