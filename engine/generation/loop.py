"""One generation loop for every backend.

The loop owns everything a backend would otherwise copy: templating and fitting the conversation
into the window, stop strings, cancellation, the timings, the terminal chunk, and the bookkeeping
of which tokens are in the KV cache (so that a follow-up only evaluates its new tokens). A backend
supplies only what is runtime-specific: render and tokenize, rewind its cache, evaluate tokens,
sample the next one, turn tokens back into text, and free its memory.

The shape follows mlx-lm's ``stream_generate``: a generator of small chunks whose last item carries
the finish reason and the stats. Its parts have modules of their own: the request's prompt
(``prompts``), reading it into the cache (``prefill``), the conversation's saved state
(``saved_states``), the reply token by token (``decoding``) and a draft model's guesses
(``drafting``); ``runtime`` holds what a backend hands the loop.
"""

from __future__ import annotations

import contextlib
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager as ContextManager
from typing import TYPE_CHECKING, Any, Self

from engine.errors import (
    EngineBusy,
    EngineError,
    GenerationError,
    InvalidRequest,
    ModelNotFound,
)
from engine.generation import prompts
from engine.generation.clock import StatsClock
from engine.generation.decoding import Body, Ending, decode
from engine.generation.drafting import ModelGuesser
from engine.generation.prefill import prefill, score
from engine.generation.runtime import HandedIn, TokenDecoder, TokenSource
from engine.generation.saved_states import save_state
from engine.generation.speculation import Drafter, DraftPolicy
from engine.generation.state_cache import StateCache
from engine.images import require_vision
from engine.tools import Tool
from engine.types import (
    ChatMessage,
    Chunk,
    FinishReason,
    GenerationParams,
    GenerationStats,
    ImageInput,
    TokenLogprob,
    Truncation,
)

if TYPE_CHECKING:
    from engine.templates import ChatTemplate

# What backends build on: the loop, and the runtime's parts it takes (engine/generation/runtime.py).
__all__ = ["GenerationLoop", "HandedIn", "TokenDecoder", "TokenSource"]


