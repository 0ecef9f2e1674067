"""Turning a reasoning model's thinking off through its chat template (``enable_thinking``): the
template's switch found and reported, the prompt with and without the thinking, a real model on
llama.cpp replying with and without a reasoning section, and the request fields of each protocol
through a real engine host (only ``enable_thinking`` reaches the template)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import ollama
import openai
import pytest

from engine.backends.llama.single import LlamaCppModel
from engine.errors import InvalidRequest
from engine.formats.thinking_switch import switches_thinking
from engine.generation.reasoning import split_thinking
from engine.host.http.leniency import HEADER, collecting
from engine.host.protocols import anthropic_wire, ollama_wire, wire
from engine.library.installed import scan_models
from engine.templates import FALLBACK_NAMES, ChatTemplate, fallback, render
from engine.types import ChatMessage, Chunk, GenerationParams
from tests.engine.cpu_plans import plan_for
from tests.support.tiny_gguf import MATRIX, write_model
from tests.tiny_thinking import (
    OPEN_THINKING,
    SKIPPED_THINKING,
    THINKING_TEMPLATE,
    write_thinking_model,
)

ASK = [ChatMessage("user", "Hi")]
SWITCHED = ChatTemplate("custom", THINKING_TEMPLATE, "model", (), "from the model file")
SHORT = GenerationParams(temperature=0.0, max_tokens=8)
BODY: dict[str, Any] = {"model": "m", "messages": [{"role": "user", "content": "Hi"}]}


def replied(chunks: Iterator[Chunk]) -> tuple[str, str, Chunk]:
    """(reasoning, answer, terminal chunk) of a reply, split as the host splits it."""
    out = list(split_thinking(chunks))
    final = out[-1]
    assert final.is_terminal and all(not c.is_terminal for c in out[:-1])
    return "".join(c.reasoning for c in out), "".join(c.text for c in out), final


# The template


def test_a_template_that_reads_enable_thinking_can_turn_thinking_off() -> None:
    assert switches_thinking(THINKING_TEMPLATE)
    assert not any(switches_thinking(fallback(name).source) for name in FALLBACK_NAMES)
    assert not switches_thinking(None) and not switches_thinking("")


def test_the_thinking_block_is_opened_by_default_and_skipped_when_off() -> None:
    default = render(SWITCHED, ASK)
    assert default.endswith("<|assistant|>\n" + OPEN_THINKING)
    assert render(SWITCHED, ASK, thinking=True) == default
    off = render(SWITCHED, ASK, thinking=False)
    assert off.endswith("<|assistant|>\n" + SKIPPED_THINKING)
    assert off.removesuffix(SKIPPED_THINKING) == default.removesuffix(OPEN_THINKING)


def test_a_template_without_the_switch_is_unaffected() -> None:
    plain = fallback("chatml")
    default = render(plain, ASK)
    assert render(plain, ASK, thinking=False) == default == render(plain, ASK, thinking=True)


# A real model on llama.cpp


@pytest.fixture(scope="module")
def thinking_gguf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_thinking_model(tmp_path_factory.mktemp("thinking") / "tiny-thinking.gguf")


@pytest.fixture(scope="module")
def model(thinking_gguf: Path) -> Iterator[LlamaCppModel]:
    with LlamaCppModel(thinking_gguf, plan_for(thinking_gguf, 512)) as m:
        yield m


def test_the_reply_has_a_reasoning_section_only_while_thinking_is_on(
    model: LlamaCppModel,
) -> None:
    reasoning, answer, final = replied(model.chat(ASK, SHORT))
    assert final.error is None and reasoning.strip() and not answer  # inside the opened block
    assert replied(model.chat(ASK, replace(SHORT, thinking=True)))[0] == reasoning
    reasoning, answer, final = replied(model.chat(ASK, replace(SHORT, thinking=False)))
    assert final.error is None and reasoning == "" and answer.strip()


def test_the_installed_models_say_which_can_turn_thinking_off(tmp_path: Path) -> None:
    write_thinking_model(tmp_path / "acme__Thinker-GGUF" / "thinker-F16.gguf")
    plain = tmp_path / "acme__Plain-GGUF" / "plain-F16.gguf"
    plain.parent.mkdir()
    write_model(plain, MATRIX["llama"])
    found = {e.path.name: e for e in scan_models(tmp_path)}
    assert found["thinker-F16.gguf"].thinking_switch
    assert found["thinker-F16.gguf"].to_dict()["thinking_switch"] is True
    assert not found["plain-F16.gguf"].thinking_switch


# The request fields


def test_chat_template_kwargs_give_the_template_enable_thinking_and_nothing_else() -> None:
    def parsed(kwargs: object) -> tuple[bool | None, list[str]]:
        with collecting() as ignored:
            request = wire.parse_chat({**BODY, "chat_template_kwargs": kwargs})
        return request.params.thinking, ignored

    assert wire.parse_chat(BODY).params.thinking is None
    assert parsed({"enable_thinking": False}) == (False, [])
    assert parsed({"enable_thinking": True}) == (True, [])
    assert parsed({}) == (None, [])
    unsafe = {"enable_thinking": False, "messages": [], "bos_token": "<|system|>", "tools": [1]}
    assert parsed(unsafe) == (
        False,
        [
            "chat_template_kwargs.messages",
            "chat_template_kwargs.bos_token",
            "chat_template_kwargs.tools",
        ],
    )
    for bad in ("no", [False], {"enable_thinking": "false"}, {"enable_thinking": 0}):
        with pytest.raises(InvalidRequest, match="chat_template_kwargs"):
            wire.parse_chat({**BODY, "chat_template_kwargs": bad})


def test_ollamas_think_and_anthropics_thinking_type() -> None:
    chat = {"model": "m", "messages": [{"role": "user", "content": "Hi"}]}
    assert ollama_wire.parse_chat(chat).params.thinking is None
    assert ollama_wire.parse_chat({**chat, "think": False}).params.thinking is False
    assert ollama_wire.parse_chat({**chat, "think": "low"}).params.thinking is True
    assert (
        ollama_wire.parse_generate({"model": "m", "prompt": "Hi", "think": False}).params.thinking
        is False
    )
    with pytest.raises(InvalidRequest, match="think"):
        ollama_wire.parse_chat({**chat, "think": "never"})
    messages = {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": "Hi"}]}
    for kind, thinking in (("disabled", False), ("enabled", True), ("adaptive", None)):
        parsed = anthropic_wire.parse_messages({**messages, "thinking": {"type": kind}})
        assert parsed.params.thinking is thinking


# Through an engine host


@pytest.fixture(scope="module")
def host(thinking_gguf: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from engine.client.local import LocalEngine

    log = tmp_path_factory.mktemp("host") / "engine.log"
    engine = LocalEngine.start(model=str(thinking_gguf), ctx=512, log_path=log, ready_timeout=120)
    yield engine
    engine.stop()
    engine.client.close()


def test_the_host_reports_the_switch_of_its_model(host: Any) -> None:
    assert host.client.status().thinking_switch


def test_chat_template_kwargs_reach_the_template_and_unsafe_keys_do_not(
    oai: openai.OpenAI, model_id: str
) -> None:
    def ask(kwargs: dict[str, Any] | None) -> tuple[Any, Mapping[str, str]]:
        extra = {} if kwargs is None else {"chat_template_kwargs": kwargs}
        raw = oai.chat.completions.with_raw_response.create(
            model=model_id,
            messages=[{"role": "user", "content": "Hi"}],
            temperature=0,
            max_tokens=8,
            extra_body=extra,
        )
        return raw.parse(), raw.headers

    default, _ = ask(None)
    thought = default.choices[0].message.model_extra.get("reasoning_content")
    assert thought and not default.choices[0].message.content
    off, headers = ask({"enable_thinking": False})
    assert "reasoning_content" not in off.choices[0].message.model_extra
    assert off.choices[0].message.content
    # The prompt differs by what the template writes: "<think>\n\n</think>\n\n" for "<think>\n".
    assert default.usage is not None and off.usage is not None
    assert off.usage.prompt_tokens > default.usage.prompt_tokens
    assert HEADER not in headers
    # Keys other than enable_thinking stay out of the template: the same prompt, and said so.
    unsafe = {"bos_token": "<|system|>" * 8, "add_generation_prompt": False, "messages": []}
    same, headers = ask(unsafe)
    assert same.usage is not None and same.usage.prompt_tokens == default.usage.prompt_tokens
    assert same.choices[0].message.model_extra.get("reasoning_content") == thought
    assert headers[HEADER] == ", ".join(f"chat_template_kwargs.{key}" for key in unsafe)
    with pytest.raises(openai.BadRequestError, match="enable_thinking"):
        ask({"enable_thinking": "no"})


def test_the_client_sends_the_choice_and_ollamas_think_turns_it_off(
    host: Any, model_id: str
) -> None:
    out = list(host.client.chat(ASK, replace(SHORT, thinking=False)))
    assert not any(c.reasoning for c in out) and "".join(c.text for c in out).strip()
    out = list(host.client.chat(ASK, replace(SHORT, thinking=True)))
    assert any(c.reasoning for c in out)
    client = ollama.Client(
        host=host.base_url[: -len("/v1")], headers={"Authorization": f"Bearer {host._token}"}
    )
    assert "thinking" in (client.show(model_id).capabilities or [])
    options = {"temperature": 0, "num_predict": 8}
    messages = [{"role": "user", "content": "Hi"}]
    on = client.chat(model=model_id, messages=messages, options=options)
    assert on.message.thinking
    off = client.chat(model=model_id, messages=messages, options=options, think=False)
    assert not off.message.thinking and off.message.content
