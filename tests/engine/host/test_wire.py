"""The OpenAI wire format in both directions, without a server: strict validation of every field,
and engine chunks shaped into OpenAI responses that carry Cove's timings."""

from __future__ import annotations

import base64
import struct
from dataclasses import replace
from typing import Any

import pytest

from engine.client import protocol
from engine.errors import InvalidRequest
from engine.host.protocols import wire
from engine.host.protocols.params import parse_params
from engine.types import Chunk, GenerationStats, Truncation

CHAT = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}


def chat(**extra: Any) -> dict[str, Any]:
    return {**CHAT, **extra}


def test_minimal_chat_request() -> None:
    req = wire.parse_chat(chat())
    assert req.model == "m" and not req.stream
    assert [(m.role, m.content) for m in req.messages] == [("user", "hi")]
    assert req.params.max_tokens is None  # until the context is full, as OpenAI does


def test_sampling_fields_map_to_generation_params() -> None:
    req = wire.parse_chat(
        chat(
            temperature=0,
            top_p=0.5,
            top_k=7,
            min_p=0.1,
            repeat_penalty=1.2,
            max_completion_tokens=9,
            seed=3,
            stop=["\n\n", "END"],
            stream=True,
            stream_options={"include_usage": True},
        )
    )
    p = req.params
    assert (p.temperature, p.top_p, p.top_k, p.min_p, p.repeat_penalty) == (0, 0.5, 7, 0.1, 1.2)
    assert (p.max_tokens, p.seed, p.stop) == (9, 3, ("\n\n", "END"))
    assert req.stream and req.include_usage


def test_content_parts_and_developer_role() -> None:
    req = wire.parse_chat(
        {
            "model": "m",
            "messages": [
                {"role": "developer", "content": "be brief"},
                {
                    "role": "user",
                    "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
                },
            ],
        }
    )
    assert [(m.role, m.content) for m in req.messages] == [("system", "be brief"), ("user", "ab")]


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        ([], "JSON object"),
        ({"messages": CHAT["messages"]}, "'model'"),
        (chat(model=""), "'model'"),
        (chat(messages=[]), "non-empty list"),
        (chat(messages="hi"), "non-empty list"),
        (chat(messages=[{"role": "tool", "content": "x"}]), "role"),
        (chat(messages=[{"role": "user"}]), "content"),
        (chat(messages=[{"role": "user", "content": 5}]), "content"),
        (chat(messages=[{"role": "user", "content": [{"type": "image_url"}]}]), "needs a 'url'"),
        (chat(messages=[{"role": "user", "content": [{"type": "audio"}]}]), "text and image_url"),
        (chat(messages=[{"role": "user", "content": "x", "tool_calls": []}]), "tool_calls"),
        (chat(temperature="hot"), "temperature"),
        (chat(temperature=True), "temperature"),
        (chat(temperature=3), "between 0 and 2"),
        (chat(top_p=0), "top_p"),
        (chat(top_k=-1), "top_k"),
        (chat(max_tokens=0), "max_tokens"),
        (chat(max_tokens=1.5), "integer"),
        (chat(seed="x"), "seed"),
        (chat(stop=""), "stop"),
        (chat(stop=["a"] * 9), "at most"),
        (chat(stop=[1]), "stop"),
        (chat(n=2), "'n'"),
        (chat(stream="yes"), "stream"),
        (chat(stream_options={"x": 1}), "stream_options"),
        (chat(logprobs="yes"), "logprobs"),
        (chat(logprobs=True, top_logprobs=21), "top_logprobs"),
        (chat(top_logprobs=3), "needs .logprobs"),
        (chat(response_format={"type": "xml"}), "response_format"),
        (chat(presence_penalty=5), "presence_penalty"),
        (chat(tools={}), "'tools' must be a list"),
        (chat(functions=[]), "older form of 'tools'"),
    ],
)
def test_invalid_chat_requests_name_the_problem(body: object, needle: str) -> None:
    with pytest.raises(InvalidRequest, match=needle):
        wire.parse_chat(body)