class GenerationLoop(ABC):
    """A resident model that generates through the shared loop.

    Not thread-safe by design: the engine serialises requests per model, and a lock turns a second
    concurrent call into a clear error instead of corrupted state. ``close()`` stops a running
    generation, waits for it to let go of the model, then frees the runtime's memory.
    """

    template: ChatTemplate
    n_batch: int
    runtime = "this runtime"  # its name, for messages
    constrains = False  # whether it can hold a reply to a grammar (``params.grammar``)
    speculates = True  # whether replies check guessed tokens in batches (when the source can)
    # Up to how many cached tokens a batch's logits are bit for bit those of the same tokens
    # evaluated one at a time (measured at load; 0: not even there). Speculation "exact" checks
    # guesses only within it, so that the reply is exactly what plain decoding gives.
    exact_cells = 0
    vision = False  # whether it reads the images of user messages
    # Whether it can score a prompt (``params.score_prompt``): logits for every prompt position.
    scores_prompts = False
    bos_token: int | None = None  # the beginning-of-sequence token, where the vocabulary has one

    def __init__(self, n_ctx: int, n_batch: int) -> None:
        self._n_ctx = n_ctx
        self.n_batch = n_batch
        self._lock = threading.Lock()
        # The running generation's cancel event: close() sets it, and native code polls it.
        self._cancel = threading.Event()
        self._closed = False
        self._cached: list[int] = []
        # What speculation has measured of this model on this machine, kept across replies.
        self._draft_policy = DraftPolicy()
        self._states: StateCache | None = None
        self._guesser = ModelGuesser()  # a smaller model guessing for this one, if any
        self._saved: tuple[int, ...] = ()  # the tokens of the last state handed to the cache

    # -- what a backend supplies -------------------------------------------------------------

    @abstractmethod
    def render(
        self,
        messages: Sequence[ChatMessage],
        tools: Sequence[Tool] = (),
        thinking: bool | None = None,
    ) -> str:
        """The conversation in the model's chat template (sandboxed); ``thinking`` as
        ``GenerationParams.thinking``."""

    @abstractmethod
    def tokenize(self, text: str) -> list[int]: ...

    @abstractmethod
    def _rewind(self, keep: int, params: GenerationParams) -> int:
        """Cut the runtime's sequence back to its first ``keep`` tokens and return how many it
        kept: fewer (0, starting afresh) when it cannot keep them all, or when ``params`` need a
        fresh sampler state."""

    @abstractmethod
    def _feed(self, tokens: list[int], cancel: threading.Event, last: bool) -> bool:
        """Evaluate prompt tokens at the next positions (``last``: the final part, whose last
        position needs logits); False when cancelled, with nothing of this part kept."""

    @abstractmethod
    def _sampler(self, params: GenerationParams) -> ContextManager[TokenSource]: ...

    @abstractmethod
    def _is_end(self, token: int) -> bool:
        """End of generation: the vocabulary's end tokens and the template's end-of-turn."""

    @abstractmethod
    def _decoder(self) -> TokenDecoder: ...

    @abstractmethod
    def _forget(self) -> None:
        """Drop the runtime's cached sequence."""

    @abstractmethod
    def _free(self) -> None:
        """Release the runtime's native memory (called once, with the model idle)."""

    def _prompt_tokens(self, text: str, images: Sequence[ImageInput]) -> list[int]:
        """Token ids of a rendered conversation whose ``images`` stand at ``image_marker``s
        (a vision runtime evaluates each image piece as a run of cells)."""
        del images
        return self.tokenize(text)

    image_marker = ""  # where an image stands in a rendered prompt (a vision runtime's own)

    def _parts(self, todo: list[int]) -> Iterator[list[int]]:
        """The prompt tokens still to evaluate, in the pieces ``_feed`` takes."""
        step = self.n_batch
        for start in range(0, len(todo), step):
            yield todo[start : start + step]

    def _feed_scored(self, tokens: list[int], cancel: threading.Event) -> bool:
        """Evaluate prompt tokens at the next positions with logits for every one of them (read
        with ``_logits_at``); False when cancelled, with nothing of them kept."""
        raise InvalidRequest(f"{self.runtime} cannot score a prompt's tokens.")

    def _logits_at(self, index: int) -> Any:
        """The logits of position ``index`` of the tokens last evaluated (valid until the next
        evaluation)."""
        raise NotImplementedError

    def _check_tokens(self, ids: Sequence[int]) -> None:
        """Refuse a prompt sent as token ids that this model cannot read."""
        raise InvalidRequest(f"{self.runtime} reads a prompt as text; send 'prompt' as a string.")

    def _prefilling(self) -> ContextManager[None]:
        """Held while a prompt is evaluated (llama.cpp installs its abort callback here)."""
        return contextlib.nullcontext()

    def _token_bytes(self, token: int) -> bytes:
        """The bytes a token stands for (its text, or part of a character)."""
        raise NotImplementedError

    def _state_key(self) -> str | None:
        """What a saved state of this model depends on (engine/generation/state_cache.py); None
        when the runtime cannot save and restore its state."""
        return None

    def _state_bytes(self) -> bytes | memoryview:
        """The runtime's state of the cached sequence."""
        raise NotImplementedError

    def _restore_state(self, data: bytes) -> bool:
        """Replace the cached sequence with a saved state; False when the runtime refuses it
        (its cache is then empty)."""
        raise NotImplementedError

    def unsupported(self, params: GenerationParams) -> tuple[str, ...]:
        """Names of the parameters set in ``params`` that this runtime cannot honour."""
        del params
        return ()

    # -- the shared public surface -----------------------------------------------------------

    @property
    def n_ctx(self) -> int:
        return self._n_ctx

    @property
    def cached_tokens(self) -> int:
        """Tokens of the last conversation still in the KV cache (reused by a follow-up)."""
        return len(self._cached)

    def keep_states(self, cache: StateCache | None) -> None:
        """Save the conversation's state after each reply and restore it for a prompt that
        continues a saved one (where the runtime can)."""
        self._states = cache if self._state_key() is not None else None

    def count_tokens(self, messages: Sequence[ChatMessage], tools: Sequence[Tool] = ()) -> int:
        require_vision(self, messages)
        text = self.render(self._placed(messages), tools)
        return len(self._prompt_tokens(text, [i for m in messages for i in m.images]))

    def _placed(self, messages: Sequence[ChatMessage]) -> Sequence[ChatMessage]:
        """Each message's images put in its text at the runtime's marker, before the words."""
        return prompts.placed(self, messages)

    def chat(
        self,
        messages: Sequence[ChatMessage],
        params: GenerationParams,
        cancel: threading.Event | None = None,
    ) -> Iterator[Chunk]:
        """Stream a reply to a conversation; the last chunk is terminal and carries the stats."""
        started = time.perf_counter()
        self._check_grammar(params)
        prompt, stop, lead = self._chat_request(messages, params)
        return self._generate(prompt, params, cancel, stop, started, lead)

    def _chat_request(
        self, messages: Sequence[ChatMessage], params: GenerationParams
    ) -> tuple[prompts.Prompt, tuple[str, ...], Callable[[], str]]:
        """What a chat reply needs before the loop: the prompt (computed when called), the stop
        strings, and how the reply opens (engine/generation/prompts.py)."""
        return prompts.chat_request(self, messages, params)

    def complete(
        self,
        prompt: str | Sequence[int],
        params: GenerationParams,
        cancel: threading.Event | None = None,
    ) -> Iterator[Chunk]:
        """Stream a raw continuation of ``prompt`` (no chat template): text, or token ids read as
        they are."""
        started = time.perf_counter()
        self._check_grammar(params)
        return self._generate(
            self._complete_request(prompt, params), params, cancel, params.stop, started
        )

    def _complete_request(
        self, prompt: str | Sequence[int], params: GenerationParams
    ) -> prompts.Prompt:
        return prompts.complete_request(self, prompt, params)

    def _check_grammar(self, params: GenerationParams) -> None:
        """A reply that must match a schema or a required call is never produced unconstrained."""
        prompts.check_grammar(self, params)

    def reset(self) -> None:
        """Forget the cached conversation (the next request evaluates its whole prompt)."""
        self._forget()
        self._cached.clear()

    def close(self) -> None:
        """Stop a generation in flight, wait for it to let go, free the memory; idempotent."""
        if self._closed:
            return
        self._cancel.set()
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._cached.clear()
            self._guesser.close()
            self._free()

    @contextlib.contextmanager
    def held(self) -> Iterator[threading.Event]:
        """The model held for other work on its weights (a measurement) as a reply holds it:
        ``close()`` sets the event it yields and waits for it to let go. EngineBusy when a
        reply holds the model now."""
        if not self._lock.acquire(blocking=False):
            raise EngineBusy("The model is generating.")
        try:
            self._check_open()
            event = self._cancel = threading.Event()
            yield event
        finally:
            self._lock.release()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def attach_draft(self, drafter: Drafter | None) -> None:
        """Let a smaller model of the same vocabulary guess where the conversation offers no
        guess of its own (engine/backends/draft.py); None detaches (and frees) the current one."""
        self._guesser.attach(drafter)

    @property
    def draft_name(self) -> str | None:
        return self._guesser.name

    # -- the loop ------------------------------------------------------------------------------

    def _generate(
        self,
        prompt: prompts.Prompt,
        params: GenerationParams,
        cancel: threading.Event | None,
        stop: Sequence[str],
        started: float,
        lead: Callable[[], str] = lambda: "",
    ) -> Iterator[Chunk]:
        """One generation at a time, ending in exactly one terminal chunk whatever happens:
        an error inside becomes an ``error`` terminal chunk and forgets the cached sequence."""
        if not self._lock.acquire(blocking=False):
            busy = EngineBusy("This model is already generating a reply.")
            yield Chunk(finish_reason="error", error=str(busy), code=busy.code)
            return
        stats = StatsClock(started)
        finish: FinishReason = "stop"
        error: str | None = None
        code: str | None = None
        context_full = False
        end_token: TokenLogprob | None = None
        truncation: Truncation | None = None
        result: GenerationStats | None = None
        try:
            self._check_open()
            event = self._cancel = cancel or threading.Event()
            tokens, truncation = prompt()
            opening = lead()
            if opening:
                yield Chunk(text=opening)
            ending = yield from self._run(tokens, params, event, stop, stats)
            finish, context_full, end_token = ending.finish, ending.context_full, ending.end_token
            result = stats.result()
            if finish in ("stop", "length", "cancelled"):
                # Copied now, before the next request can change it; written in the background.
                # A cancelled reply (or one whose client went away) keeps what it read: the
                # conversation's next request continues from there, after a restart too.
                save_state(self, params.conversation)
        except EngineError as exc:
            finish, error, code = "error", str(exc), exc.code
            self._reset_quietly()
        except Exception as exc:  # the generator boundary: the stream must still end properly
            failure = GenerationError(f"The engine failed while generating: {exc}")
            finish, error, code = "error", str(failure), failure.code
            self._reset_quietly()
        finally:
            self._lock.release()
        yield Chunk(
            finish_reason=finish,
            stats=result if result is not None else stats.result(),
            truncation=truncation,
            error=error,
            code=code,
            context_full=context_full,
            ignored_params=self.unsupported(params),
            end_token=end_token,
        )

    def _run(
        self,
        tokens: list[int],
        params: GenerationParams,
        cancel: threading.Event,
        stop: Sequence[str],
        stats: StatsClock,
    ) -> Body:
        if params.score_prompt:
            scored = score(self, tokens, params, cancel)
            stats.prompt(len(tokens), 0)
            if scored is None:
                return Ending("cancelled")
            yield Chunk(scored_prompt=scored)
            if params.max_tokens == 0:
                return Ending("length")
        else:
            reused = self._prefill(tokens, params, cancel)
            stats.prompt(len(tokens), reused)
            if reused < 0:
                return Ending("cancelled")
        guesser = self._guesser
        with self._sampler(params) as source:
            return (
                yield from decode(
                    self,
                    source,
                    params,
                    cancel,
                    stop,
                    stats,
                    tokens,
                    guesser.policy,
                    guesser.guesses(),
                )
            )

    def _prefill(self, tokens: list[int], params: GenerationParams, cancel: threading.Event) -> int:
        """Bring the cache to ``tokens``, reusing their longest prefix already in it; returns how
        many tokens were reused, or -1 when cancelled (engine/generation/prefill.py)."""
        return prefill(self, tokens, params, cancel)

    def _alone(self) -> bool:
        """Whether this reply is the only one its context is generating (a reply beside others
        decodes in their batch and checks no guesses)."""
        return True

    def _reset_quietly(self) -> None:
        with contextlib.suppress(Exception):
            self.reset()

    def _check_open(self) -> None:
        if self._closed:
            raise ModelNotFound("The model was unloaded. Load it again to continue.")
