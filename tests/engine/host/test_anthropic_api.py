"""Anthropic's Messages API through the official ``anthropic`` client against a real engine host
on the real tool-trained test model: whole and streamed replies with Anthropic's event sequence,
a tool-use round trip, a required tool streamed, token counting, and errors in Anthropic's shape
(an unknown model, a bad body, a wrong key)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anthropic
import jsonschema
import pytest

from engine.client.local import LocalEngine
from tests.engine.conftest import tool_host

WEATHER: Any = {
    "name": "get_weather",
    "description": "The current weather in a city",
    "input_schema": {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
    },
}
GREEDY: Any = {"temperature": 0}
ASK: Any = [{"role": "user", "content": "What is the weather like in Paris right now?"}]


@pytest.fixture(scope="module")
def host(tool_model: Path) -> Iterator[LocalEngine]:
    with tool_host(tool_model) as engine:
        yield engine


@pytest.fixture(scope="module")
def client(host: LocalEngine) -> Iterator[anthropic.Anthropic]:
    c = anthropic.Anthropic(base_url=host.base_url[: -len("/v1")], api_key=host._token,
                            max_retries=0)  # fmt: skip
    yield c
    c.close()


def test_a_whole_message(client: anthropic.Anthropic, model_id: str) -> None:
    reply = client.messages.create(
        model=model_id,
        max_tokens=32,
        system="Answer in one short sentence.",
        messages=[{"role": "user", "content": "Name three colours."}],
        extra_body=GREEDY,
    )
    assert reply.type == "message" and reply.role == "assistant" and reply.model == model_id
    assert reply.id.startswith("msg_")
    assert reply.stop_reason in ("end_turn", "max_tokens")
    (block,) = reply.content
    assert block.type == "text" and block.text.strip()
    assert reply.usage.input_tokens > 0 and 0 < reply.usage.output_tokens <= 32


def test_a_streamed_message_follows_anthropics_events(
    client: anthropic.Anthropic, model_id: str
) -> None:
    kinds: list[str] = []
    with client.messages.stream(
        model=model_id,
        max_tokens=24,
        messages=[{"role": "user", "content": "Count from one to five."}],
        extra_body=GREEDY,
    ) as stream:
        for event in stream:
            kinds.append(event.type)
        final = stream.get_final_message()
    assert kinds[0] == "message_start" and kinds[-1] == "message_stop"
    assert "content_block_start" in kinds and "content_block_stop" in kinds
    assert kinds.index("message_delta") > kinds.index("content_block_stop")
    streamed = [k for k in kinds if k == "text"]  # the helper's own text events
    assert streamed and final.content[0].type == "text" and final.content[0].text.strip()
    assert final.stop_reason in ("end_turn", "max_tokens") and final.usage.output_tokens > 0


def test_a_tool_use_round_trip(client: anthropic.Anthropic, model_id: str) -> None:
    first = client.messages.create(
        model=model_id,
        max_tokens=96,
        tools=[WEATHER],
        tool_choice={"type": "any"},
        messages=ASK,
        extra_body=GREEDY,
    )
    assert first.stop_reason == "tool_use"
    uses = [b for b in first.content if b.type == "tool_use"]
    assert uses and uses[0].name == "get_weather" and uses[0].id.startswith("toolu_")
    jsonschema.validate(uses[0].input, WEATHER["input_schema"])
    result = json.dumps({"city": "Paris", "temperature_c": 18, "sky": "light rain"})
    final = client.messages.create(
        model=model_id,
        max_tokens=64,
        tools=[WEATHER],
        tool_choice={"type": "none"},
        messages=[
            *ASK,
            {"role": "assistant", "content": first.content},
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": uses[0].id, "content": result}],
            },
        ],
        extra_body=GREEDY,
    )
    assert final.stop_reason in ("end_turn", "max_tokens")
    blocks: Any = final.content
    assert [b.type for b in blocks] == ["text"] and blocks[0].text.strip()


def test_a_named_tool_streams_as_a_tool_use_block(
    client: anthropic.Anthropic, model_id: str
) -> None:
    with client.messages.stream(
        model=model_id,
        max_tokens=96,
        tools=[WEATHER],
        tool_choice={"type": "tool", "name": "get_weather"},
        messages=[{"role": "user", "content": "Is it raining in Berlin?"}],
        extra_body=GREEDY,
    ) as stream:
        final = stream.get_final_message()
    assert final.stop_reason == "tool_use"
    (use,) = [b for b in final.content if b.type == "tool_use"][:1]
    assert use.name == "get_weather"
    jsonschema.validate(use.input, WEATHER["input_schema"])


def test_count_tokens(client: anthropic.Anthropic, model_id: str) -> None:
    plain = client.messages.count_tokens(model=model_id, messages=ASK)
    tooled = client.messages.count_tokens(model=model_id, messages=ASK, tools=[WEATHER])
    assert 0 < plain.input_tokens < tooled.input_tokens


def test_errors_in_anthropics_shape(
    client: anthropic.Anthropic, host: LocalEngine, model_id: str
) -> None:
    with pytest.raises(anthropic.NotFoundError) as missing:
        client.messages.create(model="no-such-model", max_tokens=4, messages=ASK)
    assert missing.value.body["error"]["type"] == "not_found_error"  # type: ignore[index]
    video: Any = [{"role": "user", "content": [{"type": "video", "url": "x"}]}]
    with pytest.raises(anthropic.BadRequestError) as bad:
        client.messages.create(model=model_id, max_tokens=4, messages=video)
    assert bad.value.body["type"] == "error"  # type: ignore[index]
    assert bad.value.body["error"]["type"] == "invalid_request_error"  # type: ignore[index]
    wrong = anthropic.Anthropic(base_url=host.base_url[: -len("/v1")], api_key="wrong",
                                max_retries=0)  # fmt: skip
    with pytest.raises(anthropic.AuthenticationError) as denied:
        wrong.messages.create(model=model_id, max_tokens=4, messages=ASK)
    assert denied.value.body["error"]["type"] == "authentication_error"  # type: ignore[index]
    wrong.close()