def test_prompts_to_score_as_evaluation_harnesses_send_them() -> None:
    req = wire.parse_completion(
        {"model": "m", "prompt": ["a b", [5, 6]], "echo": True, "logprobs": 1, "max_tokens": 0}
    )
    assert req.prompts == ("a b", (5, 6)) and req.echo and not req.plain
    assert req.params.max_tokens == 0 and req.params.score_prompt and req.params.logprobs == 1
    ids = wire.parse_completion({"model": "m", "prompt": [7, 8, 9], "echo": True})
    assert ids.prompts == ((7, 8, 9),) and ids.params.max_tokens is None
    # Streamed too: answered whole, then sent one event a choice
    # (engine/host/protocols/completion_batch.py).
    streamed = wire.parse_completion({"model": "m", "prompt": ["x", "y"], "echo": True,
                                      "stream": True})  # fmt: skip
    assert streamed.stream and streamed.echo and not streamed.plain
    for body, needle in (
        ({"prompt": "x", "max_tokens": 0}, "needs 'echo'"),
        ({"prompt": "x", "echo": True, "logprobs": 21}, "'logprobs'"),
        ({"prompt": ["x", 5]}, "'prompt'"),
        ({"prompt": [[1], [-2]]}, "'prompt'"),
        ({"prompt": ["x", ""]}, "'prompt'"),
        ({"prompt": "x", "echo": "yes"}, "'echo'"),
    ):
        with pytest.raises(InvalidRequest, match=needle):
            wire.parse_completion({"model": "m", **body})
    with pytest.raises(InvalidRequest, match="/v1/completions"):
        wire.parse_chat({"model": "m", "messages": [{"role": "user", "content": "x"}], "echo": 1})


def test_an_echoed_choice_in_openais_legacy_shape() -> None:
    from engine.host.protocols import echo
    from engine.types import Chunk, ScoredPrompt, TokenLogprob

    first = TokenLogprob(" b", -1.5, (32, 98), ((" c", -0.5, (32, 99)),))
    scored = ScoredPrompt(("a", (97,)), (first,))
    reply = TokenLogprob("!", -0.25, (33,), (("!", -0.25, (33,)),))
    final = Chunk(finish_reason="length", logprobs=(reply,), scored_prompt=scored)
    ids = echo.choice(0, (97, 98), "!", final, "length", echo=True, logprobs=True)
    assert ids["text"] == "a b!"
    assert ids["logprobs"] == {
        "tokens": ["a", " b", "!"],
        "token_logprobs": [None, -1.5, -0.25],
        "top_logprobs": [None, {" c": -0.5, " b": -1.5}, {"!": -0.25}],
        "text_offset": [0, 1, 3],
    }
    plain = echo.choice(1, "a b", "!", final, "length", echo=False, logprobs=False)
    assert plain == {"index": 1, "text": "!", "logprobs": None, "finish_reason": "length"}


def test_completion_and_embedding_requests() -> None:
    req = wire.parse_completion({"model": "m", "prompt": ["Once"], "max_tokens": 4})
    assert req.prompts == ("Once",) and req.params.max_tokens == 4 and req.plain
    with pytest.raises(InvalidRequest, match="prompt"):
        wire.parse_completion({"model": "m", "prompt": ""})
    emb = wire.parse_embeddings({"input": "a", "encoding_format": "base64"})
    assert emb.inputs == ("a",) and emb.base64 and emb.model is None
    bad: object
    for bad in ({"input": []}, {"input": [1]}, {"input": "a", "encoding_format": "hex"}):
        with pytest.raises(InvalidRequest):
            wire.parse_embeddings(bad)


def test_load_request() -> None:
    assert wire.parse_load({"model": "starter"}) == ("starter", None, False)
    assert wire.parse_load({"model": "x", "ctx": 4096, "stream": True}) == ("x", 4096, True)
    for bad in ({"model": "x", "ctx": 10}, {"model": "x", "ctx": "big"}, {"ctx": 4096}):
        with pytest.raises(InvalidRequest):
            wire.parse_load(bad)


