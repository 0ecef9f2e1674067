"""Continuing the last assistant message (``continue_final_message``): the prompt cut on every
built-in template, the real starter model extending a reply cut at ``max_tokens`` (alone, in a
window too small for the conversation, and through an engine host), and the request fields as
the host reads them."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import openai
import pytest

from engine.backends.llama import LlamaCppBackend
from engine.backends.llama.single import LlamaCppModel
from engine.client.local import LocalEngine
from engine.errors import InvalidRequest
from engine.formats.gguf import read_gguf
from engine.host.http.leniency import collecting
from engine.host.protocols.wire import parse_chat
from engine.planner.gguf import make_plan
from engine.planner.plan import Device, Resources, with_parallel
from engine.templates import FALLBACK_NAMES, ChatTemplate, fallback, render
from engine.templates.continuation import MARK, continue_final, continues, mark_final
from engine.tools import Tool, ToolCall
from engine.types import ChatMessage, GenerationParams
from tests.conftest import collect

RESOURCES = Resources(cpu=Device("CPU RAM", "cpu", 16 * 2**30, 24 * 2**30), threads=2)
CONTENT = "The capital of France is"
ASKED = (
    ChatMessage("system", "Be brief."),
    ChatMessage("user", "What is the capital of France?"),
)
PARTIAL = (*ASKED, ChatMessage("assistant", CONTENT))
ASK = [ChatMessage("user", "Tell me about the sea.")]
SHORT = GenerationParams(temperature=0.0, max_tokens=8)
CONTINUE = replace(SHORT, continue_final_message=True)
BOS = {"llama3": "<|begin_of_text|>", "gemma": "<bos>", "mistral": "<s>", "llama2": "<s>"}
EOS = {"mistral": "</s>", "llama2": "</s>", "phi3": "<|endoftext|>"}


def rendered(name: str, messages: Sequence[ChatMessage]) -> str:
    bos, eos = BOS.get(name, ""), EOS.get(name, "")
    return render(fallback(name), messages, bos_token=bos, eos_token=eos)


def continued(name: str, messages: Sequence[ChatMessage]) -> str:
    return continue_final(rendered(name, mark_final(messages)))


# The prompt, on every built-in template


@pytest.mark.parametrize("name", FALLBACK_NAMES)
def test_the_prompt_ends_with_the_replys_text_and_leaves_its_turn_open(name: str) -> None:
    prompt = continued(name, PARTIAL)
    closed = rendered(name, PARTIAL)
    assert prompt.endswith(CONTENT)
    # The same conversation, less what closes the reply's turn (and opens the next one).
    assert closed.startswith(prompt)
    cut = closed[len(prompt) :]
    assert any(end in cut for end in fallback(name).stop), cut
    assert MARK not in prompt


@pytest.mark.parametrize("name", FALLBACK_NAMES)
def test_an_empty_reply_continues_from_the_opening_of_the_assistants_turn(name: str) -> None:
    prompt = continued(name, (*ASKED, ChatMessage("assistant", "")))
    assert prompt.rstrip() == rendered(name, ASKED).rstrip()


def test_a_reply_that_is_part_of_the_generation_prompt_is_found_in_its_own_turn() -> None:
    """ "a" stands in ChatML's "<|im_start|>assistant" too: the cut is after the reply's "a"."""
    prompt = continued("chatml", (*ASKED, ChatMessage("assistant", "a")))
    assert prompt == rendered("chatml", ASKED) + "a"


def test_the_replys_trailing_space_is_kept_where_the_template_trims() -> None:
    prompt = continued("llama3", (*ASKED, ChatMessage("assistant", CONTENT + " ")))
    assert prompt.endswith("<|end_header_id|>\n\n" + CONTENT + " ")


def test_a_template_that_leaves_the_reply_out_cannot_continue_it() -> None:
    hides = ChatTemplate(
        "custom",
        "{% for m in messages %}{% if m.role != 'assistant' %}{{ m.content }}\n{% endif %}"
        "{% endfor %}",
        "model",
        (),
        "from the model file",
    )
    with pytest.raises(InvalidRequest, match="cannot be continued"):
        continue_final(render(hides, mark_final(PARTIAL)))


def test_only_an_assistants_last_message_is_continued() -> None:
    assert continues(PARTIAL, CONTINUE)
    assert not continues(PARTIAL, SHORT)
    assert not continues(ASKED, CONTINUE)
    assert not continues((), CONTINUE)


def test_continuing_what_would_lose_its_meaning_is_refused() -> None:
    called = (*ASKED, ChatMessage("assistant", "", tool_calls=(ToolCall("f", {}),)))
    with pytest.raises(InvalidRequest, match="tool calls"):
        continues(called, CONTINUE)
    with pytest.raises(InvalidRequest, match="JSON schema"):
        continues(PARTIAL, replace(CONTINUE, grammar='root ::= "x"'))


# The real starter model


@pytest.fixture(scope="module")
def model(starter: Path) -> Iterator[LlamaCppModel]:
    plan = with_parallel(make_plan(read_gguf(starter), RESOURCES, requested_ctx=1024), 1)
    loaded = LlamaCppBackend().load(starter, plan)
    assert isinstance(loaded, LlamaCppModel)
    yield loaded
    loaded.close()


def test_a_reply_cut_at_max_tokens_is_continued(model: LlamaCppModel) -> None:
    first_text, first = collect(model.chat(ASK, SHORT))
    assert first.error is None and first.finish_reason == "length" and first_text
    assert first.stats is not None

    more, second = collect(model.chat([*ASK, ChatMessage("assistant", first_text)], CONTINUE))
    assert second.error is None and second.finish_reason in ("stop", "length"), second.error
    assert more and second.stats is not None and second.stats.completion_tokens > 0
    # The first prompt and the first reply, read again as the prompt (a token's difference
    # where the reply's text splits into tokens otherwise).
    expected = first.stats.prompt_tokens + first.stats.completion_tokens
    assert second.stats.prompt_tokens > first.stats.prompt_tokens
    assert abs(second.stats.prompt_tokens - expected) <= 2


def test_the_flag_is_ignored_when_the_last_message_is_not_the_assistants(
    model: LlamaCppModel,
) -> None:
    one = replace(SHORT, max_tokens=1)
    _, plain = collect(model.chat(ASK, one))
    _, flagged = collect(model.chat(ASK, replace(one, continue_final_message=True)))
    assert plain.error is None and flagged.error is None
    assert plain.stats is not None and flagged.stats is not None
    assert flagged.stats.prompt_tokens == plain.stats.prompt_tokens


def test_a_conversation_too_long_for_the_window_keeps_the_reply_it_continues(
    model: LlamaCppModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    topic = "Tell me everything about the ocean, the tides, the currents and the fish. " * 6
    history = [
        ChatMessage(role, f"{i}: {topic}")
        for i in range(8)
        for role in ("user", "assistant")
        if (role, i) != ("assistant", 7)
    ]
    messages = [ChatMessage("system", "Be brief."), *history, ChatMessage("assistant", CONTENT)]
    shown: list[str] = []
    real = model.render

    def render_and_keep(
        messages: Sequence[ChatMessage], tools: Sequence[Tool] = (), thinking: bool | None = None
    ) -> str:
        text = real(messages, tools, thinking)
        shown.append(text)
        return text

    monkeypatch.setattr(model, "render", render_and_keep)
    more, final = collect(model.chat(messages, replace(CONTINUE, max_tokens=4)))
    assert final.error is None and more
    assert final.truncation is not None and final.truncation.dropped_messages > 0
    assert final.stats is not None and final.stats.prompt_tokens <= model.n_ctx
    # The prompt evaluated (the last rendered) ends in the reply being continued.
    assert continue_final(shown[-1]).endswith("<|im_start|>assistant\n" + CONTENT)
    assert continue_final(shown[-1]).startswith("<|im_start|>system\nBe brief.<|im_end|>")


# Through an engine host


@pytest.fixture(scope="module")
def host(local_engine: LocalEngine) -> LocalEngine:
    return local_engine


def test_a_reply_is_continued_through_the_engine_host(host: LocalEngine) -> None:
    first_text, first = collect(host.client.chat(ASK, SHORT))
    assert first.error is None and first.finish_reason == "length" and first.stats is not None

    more, second = collect(host.client.chat([*ASK, ChatMessage("assistant", first_text)], CONTINUE))
    assert second.error is None and more, second.error
    assert second.stats is not None
    assert second.stats.prompt_tokens > first.stats.prompt_tokens


def test_the_openai_package_sends_vllms_fields(oai: openai.OpenAI, model_id: str) -> None:
    conversation: Any = [
        {"role": "user", "content": ASK[0].content},
        {"role": "assistant", "content": "The sea is"},
    ]
    out = oai.chat.completions.create(
        model=model_id,
        messages=conversation,
        temperature=0,
        max_tokens=4,
        extra_body={"continue_final_message": True, "add_generation_prompt": False},
    )
    assert out.choices[0].message.content
    with pytest.raises(openai.BadRequestError, match="add_generation_prompt"):
        oai.chat.completions.create(
            model=model_id,
            messages=conversation,
            max_tokens=4,
            extra_body={"add_generation_prompt": False},
        )


# The request fields


def test_the_host_reads_continue_final_message_in_vllms_form_and_alone() -> None:
    body: dict[str, Any] = {
        "model": "m",
        "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "Hel"}],
    }
    assert not parse_chat(body).params.continue_final_message
    with collecting() as ignored:
        vllm = parse_chat({**body, "continue_final_message": True, "add_generation_prompt": False})
    assert vllm.params.continue_final_message and ignored == []
    assert parse_chat({**body, "continue_final_message": True}).params.continue_final_message
    assert not parse_chat({**body, "add_generation_prompt": True}).params.continue_final_message
    with pytest.raises(InvalidRequest, match="add_generation_prompt"):
        parse_chat({**body, "add_generation_prompt": False})
    with pytest.raises(InvalidRequest, match="continue_final_message"):
        parse_chat({**body, "continue_final_message": "yes"})
