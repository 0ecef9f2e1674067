from __future__ import annotations

import mmap
import struct
import time
from pathlib import Path

import pytest

from engine import templates
from engine.errors import TemplateError
from engine.templates import FALLBACK_NAMES, ChatTemplate, choose_template, fallback, render
from engine.types import ChatMessage

SMOLLM2_TEMPLATE = (
    "{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}"
    "{{ '<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging "
    "Face<|im_end|>\n' }}{% endif %}{{'<|im_start|>' + message['role'] + '\n' + "
    "message['content'] + '<|im_end|>' + '\n'}}{% endfor %}{% if add_generation_prompt %}"
    "{{ '<|im_start|>assistant\n' }}{% endif %}"
)
GGUF_STRING = 8

SYSTEM = ChatMessage("system", "Be brief.")
USER = ChatMessage("user", "Hi")
CONVERSATION = [SYSTEM, USER, ChatMessage("assistant", "Hello!"), ChatMessage("user", "More")]


def model_template(source: str) -> ChatTemplate:
    return ChatTemplate("custom", source, "model", (), "from the model file")


def render_source(source: str) -> str:
    return render(model_template(source), [SYSTEM, USER])


def gguf_string(path: Path, key: str) -> str:
    with path.open("rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
        at = data.find(key.encode()) + len(key)
        (value_type,) = struct.unpack_from("<I", data, at)
        assert value_type == GGUF_STRING
        (length,) = struct.unpack_from("<Q", data, at + 4)
        return data[at + 12 : at + 12 + length].decode()


# The model's own template


def test_the_starter_models_embedded_template_is_the_one_tested_here(starter: Path) -> None:
    assert gguf_string(starter, "tokenizer.chat_template") == SMOLLM2_TEMPLATE


def test_embedded_chatml_template_is_used_and_recognised() -> None:
    chosen = choose_template(embedded=SMOLLM2_TEMPLATE, architecture="llama")
    assert chosen.origin == "model"
    assert chosen.name == "chatml"
    assert chosen.stop == ("<|im_end|>",)
    assert chosen.reason == "from the model file"


def test_real_chatml_template_with_a_system_message() -> None:
    chosen = choose_template(embedded=SMOLLM2_TEMPLATE, architecture="llama")
    assert render(chosen, [SYSTEM, USER]) == (
        "<|im_start|>system\nBe brief.<|im_end|>\n"
        "<|im_start|>user\nHi<|im_end|>\n"
        "<|im_start|>assistant\n"
    )


def test_real_chatml_template_adds_its_default_system_prompt() -> None:
    chosen = choose_template(embedded=SMOLLM2_TEMPLATE, architecture="llama")
    assert render(chosen, [USER]) == (
        "<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging "
        "Face<|im_end|>\n"
        "<|im_start|>user\nHi<|im_end|>\n"
        "<|im_start|>assistant\n"
    )
    assert not render(chosen, [USER], add_generation_prompt=False).endswith("assistant\n")


def test_compiled_templates_are_cached() -> None:
    assert templates._compile(SMOLLM2_TEMPLATE) is templates._compile(SMOLLM2_TEMPLATE)


@pytest.mark.parametrize(
    ("source", "name", "stop"),
    [
        ("{{ '<|start_header_id|>' }}{{ '<|eot_id|>' }}", "llama3", ("<|eot_id|>",)),
        ("<start_of_turn>{{ x }}<end_of_turn>", "gemma", ("<end_of_turn>",)),
        ("<|user|>{{ x }}<|end|>", "phi3", ("<|end|>", "<|endoftext|>")),
        ("[INST] {{ x }} [/INST]", "mistral", ("</s>", "[INST]")),
        ("{{ x }}<|my_end|>", "custom", ()),
    ],
)
def test_embedded_templates_are_named_and_given_stop_strings(
    source: str, name: str, stop: tuple[str, ...]
) -> None:
    chosen = choose_template(embedded=source, architecture=None)
    assert (chosen.name, chosen.stop, chosen.origin) == (name, stop, "model")


# Built-in templates

FALLBACK_OUTPUT = {
    "chatml": (
        "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n"
        "<|im_start|>assistant\nHello!<|im_end|>\n<|im_start|>user\nMore<|im_end|>\n"
        "<|im_start|>assistant\n"
    ),
    "llama3": (
        "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nBe brief.<|eot_id|>"
        "<|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|>"
        "<|start_header_id|>assistant<|end_header_id|>\n\nHello!<|eot_id|>"
        "<|start_header_id|>user<|end_header_id|>\n\nMore<|eot_id|>"
        "<|start_header_id|>assistant<|end_header_id|>\n\n"
    ),
    "gemma": (
        "<bos><start_of_turn>user\nBe brief.\n\nHi<end_of_turn>\n"
        "<start_of_turn>model\nHello!<end_of_turn>\n"
        "<start_of_turn>user\nMore<end_of_turn>\n"
        "<start_of_turn>model\n"
    ),
    "mistral": "<s>[INST] Be brief.\n\nHi [/INST]Hello!</s>[INST] More [/INST]",
    "phi3": (
        "<|system|>\nBe brief.<|end|>\n<|user|>\nHi<|end|>\n<|assistant|>\nHello!<|end|>\n"
        "<|user|>\nMore<|end|>\n<|assistant|>\n"
    ),
    "llama2": (
        "<s>[INST] <<SYS>>\nBe brief.\n<</SYS>>\n\nHi [/INST] Hello! </s><s>[INST] More [/INST]"
    ),
}
BOS = {"llama3": "<|begin_of_text|>", "gemma": "<bos>", "mistral": "<s>", "llama2": "<s>"}
EOS = {"mistral": "</s>", "llama2": "</s>", "phi3": "<|endoftext|>"}


def test_every_fallback_has_an_expected_rendering() -> None:
    assert set(FALLBACK_OUTPUT) == set(FALLBACK_NAMES)


@pytest.mark.parametrize("name", FALLBACK_NAMES)
def test_fallback_renders_its_published_format(name: str) -> None:
    template = fallback(name)
    assert template.origin == "fallback"
    assert template.stop
    rendered = render(
        template, CONVERSATION, bos_token=BOS.get(name, ""), eos_token=EOS.get(name, "")
    )
    assert rendered == FALLBACK_OUTPUT[name]


def test_fallbacks_without_a_system_message() -> None:
    assert render(fallback("gemma"), [USER]) == (
        "<start_of_turn>user\nHi<end_of_turn>\n<start_of_turn>model\n"
    )
    assert render(fallback("mistral"), [USER]) == "[INST] Hi [/INST]"
    assert render(fallback("chatml"), [USER], add_generation_prompt=False) == (
        "<|im_start|>user\nHi<|im_end|>\n"
    )


def test_unknown_fallback_name() -> None:
    with pytest.raises(TemplateError, match="no built-in chat template"):
        fallback("alpaca")


# Choosing a fallback


def test_chatml_tokens_choose_chatml_and_say_why() -> None:
    vocabulary = [f"tok{i}" for i in range(150_000)] + ["<|im_start|>", "<|im_end|>"]
    chosen = choose_template(embedded=None, architecture="llama", tokens=vocabulary)
    assert (chosen.name, chosen.origin, chosen.stop) == ("chatml", "fallback", ("<|im_end|>",))
    assert "no chat template" in chosen.reason
    assert "ChatML" in chosen.reason
    assert "<|im_start|>" in chosen.reason


@pytest.mark.parametrize(
    ("tokens", "name"),
    [
        (["<|begin_of_text|>", "<|start_header_id|>", "<|eot_id|>"], "llama3"),
        (["<bos>", "<start_of_turn>", "<end_of_turn>"], "gemma"),
        (["<|user|>", "<|assistant|>", "<|end|>"], "phi3"),
        (["<s>", "[INST]", "[/INST]"], "mistral"),
    ],
)
def test_special_tokens_choose_the_format(tokens: list[str], name: str) -> None:
    chosen = choose_template(embedded="  ", architecture="llama", tokens=tokens)
    assert chosen.name == name
    assert "the tokenizer has" in chosen.reason


@pytest.mark.parametrize(
    ("architecture", "name"),
    [("gemma3", "gemma"), ("phi3", "phi3"), ("qwen2", "chatml"), ("qwen3", "chatml")],
)
def test_architecture_chooses_the_format(architecture: str, name: str) -> None:
    chosen = choose_template(embedded=None, architecture=architecture, tokens=["a", "b"])
    assert chosen.name == name
    assert architecture in chosen.reason


def test_llama_with_the_llama3_vocabulary_is_llama3() -> None:
    tokens = [f"t{i}" for i in range(128256)]
    assert choose_template(embedded=None, architecture="llama", tokens=tokens).name == "llama3"


def test_plain_llama_uses_the_model_name_or_refuses() -> None:
    chosen = choose_template(embedded=None, architecture="llama", model_name="Mistral-7B v0.1")
    assert chosen.name == "mistral"
    assert "name" in chosen.reason
    with pytest.raises(TemplateError, match="no chat template"):
        choose_template(embedded=None, architecture="llama", tokens=["a", "b"])


def test_nothing_identifiable_raises_and_says_a_template_can_be_supplied() -> None:
    with pytest.raises(TemplateError, match="Supply a chat template"):
        choose_template(embedded=None, architecture="unknownarch", tokens=["<s>", "</s>"])
    with pytest.raises(TemplateError):
        choose_template(embedded="", architecture=None)


def test_phi4_vocabulary_is_not_mistaken_for_chatml_or_phi3() -> None:
    tokens = ["<|im_start|>", "<|im_sep|>", "<|im_end|>"]
    with pytest.raises(TemplateError):
        choose_template(embedded=None, architecture="phi3", tokens=tokens)


# Helpers real templates use


def test_strftime_now_tojson_and_loop_controls_work() -> None:
    year = time.strftime("%Y")
    source = (
        "{{ strftime_now('%Y') }}|{{ messages | tojson }}|{{ {'k': 'é'} | tojson(indent=2) }}|"
        "{% for m in messages %}{% if loop.index > 1 %}{% break %}{% endif %}{{ m.role }}"
        "{% endfor %}|{% generation %}{{ date_string | length > 0 }}{% endgeneration %}"
    )
    assert render_source(source) == (
        f'{year}|[{{"role": "system", "content": "Be brief."}}, '
        '{"role": "user", "content": "Hi"}]|{\n  "k": "é"\n}|system|True'
    )


def test_raise_exception_carries_the_templates_message() -> None:
    with pytest.raises(TemplateError, match="bad role"):
        render_source("{{ raise_exception('bad role') }}")


def test_syntax_error_is_a_template_error() -> None:
    with pytest.raises(TemplateError, match="syntax error on line 2"):
        render_source("{% for m in messages %}\n{{ m.role }\n{% endfor %}")


@pytest.mark.parametrize(
    "source",
    [
        "{{ missing.attribute }}",
        "{{ 1 / 0 }}",
        "{{ messages[0] + 1 }}",
        "{% for x in 5 %}{% endfor %}",
        "{% macro f() %}{{ f() }}{% endmacro %}{{ f() }}",
    ],
)
def test_runtime_failures_are_template_errors(source: str) -> None:
    with pytest.raises(TemplateError):
        render_source(source)


# Hostile templates


@pytest.mark.parametrize(
    "source",
    [
        "{{ ''.__class__.__mro__[1].__subclasses__() }}",
        "{{ self._TemplateReference__context }}",
        "{{ messages.__class__ }}",
        "{{ '{0.__class__}'.format('x') }}",
        "{{ messages.append(1) }}",
        "{{ messages[0].update({'role': 'x'}) }}",
        "{% include '/etc/passwd' %}",
        "{% import 'os' as os %}",
        "{% extends 'base.html' %}",
        "{{ 'a' * 10**12 }}",
        "{{ [0] * 10**12 }}",
        "{{ 10 ** (10 ** 8) }}",
        "{{ 'a' | center(10**12) }}",
        "{{ 'a'.ljust(10**12) }}",
        "{{ '{:>99999999999}'.format('a') }}",
        "{{ '%99999999999d' % 1 }}",
        "{{ strftime_now('%99999999999Y') }}",
        "{{ 'a\tb'.expandtabs(10**5) }}",
        "{{ 'a'.encode() }}",
        "{{ (1).to_bytes(10**9, 'big') }}",
        "{{ ('{0}' * 1000).format('a' * 1000000) }}",
        "{{ ('%s' * 1000) % (('a' * 1000000,) * 1000) }}",
        "{{ 'x'.join(['a'] * 10**8) }}",
        "{{ ('a' * 1000).replace('', 'b' * 100000, -1) }}",
        "{{ ('a' * 1000) | replace('a', 'b' * 100000) }}",
        "{{ ('a\n' * 100000) | indent(1000) }}",
        "{% set ns = namespace(s='ab') %}{% for i in range(64) %}{% set ns.s = ns.s ~ ns.s %}"
        "{% endfor %}",
        "{% set ns = namespace(s='ab') %}{% for i in range(64) %}"
        "{% set ns.s = ns.s | replace('a', 'aa') %}{% endfor %}",
        "{% set ns = namespace(l=['x' * 1000]) %}{% for i in range(20) %}"
        "{% set ns.l = ns.l + ns.l %}{% endfor %}{{ ns.l }}",
        "{% set s = 'a' * 10000000 %}{% set x %}{% for i in range(100000) %}{{ s }}{% endfor %}"
        "{% endset %}",
        "{% for i in range(20) %}{{ 'a' * 1000000 }}{% endfor %}",
    ],
)
def test_hostile_templates_raise_template_error(source: str) -> None:
    with pytest.raises(TemplateError):
        render_source(source)


def test_hostile_template_executes_nothing(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    source = "{{ cycler.__init__.__globals__.os.popen('touch " + str(marker) + "').read() }}"
    with pytest.raises(TemplateError, match="not allowed"):
        render_source(source)
    assert not marker.exists()


def test_huge_range_is_refused() -> None:
    with pytest.raises(TemplateError, match="safety limit"):
        render_source("{% for x in range(10**12) %}x{% endfor %}")


def test_runaway_nested_loops_are_stopped() -> None:
    with pytest.raises(TemplateError, match="safety limit"):
        render_source(
            "{% for a in range(100000) %}{% for b in range(100000) %}{% endfor %}{% endfor %}"
        )


def test_messages_are_not_changed_by_a_template() -> None:
    messages = [ChatMessage("user", "Hi")]
    with pytest.raises(TemplateError):
        render(model_template("{{ messages[0].update({'role': 'x'}) }}"), messages)
    assert messages == [ChatMessage("user", "Hi")]


FIRST_SYSTEM_ONLY = (
    "{% for m in messages %}{% if m.role == 'system' and not loop.first %}"
    "{{ raise_exception('System role is only supported at the start') }}{% endif %}"
    "[{{ m.role }}]{{ m.content }}{% endfor %}"
)


def test_a_late_system_message_goes_where_the_template_takes_it() -> None:
    """Claude Code sends system messages among the turns; a template that takes one only at the
    start gets them joined to the leading one, in order, instead of refusing the conversation."""
    strict = ChatTemplate("strict", FIRST_SYSTEM_ONLY, "model", (), "test")
    messages = [
        ChatMessage("system", "Be brief."),
        ChatMessage("user", "Hi"),
        ChatMessage("system", "The date is today."),
    ]
    prompt = render(strict, messages, add_generation_prompt=False)
    assert prompt == "[system]Be brief.\n\nThe date is today.[user]Hi"
    # A template that takes them where they stand keeps them there.
    chatml = fallback("chatml")
    assert render(chatml, messages).index("The date is today.") > render(chatml, messages).index(
        "Hi"
    )
    # With no system message at the start, one is made.
    late_only = [ChatMessage("user", "a"), ChatMessage("system", "x")]
    assert render(strict, late_only, add_generation_prompt=False) == "[system]x[user]a"
