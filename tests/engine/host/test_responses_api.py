"""OpenAI's Responses API through the official ``openai`` client against a real engine host on
the real tool-trained test model: text, instructions and usage; a conversation continued by
``previous_response_id`` and fetched back; the stream's typed events; a tool round trip;
``text.format`` JSON schema; the in-memory store's bound; errors."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import openai
import pytest

from engine.client.local import LocalEngine
from engine.errors import ResponseNotFound
from engine.host.protocols.responses_routes import Kept, ResponseStore
from tests.engine.conftest import tool_host

WEATHER: Any = {
    "type": "function",
    "name": "get_weather",
    "description": "The current weather in a city",
    "parameters": {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
    },
}
PERSON: Any = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
    "required": ["name", "age"],
}


@pytest.fixture(scope="module")
def host(tool_model: Path) -> Iterator[LocalEngine]:
    with tool_host(tool_model) as engine:
        yield engine


def test_text_and_a_continued_conversation(oai: openai.OpenAI, model_id: str) -> None:
    first = oai.responses.create(
        model=model_id,
        input="Name three colours.",
        instructions="Answer in one short sentence.",
        temperature=0,
        max_output_tokens=32,
    )
    assert first.id.startswith("resp_") and first.status in ("completed", "incomplete")
    assert first.output_text.strip() and first.instructions == "Answer in one short sentence."
    assert first.usage and first.usage.input_tokens > 0 and 0 < first.usage.output_tokens <= 32
    second = oai.responses.create(
        model=model_id, input="Name two more.", previous_response_id=first.id, max_output_tokens=24
    )
    assert second.previous_response_id == first.id and second.output_text.strip()
    # The second prompt held the first exchange: more input than the new words alone.
    assert second.usage and second.usage.input_tokens > first.usage.input_tokens
    assert oai.responses.retrieve(first.id).output_text == first.output_text


def test_the_stream_s_events(oai: openai.OpenAI, model_id: str) -> None:
    kinds: list[str] = []
    text = ""
    final: Any = None
    for event in oai.responses.create(
        model=model_id, input="Count from one to five.", stream=True, max_output_tokens=20
    ):
        kinds.append(event.type)
        if event.type == "response.output_text.delta":
            text += event.delta
        if event.type in ("response.completed", "response.incomplete"):
            final = event.response
    assert kinds[:2] == ["response.created", "response.in_progress"]
    assert kinds[-1] in ("response.completed", "response.incomplete")
    for kind in ("response.output_item.added", "response.content_part.added",
                 "response.output_text.done", "response.output_item.done"):  # fmt: skip
        assert kind in kinds
    assert final is not None and final.output_text == text and text.strip()


def test_a_tool_round_trip(oai: openai.OpenAI, model_id: str) -> None:
    first = oai.responses.create(
        model=model_id,
        input="What is the weather like in Paris right now?",
        tools=[WEATHER],
        tool_choice="required",
        temperature=0,
    )
    (call,) = [o for o in first.output if o.type == "function_call"][:1]
    assert call.name == "get_weather" and call.call_id
    jsonschema.validate(json.loads(call.arguments), WEATHER["parameters"])
    result = json.dumps({"city": "Paris", "temperature_c": 18, "sky": "light rain"})
    answer = oai.responses.create(
        model=model_id,
        previous_response_id=first.id,
        input=[{"type": "function_call_output", "call_id": call.call_id, "output": result}],
        tools=[WEATHER],
        tool_choice="none",
        temperature=0,
        max_output_tokens=48,
    )
    assert [o.type for o in answer.output] == ["message"] and answer.output_text.strip()


def test_a_required_call_streams_as_a_function_call_item(oai: openai.OpenAI, model_id: str) -> None:
    with oai.responses.stream(
        model=model_id, input="Is it raining in Berlin?", tools=[WEATHER], tool_choice="required"
    ) as stream:
        final = stream.get_final_response()
    calls = [o for o in final.output if o.type == "function_call"]
    assert calls and calls[0].name == "get_weather"
    jsonschema.validate(json.loads(calls[0].arguments), WEATHER["parameters"])


@pytest.mark.parametrize(
    "prompt", ["Give me a person with a name and an age.", "Write a poem about the sea."]
)
def test_text_format_json_schema_always_validates(
    oai: openai.OpenAI, model_id: str, prompt: str
) -> None:
    reply = oai.responses.create(
        model=model_id,
        input=prompt,
        text={"format": {"type": "json_schema", "name": "person", "schema": PERSON}},
        temperature=0,
        max_output_tokens=96,
    )
    jsonschema.validate(json.loads(reply.output_text), PERSON)


def test_errors(oai: openai.OpenAI, model_id: str) -> None:
    with pytest.raises(openai.NotFoundError, match="not found"):
        oai.responses.create(model=model_id, input="hi", previous_response_id="resp_unknown")
    with pytest.raises(openai.NotFoundError):
        oai.responses.retrieve("resp_unknown")
    with pytest.raises(openai.BadRequestError, match="hosted tool 'web_search'"):
        oai.responses.create(  # type: ignore[call-overload]
            model=model_id,
            input="hi",
            tools=[{"type": "web_search"}],
            tool_choice={"type": "web_search"},
        )


def test_the_store_keeps_the_newest() -> None:
    store = ResponseStore(limit=2)
    for rid in ("a", "b", "c"):
        store.put(rid, Kept({"id": rid}, ()))
    assert store.get("c").body == {"id": "c"} and store.get("b").body == {"id": "b"}
    with pytest.raises(ResponseNotFound, match="keeps its last 2"):
        store.get("a")
