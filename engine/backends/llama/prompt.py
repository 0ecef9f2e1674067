"""A prompt for a llama.cpp model, as chat and completion both build it: the conversation
rendered in the model's chat template, text as token ids (the beginning-of-sequence token where
the model wants one), and the images of a vision model as runs of cells
(engine/backends/llama/vision.py)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Protocol

from engine.errors import EngineError
from engine.templates import ChatTemplate, render
from engine.tools import Tool
from engine.types import ChatMessage, ImageInput

if TYPE_CHECKING:
    from engine.backends.llama.vision import Vision


class Vocabulary(Protocol):
    """What building a prompt reads of a model's vocabulary."""

    @property
    def bos_text(self) -> str: ...

    @property
    def eos_text(self) -> str: ...

    @property
    def adds_bos(self) -> bool: ...

    def tokenize_native(self, data: bytes, add_bos: bool, special: bool) -> list[int]: ...


def render_chat(
    vocab: Vocabulary,
    template: ChatTemplate,
    messages: Sequence[ChatMessage],
    tools: Sequence[Tool] = (),
    thinking: bool | None = None,
) -> str:
    """The conversation in ``template`` (sandboxed), with the vocabulary's BOS and EOS texts."""
    return render(
        template,
        messages,
        bos_token=vocab.bos_text,
        eos_token=vocab.eos_text,
        tools=tools,
        thinking=thinking,
    )


def text_tokens(
    vocab: Vocabulary, text: str, *, special: bool = True, add_bos: bool | None = None
) -> list[int]:
    """Token ids of ``text``. BOS is added when the model wants it, unless the text (a rendered
    template) already starts with it."""
    if add_bos is None:
        add_bos = vocab.adds_bos and not (vocab.bos_text and text.startswith(vocab.bos_text))
    return vocab.tokenize_native(text.encode("utf-8"), add_bos, special)


def prompt_tokens(
    vocab: Vocabulary, vision: Vision | None, text: str, images: Sequence[ImageInput]
) -> list[int]:
    """Token ids of a rendered conversation whose ``images`` stand at the projector's markers:
    each image piece a run of one negative id; BOS, where the model wants one, before the first
    part only."""
    if not images or vision is None:
        return text_tokens(vocab, text)
    out: list[int] = []
    for i, part in enumerate(vision.layout(text, list(images))):
        if isinstance(part, list):
            out += part
        else:
            out += text_tokens(vocab, part) if i == 0 else text_tokens(vocab, part, add_bos=False)
    return out


def image_parts(vision: Vision, todo: list[int], step: int) -> Iterator[list[int]]:
    """The prompt tokens still to evaluate of a vision model: text in batches of ``step``, each
    image piece whole."""
    i = 0
    while i < len(todo):
        if todo[i] < 0:
            piece = vision.piece(todo[i])
            if piece is None:
                raise EngineError("The prompt holds an image Cove did not prepare.")
            yield todo[i : i + piece.n_tokens]
            i += piece.n_tokens
            continue
        end = i
        while end < len(todo) and end - i < step and todo[end] >= 0:
            end += 1
        yield todo[i:end]
        i = end
