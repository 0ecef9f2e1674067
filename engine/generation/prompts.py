"""What a request becomes before the loop runs: a chat's messages rendered in the model's
template and fitted into the window (the newest message always kept), or a raw prompt's tokens;
the stop strings; and how the reply opens. The prompt itself is computed when the loop calls it,
with the model's lock held."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Protocol

from engine.errors import EngineError, InvalidRequest
from engine.generation.context import fit_prompt, prompt_overflow
from engine.generation.reasoning import OPEN, opens_thinking
from engine.generation.runtime import LoopModel
from engine.images import require_vision
from engine.templates.continuation import continue_final, continues, mark_final
from engine.types import ChatMessage, GenerationParams, ImageInput, Truncation


class Prompt(Protocol):
    """A request's prompt tokens, and what fitting the window left out."""

    def __call__(self) -> tuple[list[int], Truncation | None]: ...


def placed(model: LoopModel, messages: Sequence[ChatMessage]) -> Sequence[ChatMessage]:
    """Each message's images put in its text at the runtime's marker, before the words (where
    vision chat templates put them)."""
    if not any(m.images for m in messages):
        return messages
    marker = model.image_marker
    return [
        replace(m, content="".join(f"{marker}\n" for _ in m.images) + m.content, images=())
        if m.images
        else m
        for m in messages
    ]


def chat_request(
    model: LoopModel, messages: Sequence[ChatMessage], params: GenerationParams
) -> tuple[Prompt, tuple[str, ...], Callable[[], str]]:
    """What a chat reply needs before the loop: the prompt (computed when called), the stop
    strings, and how the reply opens."""
    require_vision(model, messages)
    rendered = [""]
    kept_images: list[list[ImageInput]] = [[]]
    # Fitting the window never drops the newest message: a continued one is always kept.
    continuing = continues(messages, params)

    def render(kept: Sequence[ChatMessage]) -> str:
        shown = placed(model, kept)
        tools, thinking = params.tools, params.thinking
        if continuing:
            rendered[0] = continue_final(model.render(mark_final(shown), tools, thinking))
        else:
            rendered[0] = model.render(shown, tools, thinking)
        kept_images[0] = [image for m in kept for image in m.images]
        return rendered[0]

    def prompt() -> tuple[list[int], Truncation | None]:
        return fit_prompt(
            messages,
            render,
            lambda text: model._prompt_tokens(text, kept_images[0]),
            n_ctx=model._n_ctx,
            max_tokens=params.max_tokens,
        )

    def lead() -> str:
        # A template that opens the model's thinking itself: the reply starts inside it, and
        # says so, as a reply that opens it does (engine.generation.reasoning).
        # A grammar leaves no room for thinking, and a continued reply has opened already.
        opens = params.grammar is None and not continuing and opens_thinking(rendered[0])
        return OPEN + "\n" if opens else ""

    return prompt, (*params.stop, *model.template.stop), lead


def complete_request(
    model: LoopModel, prompt: str | Sequence[int], params: GenerationParams
) -> Prompt:
    """A raw prompt's tokens (computed when called): text tokenized, or token ids read as they
    are."""

    def tokens() -> tuple[list[int], Truncation | None]:
        if isinstance(prompt, str):
            ids = model.tokenize(prompt)
        else:
            ids = list(prompt)
            model._check_tokens(ids)
        overflow = prompt_overflow(len(ids), model._n_ctx, params.max_tokens)
        if overflow is not None:
            raise EngineError(overflow)
        return ids, None

    return tokens


def check_grammar(model: LoopModel, params: GenerationParams) -> None:
    """A reply that must match a schema or a required call is never produced unconstrained."""
    if params.grammar is not None and not model.constrains:
        raise InvalidRequest(
            f"{model.runtime} cannot constrain a reply to a JSON schema or a required tool "
            "call; load a GGUF model (llama.cpp) for response_format json_schema/json_object "
            "and tool_choice required or a named function."
        )
