"""Chat templates: choosing one for a model, and rendering it without trusting it (in the
sandbox of ``engine.templates.sandbox``).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

import jinja2

from engine.errors import TemplateError
from engine.formats.thinking_switch import THINKING_VARIABLE
from engine.templates.sandbox import compile_source, render_compiled
from engine.templates.tool_prompt import fallback_messages, renders_tools, template_messages
from engine.tools import Tool
from engine.types import ChatMessage


# A model's template is compiled once, not at every turn.
@functools.lru_cache(maxsize=32)
def _compile(source: str) -> jinja2.Template:
    return compile_source(source)


@dataclass(frozen=True, slots=True)
class ChatTemplate:
    name: str
    source: str
    origin: Literal["model", "fallback"]
    stop: tuple[str, ...]
    reason: str


def render(
    template: ChatTemplate,
    messages: Sequence[ChatMessage],
    *,
    add_generation_prompt: bool = True,
    bos_token: str = "",
    eos_token: str = "",
    tools: Sequence[Tool] = (),
    thinking: bool | None = None,
) -> str:
    """The prompt text for ``messages`` (and the ``tools`` offered, through the template where it
    renders them, else engine.templates.tool_prompt's fallback); ``thinking`` (None: the
    template's default) is given to a template that can turn the model's thinking off
    (engine.formats.thinking_switch). Any failure of the template is a ``TemplateError``."""
    options = _Options(add_generation_prompt, bos_token, eos_token, tools, thinking)
    try:
        return _render(template, messages, options)
    except TemplateError:
        folded = fold_late_system(messages)
        if folded is None:
            raise
    # The template refused a system message after the first turn (Claude Code sends them;
    # many templates take one at the start only): the same instructions, where it takes them.
    return _render(template, folded, options)


def fold_late_system(messages: Sequence[ChatMessage]) -> list[ChatMessage] | None:
    """``messages`` with every system message after the first turn joined to the leading one
    (made if there is none); None when there is none to move."""
    lead = 1 if messages and messages[0].role == "system" else 0
    late = [m for m in messages[lead:] if m.role == "system"]
    if not late:
        return None
    texts = [m.content for m in [*messages[:lead], *late] if m.content]
    rest = [m for m in messages[lead:] if m.role != "system"]
    return [ChatMessage("system", "\n\n".join(texts)), *rest]


@dataclass(frozen=True, slots=True)
class _Options:
    add_generation_prompt: bool
    bos_token: str
    eos_token: str
    tools: Sequence[Tool]
    thinking: bool | None


def _render(template: ChatTemplate, messages: Sequence[ChatMessage], options: _Options) -> str:
    compiled = _compile(template.source)
    tools = options.tools
    tooled = bool(tools) or any(m.role == "tool" or m.tool_calls for m in messages)
    native = tooled and renders_tools(template.source)
    if tooled and not native:
        messages = fallback_messages(messages, tools)
    # The one variable a request may set; the others are the engine's, and a client that set
    # them could rewrite the prompt or make the template fail. Unset, the template's default.
    chosen = {} if options.thinking is None else {THINKING_VARIABLE: options.thinking}
    variables = {
        **chosen,
        "messages": template_messages(messages),
        "add_generation_prompt": options.add_generation_prompt,
        "bos_token": options.bos_token,
        "eos_token": options.eos_token,
        "tools": [t.to_openai() for t in tools] if native and tools else None,
        "date_string": datetime.now().strftime("%d %b %Y"),
    }
    return render_compiled(compiled, variables)


# Built-in templates, written from each family's published prompt format. They are lenient
# (roles need not alternate): a conversation that is unusual is still a conversation.
_CHATML = (
    "{% for m in messages %}{{ '<|im_start|>' + m.role + '\n' + m.content + '<|im_end|>\n' }}"
    "{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)
_LLAMA3 = (
    "{{ bos_token }}{% for m in messages %}{{ '<|start_header_id|>' + m.role"
    " + '<|end_header_id|>\n\n' + m.content | trim + '<|eot_id|>' }}{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|start_header_id|>assistant<|end_header_id|>\n\n' }}"
    "{% endif %}"
)
_GEMMA = (
    "{{ bos_token }}{% set ns = namespace(system='') %}{% for m in messages %}"
    "{% if m.role == 'system' %}{% set ns.system = ns.system + m.content | trim + '\n\n' %}"
    "{% else %}{{ '<start_of_turn>' + ('model' if m.role == 'assistant' else 'user') + '\n'"
    " + ns.system + m.content | trim + '<end_of_turn>\n' }}{% set ns.system = '' %}{% endif %}"
    "{% endfor %}{% if ns.system %}{{ '<start_of_turn>user\n' + ns.system | trim"
    " + '<end_of_turn>\n' }}{% endif %}"
    "{% if add_generation_prompt %}{{ '<start_of_turn>model\n' }}{% endif %}"
)
_MISTRAL = (
    "{{ bos_token }}{% set ns = namespace(system='') %}{% for m in messages %}"
    "{% if m.role == 'system' %}{% set ns.system = ns.system + m.content + '\n\n' %}"
    "{% elif m.role == 'user' %}{{ '[INST] ' + ns.system + m.content + ' [/INST]' }}"
    "{% set ns.system = '' %}{% else %}{{ m.content + eos_token }}{% endif %}{% endfor %}"
    "{% if ns.system %}{{ '[INST] ' + ns.system | trim + ' [/INST]' }}{% endif %}"
)
_LLAMA2 = (
    "{% set ns = namespace(system='') %}{% for m in messages %}{% if m.role == 'system' %}"
    "{% set ns.system = '<<SYS>>\n' + m.content | trim + '\n<</SYS>>\n\n' %}"
    "{% elif m.role == 'user' %}{{ bos_token + '[INST] ' + ns.system + m.content | trim"
    " + ' [/INST]' }}{% set ns.system = '' %}"
    "{% else %}{{ ' ' + m.content | trim + ' ' + eos_token }}{% endif %}{% endfor %}"
    "{% if ns.system %}{{ bos_token + '[INST] ' + ns.system | trim + ' [/INST]' }}{% endif %}"
)
_PHI3 = (
    "{% for m in messages %}{{ '<|' + m.role + '|>\n' + m.content + '<|end|>\n' }}{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|assistant|>\n' }}{% else %}{{ eos_token }}{% endif %}"
)

# name: (label, source, stop strings)
_FORMATS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "chatml": ("ChatML", _CHATML, ("<|im_end|>",)),
    "llama3": ("Llama 3", _LLAMA3, ("<|eot_id|>",)),
    "gemma": ("Gemma", _GEMMA, ("<end_of_turn>",)),
    "mistral": ("Mistral", _MISTRAL, ("</s>", "[INST]")),
    "phi3": ("Phi-3", _PHI3, ("<|end|>", "<|endoftext|>")),
    "llama2": ("Llama 2", _LLAMA2, ("</s>", "[INST]")),
}
FALLBACK_NAMES: tuple[str, ...] = tuple(_FORMATS)

# Markers that identify a format, in a template's text or among a tokenizer's special tokens;
# strongest first, and every marker of a group must be present.
_MARKERS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("<|im_sep|>",), "phi4"),  # ChatML's tokens, phi3's architecture, a format of its own
    (("<|im_start|>",), "chatml"),
    (("<|start_header_id|>",), "llama3"),
    (("<start_of_turn>",), "gemma"),
    (("<|user|>", "<|end|>"), "phi3"),
    (("[INST]", "<<SYS>>"), "llama2"),
    (("[INST]",), "mistral"),
)
_MARKER_SET = frozenset(marker for group, _ in _MARKERS for marker in group)
# Text that ends a turn when a template writes it, and so makes a good stop string.
_END_MARKERS: tuple[str, ...] = (
    "<|im_end|>",
    "<|eot_id|>",
    "<|eom_id|>",
    "<end_of_turn>",
    "<|end|>",
)
_END_MARKERS += ("<|endoftext|>", "<|END_OF_TURN_TOKEN|>", "</s>")
_ARCHITECTURES = {
    **dict.fromkeys(("qwen", "qwen2", "qwen2moe", "qwen3", "qwen3moe"), "chatml"),
    **dict.fromkeys(("gemma", "gemma2", "gemma3", "gemma3n"), "gemma"),
    **dict.fromkeys(("mistral", "mistral3", "mixtral"), "mistral"),
    "phi3": "phi3",
}
_LLAMA3_VOCAB = 128256
# Plain "llama" is shared by Llama 2, Llama 3, Mistral and more; names are the last resort.
_NAME_HINTS = (
    (("llama-3", "llama3"), "llama3"),
    (("llama-2", "llama2"), "llama2"),
    (("mistral", "mixtral"), "mistral"),
    (("qwen",), "chatml"),
    (("gemma",), "gemma"),
    (("phi-3", "phi3"), "phi3"),
)


def fallback(name: str, *, reason: str = "a built-in template was asked for") -> ChatTemplate:
    """The built-in template ``name`` (one of ``FALLBACK_NAMES``)."""
    if name not in _FORMATS:
        known = ", ".join(FALLBACK_NAMES)
        raise TemplateError(f"There is no built-in chat template {name!r} (there are {known}).")
    _, source, stop = _FORMATS[name]
    return ChatTemplate(name=name, source=source, origin="fallback", stop=stop, reason=reason)


def _chosen(name: str, because: str) -> ChatTemplate:
    label = _FORMATS[name][0]
    return fallback(
        name, reason=f"the model file has no chat template; chose {label} because {because}"
    )


def choose_template(
    *,
    embedded: str | None,
    architecture: str | None,
    tokens: Sequence[str] | None = None,
    model_name: str | None = None,
) -> ChatTemplate:
    """The model's own template when it has one, else a built-in chosen on real evidence."""
    if embedded and embedded.strip():
        name = next((n for g, n in _MARKERS if all(m in embedded for m in g)), "custom")
        known = _FORMATS[name][2] if name in _FORMATS else ()
        stop = dict.fromkeys((*known, *(m for m in _END_MARKERS if m in embedded)))
        return ChatTemplate(name, embedded, "model", tuple(stop), "from the model file")
    arch = (architecture or "").strip().lower()
    found: str | None = None
    if tokens is not None:
        present = _MARKER_SET.intersection(tokens)  # one pass over a vocabulary of ~150k
        group, found = next(((g, n) for g, n in _MARKERS if present.issuperset(g)), ((), None))
        if found in _FORMATS:
            return _chosen(found, "the tokenizer has " + " and ".join(group))
    if found is None and arch in _ARCHITECTURES:
        return _chosen(_ARCHITECTURES[arch], f"the model's architecture is {arch}")
    if found is None and arch == "llama" and tokens is not None and len(tokens) == _LLAMA3_VOCAB:
        return _chosen("llama3", f"it is a llama model with Llama 3's {_LLAMA3_VOCAB} tokens")
    lowered = (model_name or "").lower().replace(" ", "-").replace("_", "-")
    for hints, name in _NAME_HINTS if found is None else ():
        if hint := next((h for h in hints if h in lowered), None):
            return _chosen(name, f"the model's name ({model_name}) mentions {hint!r}")
    raise TemplateError(
        "The model file has no chat template, and neither its tokenizer, its architecture "
        f"({architecture or 'unknown'}) nor its name tells which chat format it expects. "
        "Supply a chat template for this model to chat with it."
    )
