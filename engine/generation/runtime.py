"""What a runtime hands the generation loop, and what the loop's parts ask of the model.

A backend gives the loop a ``TokenSource`` per generation (its sampler) and a ``TokenDecoder``
(tokens back to text); a source may also check guessed tokens in one batch (``Verifier``) or hand
a token in ahead of its text (``HandsIn``). ``LoopModel`` is the model as prompt reading,
scoring, saved states and decoding see it: the backend's hooks of ``GenerationLoop`` and the
loop's bookkeeping of what is in the cache.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager as ContextManager
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from engine.generation.speculation import DraftPolicy
from engine.generation.state_cache import StateCache
from engine.tools import Tool
from engine.types import ChatMessage, GenerationParams, ImageInput

if TYPE_CHECKING:
    from engine.templates import ChatTemplate


class TokenSource(Protocol):
    """A runtime's sampler for one generation."""

    def sample(self) -> int:
        """The next token, from the logits of the last evaluated position."""
        ...

    def accept(self, token: int, cancel: threading.Event) -> bool:
        """Make ``token`` part of the sequence so that the next sample follows it; False when
        cancelled on the way."""
        ...

    def logits(self) -> Any:
        """The logits the next ``sample()`` chooses from (one row, the vocabulary's size):
        read before it, used before ``accept``."""
        ...


@runtime_checkable
class Verifier(Protocol):
    """A runtime that can check guessed tokens in one batch."""

    def verify(
        self, token: int, draft: list[int], cancel: threading.Event, want_logits: bool
    ) -> list[tuple[int, Any]] | None:
        """Evaluate ``token`` and ``draft`` in one batch, then sample each position in order
        with this generation's sampler until a sample differs from the guess: returns the
        samples (each with its logits when ``want_logits``), the guesses agreed with followed by
        the first that differs (or, when all agreed, the one after them). The cache keeps
        ``token`` and the agreed guesses and nothing after. None when cancelled."""
        ...


class HandedIn(Protocol):
    """A token handed in for evaluation ahead of being accepted (``HandsIn``)."""

    def finish(self, cancel: threading.Event) -> bool:
        """Wait for the evaluation: ``token`` is then part of the sequence; False when
        cancelled on the way (it is not)."""
        ...

    def drop(self) -> None:
        """Take the token back (not needed after all)."""
        ...


@runtime_checkable
class HandsIn(Protocol):
    """A source that can hand a token in for evaluation before it is accepted (a shared
    context's sequence beside others), so that its text goes out while the step runs."""

    def hand_in(self, token: int, cancel: threading.Event) -> HandedIn | None:
        """``token`` on its way into the sequence; None: not now (``accept`` it instead)."""
        ...


class TokenDecoder(Protocol):
    """Token ids to text, holding back bytes of a character split across tokens."""

    def feed(self, token: int) -> str: ...

    def flush(self) -> str: ...


class LoopModel(Protocol):
    """A ``GenerationLoop`` as its parts see it (engine/generation/loop.py documents each hook)."""

    template: ChatTemplate
    n_batch: int
    runtime: str
    constrains: bool
    speculates: bool
    exact_cells: int
    scores_prompts: bool
    bos_token: int | None
    image_marker: str
    # The loop's bookkeeping: the tokens in the runtime's cache, the state cache, the tokens of
    # the last state handed to it, and what speculation has measured of this model.
    _n_ctx: int
    _cached: list[int]
    _states: StateCache | None
    _saved: tuple[int, ...]
    _draft_policy: DraftPolicy

    def render(
        self,
        messages: Sequence[ChatMessage],
        tools: Sequence[Tool] = (),
        thinking: bool | None = None,
    ) -> str: ...

    def tokenize(self, text: str) -> list[int]: ...

    def _prompt_tokens(self, text: str, images: Sequence[ImageInput]) -> list[int]: ...

    def _check_tokens(self, ids: Sequence[int]) -> None: ...

    def _rewind(self, keep: int, params: GenerationParams) -> int: ...

    def _parts(self, todo: list[int]) -> Iterator[list[int]]: ...

    def _feed(self, tokens: list[int], cancel: threading.Event, last: bool) -> bool: ...

    def _feed_scored(self, tokens: list[int], cancel: threading.Event) -> bool: ...

    def _logits_at(self, index: int) -> Any: ...

    def _prefilling(self) -> ContextManager[None]: ...

    def _token_bytes(self, token: int) -> bytes: ...

    def _is_end(self, token: int) -> bool: ...

    def _decoder(self) -> TokenDecoder: ...

    def _forget(self) -> None: ...

    def _alone(self) -> bool: ...

    def _state_key(self) -> str | None: ...

    def _state_bytes(self) -> bytes | memoryview: ...

    def _restore_state(self, data: bytes) -> bool: ...
