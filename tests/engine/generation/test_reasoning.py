"""A reasoning model's thinking kept apart from its answer: the split on streams cut anywhere,
a template that opens the thinking itself (DeepSeek-R1 distills) on a real model, and the API's
``reasoning_content`` whole and streamed."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.backends.llama.single import LlamaCppModel
from engine.generation.reasoning import opens_thinking, split_thinking
from engine.host.protocols import wire
from engine.types import ChatMessage, Chunk, GenerationParams
from tests.engine.cpu_plans import plan_for


def split(*pieces: str) -> tuple[str, str]:
    chunks = [Chunk(text=p) for p in pieces] + [Chunk(finish_reason="stop")]
    out = list(split_thinking(iter(chunks)))
    assert out[-1].is_terminal and all(not (c.text and c.reasoning) for c in out)
    return "".join(c.reasoning for c in out), "".join(c.text for c in out)


@pytest.mark.parametrize(
    ("pieces", "thought", "answer"),
    [
        (["<think>\nLet me add.</think>\n\nIt is 4."], "Let me add.", "It is 4."),
        (["<thi", "nk>Let me", " add.</th", "ink>", "\n", "\nIt is", " 4."], "Let me add.",
         "It is 4."),
        (["  <think>cut off by the limit"], "cut off by the limit", ""),
        (["It is 4."], "", "It is 4."),
        (["<", "b>bold</b> text"], "", "<b>bold</b> text"),
        (["<think></think>", "Direct."], "", "Direct."),
        (["The tag <think> later is text."], "", "The tag <think> later is text."),
    ],
)  # fmt: skip
def test_the_thinking_is_told_from_the_answer(pieces: list[str], thought: str, answer: str) -> None:
    assert split(*pieces) == (thought, answer)


def test_a_template_that_opens_the_thinking() -> None:
    assert opens_thinking("<|Assistant|><think>\n")
    assert not opens_thinking("<|im_start|>assistant\n")


@pytest.fixture(scope="module")
def model(starter: Path) -> Iterator[LlamaCppModel]:
    m = LlamaCppModel(starter, plan_for(starter, 2048))
    yield m
    m.close()


def test_a_reply_that_begins_inside_the_thinking(model: LlamaCppModel) -> None:
    """A template whose generation prompt ends in ``<think>`` (as DeepSeek-R1's does): the reply
    is reported from inside the thinking, so all of it up to ``</think>`` is reasoning."""
    original = model.template
    model.template = dataclasses.replace(
        original, source=original.source + "{% if add_generation_prompt %}<think>\n{% endif %}"
    )
    try:
        params = GenerationParams(temperature=0.0, max_tokens=12)
        raw = list(model.chat([ChatMessage("user", "Hello")], params))
        assert raw[0].text == "<think>\n"
        out = list(split_thinking(iter(raw)))
    finally:
        model.template = original
    model_text = "".join(c.text for c in raw[1:])
    reasoning = "".join(c.reasoning for c in out)
    answer = "".join(c.text for c in out)
    if "</think>" not in model_text:  # the small model never closes it: all of it is thinking
        assert answer == "" and reasoning.strip() == model_text.strip()
    assert out[-1].finish_reason in ("stop", "length")
    # A request held to a grammar gets no opening tag: there is no room for thinking.
    from engine.tools.constrain import ANY_JSON_OBJECT, grammar_for

    model.template = dataclasses.replace(
        original, source=original.source + "{% if add_generation_prompt %}<think>\n{% endif %}"
    )
    try:
        held = GenerationParams(temperature=0.0, max_tokens=8, grammar=grammar_for(ANY_JSON_OBJECT))
        first = next(iter(model.chat([ChatMessage("user", "JSON please")], held)))
    finally:
        model.template = original
    assert not first.text.startswith("<think>")


def test_reasoning_content_on_the_wire() -> None:
    final = Chunk(finish_reason="stop", reasoning="Two and two.")
    body = wire.chat_response("c", "m", 0, "4", final)
    assert body["choices"][0]["message"] == {
        "role": "assistant",
        "content": "4",
        "reasoning_content": "Two and two.",
    }
    first = wire.chat_thought("c", "m", 0, "Two", True)["choices"][0]["delta"]
    assert first == {"role": "assistant", "content": None, "reasoning_content": "Two"}
    # An earlier reply's thinking sent back is accepted and left out of the history.
    request = wire.parse_chat(
        {
            "model": "m",
            "messages": [
                {"role": "user", "content": "2+2?"},
                {"role": "assistant", "content": "4", "reasoning_content": "Two and two."},
                {"role": "user", "content": "And 3+3?"},
            ],
        }
    )
    assert [m.content for m in request.messages] == ["2+2?", "4", "And 3+3?"]
