"""Ollama's API through the official ``ollama`` client against a real engine host on the real
tool-trained test model (and the test embedding model): chat, a streamed generate, a reply held
to a JSON schema, tools, the model listings, embeddings, and errors in Ollama's shape."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import jsonschema
import ollama
import pytest

from engine.client.local import LocalEngine
from tests.engine.conftest import tool_host

PERSON: Any = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
    "required": ["name", "age"],
}
GREEDY: Any = {"temperature": 0, "num_predict": 48}


@pytest.fixture(scope="module")
def host(tool_model: Path, shared_models: Path) -> Iterator[LocalEngine]:
    with tool_host(tool_model, shared_models / "all-minilm-l6-v2-onnx") as engine:
        yield engine


@pytest.fixture(scope="module")
def client(host: LocalEngine) -> ollama.Client:
    return ollama.Client(host=host.base_url[: -len("/v1")],
                         headers={"Authorization": f"Bearer {host._token}"})  # fmt: skip


def test_chat(client: ollama.Client, model_id: str) -> None:
    # Ollama's clients add ':latest' to a bare name.
    reply = client.chat(
        model=f"{model_id}:latest",
        messages=[{"role": "user", "content": "Name three colours."}],
        options=GREEDY,
    )
    assert reply.done and reply.done_reason in ("stop", "length")
    assert reply.message.role == "assistant" and (reply.message.content or "").strip()
    assert reply.eval_count and 0 < reply.eval_count <= 48
    assert reply.prompt_eval_count and reply.total_duration


def test_a_streamed_generate(client: ollama.Client, model_id: str) -> None:
    parts = list(client.generate(model=model_id, prompt="Count from one to five.", stream=True,
                                 options={"temperature": 0, "num_predict": 16}))  # fmt: skip
    assert len(parts) > 2
    assert all(not p.done for p in parts[:-1]) and parts[-1].done
    assert "".join(p.response or "" for p in parts).strip()
    assert parts[-1].eval_count and parts[-1].eval_count <= 16


@pytest.mark.parametrize(
    "prompt",
    ["Give me a person with a name and an age.", "Write a poem about the sea, not JSON."],
)
def test_format_schema_always_validates(client: ollama.Client, model_id: str, prompt: str) -> None:
    reply = client.chat(
        model=model_id,
        messages=[{"role": "user", "content": prompt}],
        format=PERSON,
        options={"temperature": 0, "num_predict": 96},
    )
    jsonschema.validate(json.loads(reply.message.content or ""), PERSON)


def test_tools(client: ollama.Client, model_id: str) -> None:
    def get_weather(city: str) -> str:
        """The current weather in a city

        Args:
            city: the city's name
        """
        return "sunny"

    reply = client.chat(
        model=model_id,
        messages=[{"role": "user", "content": "What is the weather like in Paris right now?"}],
        tools=[get_weather],
        options=GREEDY,
    )
    calls = reply.message.tool_calls or []
    assert calls and calls[0].function.name == "get_weather"
    assert isinstance(calls[0].function.arguments.get("city"), str)


def test_listings(client: ollama.Client, model_id: str) -> None:
    names = [m.model for m in client.list().models]
    assert names[0] == model_id and "starter" in names
    (running,) = client.ps().models
    assert running.model == model_id and running.size and running.context_length == 4096
    shown = client.show(model_id)
    assert shown.details and shown.details.format == "gguf"
    assert shown.capabilities and "tools" in shown.capabilities


def test_embeddings(client: ollama.Client, host: LocalEngine) -> None:
    vectors = client.embed(model="all-minilm-l6-v2-onnx", input=["a cat", "a dog"]).embeddings
    assert len(vectors) == 2 and len(vectors[0]) == 384
    legacy = client.embeddings(model="all-minilm-l6-v2-onnx", prompt="a cat").embedding
    assert len(legacy) == 384 and abs(legacy[0] - vectors[0][0]) < 1e-4


def test_errors_in_ollamas_shape(client: ollama.Client, host: LocalEngine, model_id: str) -> None:
    with pytest.raises(ollama.ResponseError) as missing:
        client.chat(model="llama3.2:3b", messages=[{"role": "user", "content": "hi"}])
    assert missing.value.status_code == 404 and "not found" in missing.value.error
    root = host.base_url[: -len("/v1")]
    bad = httpx.post(f"{root}/api/chat", json={"model": model_id, "messages": "hi"},
                     headers={"Authorization": f"Bearer {host._token}"})  # fmt: skip
    assert bad.status_code == 400 and "messages" in bad.json()["error"]
    denied = httpx.get(f"{root}/api/tags", headers={"Authorization": "Bearer wrong"})
    assert denied.status_code == 401 and isinstance(denied.json().get("error"), str)
    assert httpx.get(f"{root}/api/version").status_code == 401  # the key guards every route