def final_chunk(reason: str = "stop") -> Chunk:
    return Chunk(
        finish_reason=reason,  # type: ignore[arg-type]
        stats=GenerationStats(
            prompt_tokens=20,
            cached_tokens=5,
            completion_tokens=7,
            ttft_s=0.1,
            decode_tokens_per_s=50.0,
            prompt_tokens_per_s=300.0,
            total_s=0.3,
            draft_tokens=5,
            accepted_tokens=3,
        ),
        truncation=Truncation(2, 0, 100, 512),
    )


def test_responses_carry_usage_and_cove_timings() -> None:
    body = wire.chat_response("id", "m", 1, "Paris", final_chunk("length"))
    assert body["choices"][0]["message"] == {"role": "assistant", "content": "Paris"}
    assert body["choices"][0]["finish_reason"] == "length"
    assert body["usage"] == {
        "prompt_tokens": 20,
        "completion_tokens": 7,
        "total_tokens": 27,
        "prompt_tokens_details": {"cached_tokens": 5},
        "completion_tokens_details": {
            "accepted_prediction_tokens": 3,
            "rejected_prediction_tokens": 2,
        },
        "cove": {
            "draft_tokens": 5,
            "accepted_tokens": 3,
            "batched_tokens": 0,
            "prompt_read_tokens": 15,
            "prompt_read_s": 0.05,
            "prompt_tokens_per_s": 300.0,
        },
    }
    assert body["cove"]["timings"]["ttft_s"] == 0.1
    assert body["cove"]["timings"]["draft_tokens"] == 5
    trunc = protocol.truncation_from(body["cove"]["truncation"])
    assert trunc == Truncation(2, 0, 100, 512)
    assert "dropped the 2 oldest messages" in body["cove"]["truncation"]["description"]
    chunk = wire.chat_final_chunk("id", "m", 1, final_chunk())
    assert chunk["object"] == "chat.completion.chunk" and chunk["choices"][0]["delta"] == {}


def test_embeddings_base64_is_little_endian_float32() -> None:
    body = wire.embeddings_response("e", [[0.5, -1.0]], 3, as_base64=True)
    raw = base64.b64decode(body["data"][0]["embedding"])
    assert struct.unpack("<2f", raw) == (0.5, -1.0)
    plain = wire.embeddings_response("e", [[0.5, -1.0]], 3, as_base64=False)
    assert plain["data"][0]["embedding"] == [0.5, -1.0]
    assert plain["usage"] == {"prompt_tokens": 3, "total_tokens": 3}


def test_speculation_and_conversation_fields_are_read_and_checked() -> None:
    params = parse_params({"speculation": "on", "cove_conversation": "chat-7"})
    assert params.speculation == "on" and params.conversation == "chat-7"
    assert parse_params({}).speculation == "auto"
    with pytest.raises(InvalidRequest, match="speculation"):
        parse_params({"speculation": "fast"})
    with pytest.raises(InvalidRequest, match="cove_conversation"):
        parse_params({"cove_conversation": 7})


def test_usage_over_several_prompts_gives_the_speed_of_all_their_reading() -> None:
    """Several prompts' usage is added up, but their reading speeds are not: the speed is
    the tokens read over the seconds spent reading them."""
    fast, slow = final_chunk(), final_chunk()
    assert fast.stats is not None and slow.stats is not None
    slow = replace(slow, stats=replace(slow.stats, prompt_tokens_per_s=100.0))
    body = wire.completions_response("id", "m", 1, [], [fast, slow])
    cove = body["usage"]["cove"]
    assert cove["prompt_read_tokens"] == 30
    assert cove["prompt_read_s"] == pytest.approx(0.05 + 0.15)
    assert cove["prompt_tokens_per_s"] == pytest.approx(150.0)
    nothing_read = final_chunk()
    assert nothing_read.stats is not None
    cached = replace(nothing_read, stats=replace(nothing_read.stats, cached_tokens=20))
    assert wire.usage(cached)["cove"]["prompt_tokens_per_s"] == 0.0
