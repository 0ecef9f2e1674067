"""The requests today's agent clients really send (Claude Code, Codex CLI, the OpenAI Agents SDK
on Responses and on Chat Completions; captured from the clients themselves, identifiers
scrubbed: tests/fixtures/clients), replayed against a real engine host on the starter: each
first request and each request after a tool call, streamed and whole, gets a 200 and its
protocol's whole event sequence. Then fuzzing: requests with random extra fields at every level
all succeed, and malformed known fields still get a clear 400 in the protocol's shape."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from engine.client.local import LocalEngine
from engine.host.http.leniency import HEADER

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "clients"
CAPTURED = sorted(FIXTURES.glob("*.json"))
LONGEST = 120  # characters a replayed string keeps: the starter answers fast, the shape stays
REPLY_TOKENS = 8


@pytest.fixture(scope="module")
def host(starter: Path) -> Iterator[LocalEngine]:
    engine = LocalEngine.start(model=str(starter), ctx=8192, ready_timeout=120.0)
    try:
        yield engine
    finally:
        engine.stop()
        engine.client.close()


def shortened(value: Any) -> Any:
    """Every string cut to LONGEST characters; keys, lists and nesting kept."""
    if isinstance(value, str):
        return value[:LONGEST]
    if isinstance(value, list):
        return [shortened(v) for v in value]
    if isinstance(value, dict):
        return {k: shortened(v) for k, v in value.items()}
    return value


def replayed(captured: dict[str, Any], model: str, stream: bool) -> dict[str, Any]:
    body: dict[str, Any] = shortened(captured["body"])
    body["model"] = model
    body["stream"] = stream
    if captured["path"].startswith("/v1/messages"):
        body["max_tokens"] = REPLY_TOKENS
    elif captured["path"].startswith("/v1/responses"):
        body["max_output_tokens"] = REPLY_TOKENS
    else:
        body["max_tokens"] = REPLY_TOKENS
    return body


def post(host: LocalEngine, path: str, body: object, headers: dict[str, str]) -> httpx.Response:
    sent = {**headers, "Authorization": f"Bearer {host._token}", "x-api-key": host._token}
    return httpx.post(f"http://127.0.0.1:{host.port}{path}", json=body, headers=sent, timeout=300)


def sse_events(text: str) -> list[tuple[str | None, Any]]:
    events: list[tuple[str | None, Any]] = []
    for block in text.split("\n\n"):
        kind, data = None, []
        for line in block.splitlines():
            if line.startswith("event:"):
                kind = line[6:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].strip())
        if data:
            joined = "\n".join(data)
            events.append((kind, joined if joined == "[DONE]" else json.loads(joined)))
    return events


def check_anthropic(response: httpx.Response, stream: bool) -> None:
    if not stream:
        message = response.json()
        assert message["type"] == "message" and message["role"] == "assistant"
        assert message["stop_reason"] in ("end_turn", "max_tokens", "tool_use", "stop_sequence")
        return
    kinds = [kind for kind, _ in sse_events(response.text)]
    assert kinds[0] == "message_start" and kinds[-2:] == ["message_delta", "message_stop"]
    blocks = [k for k in kinds[1:-2] if k != "ping"]
    # Each content block opens, has deltas, and closes, one after another.
    depth = 0
    for kind in blocks:
        if kind == "content_block_start":
            assert depth == 0
            depth = 1
        elif kind == "content_block_stop":
            assert depth == 1
            depth = 0
        else:
            assert kind == "content_block_delta" and depth == 1
    assert depth == 0


def check_responses(response: httpx.Response, stream: bool) -> None:
    if not stream:
        body = response.json()
        assert body["object"] == "response" and body["status"] in ("completed", "incomplete")
        assert body["output"]
        return
    events = sse_events(response.text)
    kinds = [kind for kind, _ in events]
    assert kinds[:2] == ["response.created", "response.in_progress"]
    assert kinds[-1] in ("response.completed", "response.incomplete")
    numbers = [data["sequence_number"] for _, data in events]
    assert numbers == list(range(len(numbers)))
    added = kinds.count("response.output_item.added")
    assert added >= 1 and added == kinds.count("response.output_item.done")


def check_chat(response: httpx.Response, stream: bool) -> None:
    if not stream:
        body = response.json()
        assert body["object"] == "chat.completion"
        assert body["choices"][0]["finish_reason"] in ("stop", "length", "tool_calls")
        return
    events = sse_events(response.text)
    assert events[-1] == (None, "[DONE]")
    chunks = [data for _, data in events[:-1]]
    assert all(c["object"] == "chat.completion.chunk" for c in chunks)
    assert chunks[-1]["choices"][0]["finish_reason"] in ("stop", "length", "tool_calls")


CHECKS = {"/v1/messages": check_anthropic, "/v1/responses": check_responses,
          "/v1/chat/completions": check_chat}  # fmt: skip


def route_of(path: str) -> str:
    return path.split("?")[0]


def test_the_captured_requests_are_there() -> None:
    clients = {json.loads(p.read_text())["client"] for p in CAPTURED}
    assert {"claude-code", "codex", "openai-agents-responses", "openai-agents-chat"} <= clients


@pytest.mark.parametrize("stream", [True, False], ids=["streamed", "whole"])
@pytest.mark.parametrize("fixture", CAPTURED, ids=[p.stem for p in CAPTURED])
def test_a_captured_client_request_is_answered(
    host: LocalEngine, model_id: str, fixture: Path, stream: bool
) -> None:
    captured = json.loads(fixture.read_text())
    body = replayed(captured, model_id, stream)
    response = post(host, captured["path"], body, captured["headers"])
    assert response.status_code == 200, response.text[:500]
    CHECKS[route_of(captured["path"])](response, stream)


# -- fuzzing -------------------------------------------------------------------------------------

ROUNDS = 200
SCHEMAS = ("parameters", "input_schema", "schema")


def extra_value(rng: random.Random) -> Any:
    return rng.choice([None, True, 0, 1.5, "x", [], {}, {"type": "z"}, [1, "a"], {"n": {"m": 1}}])


def sprinkle(value: Any, rng: random.Random, depth: int = 0) -> Any:
    """``value`` with random extra fields added to objects at every level (never replacing one)."""
    if isinstance(value, list):
        return [sprinkle(v, rng, depth + 1) for v in value]
    if not isinstance(value, dict):
        return value
    # JSON schemas are the client's own documents: a field there is a schema keyword.
    out = {k: v if k in SCHEMAS else sprinkle(v, rng, depth + 1) for k, v in value.items()}
    for _ in range(rng.randint(0, 2)):
        name = "x_" + "".join(rng.choice("abcdefghij") for _ in range(6))
        out[name] = extra_value(rng)
    return out


SMALL: dict[str, dict[str, Any]] = {
    "/v1/chat/completions": {
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": [{"type": "text", "text": "Hi"}]},
        ],
        "tools": [{"type": "function", "function": {"name": "f", "description": "d",
                   "parameters": {"type": "object", "properties": {}}}}],
        "max_tokens": 1,
        "temperature": 0,
    },
    "/v1/responses": {
        "input": [{"type": "message", "role": "user",
                   "content": [{"type": "input_text", "text": "Hi"}]}],
        "tools": [{"type": "function", "name": "f", "description": "d",
                   "parameters": {"type": "object", "properties": {}}}],
        "max_output_tokens": 1,
        "temperature": 0,
    },
    "/v1/messages": {
        "system": [{"type": "text", "text": "Be brief."}],
        "messages": [{"role": "user", "content": [{"type": "text", "text": "Hi"}]}],
        "tools": [{"name": "f", "description": "d",
                   "input_schema": {"type": "object", "properties": {}}}],
        "max_tokens": 1,
        "temperature": 0,
    },
}  # fmt: skip


@pytest.mark.parametrize("path", list(SMALL))
def test_random_extra_fields_at_every_level_are_ignored(
    host: LocalEngine, model_id: str, path: str
) -> None:
    rng = random.Random(path)
    named = 0
    for _ in range(ROUNDS):
        body = sprinkle({**SMALL[path], "model": model_id}, rng)
        response = post(host, path, body, {"anthropic-version": "2023-06-01"})
        assert response.status_code == 200, (body, response.text[:300])
        named += HEADER in response.headers
        for name in response.headers[HEADER].split(", ") if HEADER in response.headers else ():
            assert name.startswith(("x_", "messages", "input", "tools", "system", "and ")), name
    assert named > ROUNDS // 2  # what was ignored is said


MALFORMED: list[tuple[str, dict[str, Any], str]] = [
    ("/v1/chat/completions", {"messages": "hi"}, "messages"),
    ("/v1/chat/completions", {"messages": [{"role": "user", "content": "hi"}],
                              "temperature": "hot"}, "temperature"),
    ("/v1/chat/completions", {"messages": [{"role": "wizard", "content": "hi"}]}, "role"),
    ("/v1/responses", {"input": 5}, "input"),
    ("/v1/responses", {"input": "hi", "tools": [{"type": "function", "name": 3}]}, "name"),
    ("/v1/messages", {"messages": [{"role": "user", "content": "hi"}]}, "max_tokens"),
    ("/v1/messages", {"max_tokens": 4, "messages": [{"role": "user", "content": "hi"}],
                      "thinking": {"type": "sometimes"}}, "thinking"),
]  # fmt: skip


@pytest.mark.parametrize(("path", "body", "field"), MALFORMED)
def test_a_malformed_known_field_is_a_400_in_the_protocols_shape(
    host: LocalEngine, model_id: str, path: str, body: dict[str, Any], field: str
) -> None:
    response = post(host, path, {**body, "model": model_id}, {})
    assert response.status_code == 400
    error = response.json()
    if path == "/v1/messages":
        assert error["type"] == "error" and error["error"]["type"] == "invalid_request_error"
    else:
        assert "message" in error["error"]
    assert field in json.dumps(error)


def test_claude_codes_per_session_billing_line_is_left_out_and_its_late_system_kept() -> None:
    """The first system line changes with every Claude Code session; left in, no two sessions
    would share a prefix. The system message Claude Code sends after the turns stays a system
    turn where it stands."""
    from engine.host.protocols.anthropic_wire import parse_messages

    captured = json.loads((FIXTURES / "claude-code-1.json").read_text())
    assert captured["body"]["system"][0]["text"].startswith("x-anthropic-billing-header:")
    request = parse_messages(captured["body"])
    assert request.messages[0].role == "system"
    assert "x-anthropic-billing-header" not in request.messages[0].content
    assert request.messages[0].content.startswith("You are a Claude agent")
    assert [m.role for m in request.messages] == ["system", "user", "system"]
