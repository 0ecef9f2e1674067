"""One generation loop for every backend.

The loop owns everything a backend would otherwise copy: templating and fitting the conversation
into the window, stop strings, cancellation, the timings, the terminal chunk, and the bookkeeping
of which tokens are in the KV cache (so that a follow-up only evaluates its new tokens). A backend
supplies only what is runtime-specific: render and tokenize, rewind its cache, evaluate tokens,
sample the next one, turn tokens back into text, and free its memory.

The shape follows mlx-lm's ``stream_generate``: a generator of small chunks whose last item carries
the finish reason and the stats.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Callable, Generator, Iterator, Sequence
from contextlib import AbstractContextManager as ContextManager
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Protocol, Self, runtime_checkable

from engine.errors import (
    EngineBusy,
    EngineError,
    GenerationError,
    InvalidRequest,
    ModelNotFound,
)
from engine.generation.clock import StatsClock
from engine.generation.context import fit_prompt, prompt_overflow
from engine.generation.reasoning import OPEN, opens_thinking
from engine.generation.sampling import token_logprob
from engine.generation.scoring import SCORE_SLICE, score_tokens
from engine.generation.speculation import Drafter, DraftPolicy, ReplyGuesses
from engine.generation.state_cache import MIN_GAIN as MIN_STATE_GAIN
from engine.generation.state_cache import MIN_TOKENS as MIN_STATE_TOKENS
from engine.generation.state_cache import StateCache
from engine.generation.stopping import StopMatcher
from engine.images import require_vision
from engine.templates.continuation import continue_final, continues, mark_final
from engine.tools import Tool
from engine.types import (
    ChatMessage,
    Chunk,
    FinishReason,
    GenerationParams,
    GenerationStats,
    ImageInput,
    ScoredPrompt,
    TokenLogprob,
    Truncation,
)

if TYPE_CHECKING:
    from engine.templates import ChatTemplate

log = logging.getLogger("cove.engine")
# With a draft model whose guesses do not pay, one short guess every this many tokens.
MODEL_PROBE_EVERY = 24


@dataclass(frozen=True, slots=True)
class Ending:
    """How the body of a generation ended: why, whether the context was full, and with
    ``logprobs`` the end-of-text token the model chose to end it (``Chunk.end_token``)."""

    finish: FinishReason
    context_full: bool = False
    end_token: TokenLogprob | None = None


# The body of one generation: yields text chunks, returns how it ended.
Body = Generator[Chunk, None, Ending]


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
        self._drafter: Drafter | None = None  # a smaller model guessing for this one
        # A draft model's steps are not free: its own estimates (see attach_draft).
        self._model_policy = _model_policy()
        self._since_model_guess = 0
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
        """Each message's images put in its text at the runtime's marker, before the words
        (where vision chat templates put them)."""
        if not any(m.images for m in messages):
            return messages
        marker = self.image_marker
        return [
            replace(m, content="".join(f"{marker}\n" for _ in m.images) + m.content, images=())
            if m.images
            else m
            for m in messages
        ]

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
    ) -> tuple[_Prompt, tuple[str, ...], Callable[[], str]]:
        """What a chat reply needs before the loop: the prompt (computed when called), the stop
        strings, and how the reply opens."""
        require_vision(self, messages)
        rendered = [""]
        kept_images: list[list[ImageInput]] = [[]]
        # Fitting the window never drops the newest message: a continued one is always kept.
        continuing = continues(messages, params)

        def render(kept: Sequence[ChatMessage]) -> str:
            placed = self._placed(kept)
            tools, thinking = params.tools, params.thinking
            if continuing:
                rendered[0] = continue_final(self.render(mark_final(placed), tools, thinking))
            else:
                rendered[0] = self.render(placed, tools, thinking)
            kept_images[0] = [image for m in kept for image in m.images]
            return rendered[0]

        def prompt() -> tuple[list[int], Truncation | None]:
            return fit_prompt(
                messages,
                render,
                lambda text: self._prompt_tokens(text, kept_images[0]),
                n_ctx=self._n_ctx,
                max_tokens=params.max_tokens,
            )

        def lead() -> str:
            # A template that opens the model's thinking itself: the reply starts inside it, and
            # says so, as a reply that opens it does (engine.generation.reasoning).
            # A grammar leaves no room for thinking, and a continued reply has opened already.
            opens = params.grammar is None and not continuing and opens_thinking(rendered[0])
            return OPEN + "\n" if opens else ""

        return prompt, (*params.stop, *self.template.stop), lead

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

    def _complete_request(self, prompt: str | Sequence[int], params: GenerationParams) -> _Prompt:
        def tokens() -> tuple[list[int], Truncation | None]:
            if isinstance(prompt, str):
                ids = self.tokenize(prompt)
            else:
                ids = list(prompt)
                self._check_tokens(ids)
            overflow = prompt_overflow(len(ids), self._n_ctx, params.max_tokens)
            if overflow is not None:
                raise EngineError(overflow)
            return ids, None

        return tokens

    def _check_grammar(self, params: GenerationParams) -> None:
        """A reply that must match a schema or a required call is never produced unconstrained."""
        if params.grammar is not None and not self.constrains:
            raise InvalidRequest(
                f"{self.runtime} cannot constrain a reply to a JSON schema or a required tool "
                "call; load a GGUF model (llama.cpp) for response_format json_schema/json_object "
                "and tool_choice required or a named function."
            )

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
            if self._drafter is not None:
                self._drafter.close()
                self._drafter = None
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

    # -- the loop ------------------------------------------------------------------------------

    def _generate(
        self,
        prompt: _Prompt,
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
                self._save_state(params.conversation)
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

    def _save_state(self, conversation: str | None) -> None:
        """Hand the conversation's state to the cache (written in the background); called with
        the model's lock held."""
        states = self._states
        if states is None or len(self._cached) < MIN_STATE_TOKENS:
            return
        key = self._state_key()
        if key is None or (tuple(self._cached) == self._saved and states.holds(key, self._saved)):
            return
        try:
            tokens = tuple(self._cached)
            data = self._state_bytes()
        except Exception as exc:  # a state not saved costs the next restart, never this reply
            log.warning("could not read the conversation's state: %s", exc)
            return
        states.save_later(key, tokens, data, conversation)
        self._saved = tokens

    def _restore_saved(self, tokens: list[int], common: int) -> int:
        """Where a saved state continues further into ``tokens`` than the cache does, restore
        it; returns the common prefix afterwards."""
        states = self._states
        key = self._state_key()
        if states is None or key is None or len(tokens) - 1 - common < MIN_STATE_GAIN:
            return common
        found = states.find(key, tokens)
        if found is None or found[1] < common + MIN_STATE_GAIN:
            return common
        entry, shared = found
        data = states.read(entry)
        if data is None:
            return common
        self._cached.clear()
        if not self._restore_state(data):
            log.warning("the runtime refused a saved state; reading the history instead")
            self._forget()
            return 0
        self._cached.extend(entry.tokens)
        self._saved = entry.tokens
        log.info("restored a conversation's state (%d tokens)", len(entry.tokens))
        return shared

    def _run(
        self,
        tokens: list[int],
        params: GenerationParams,
        cancel: threading.Event,
        stop: Sequence[str],
        stats: StatsClock,
    ) -> Body:
        if params.score_prompt:
            scored = self._score(tokens, params, cancel)
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
        with self._sampler(params) as source:
            return (yield from self._sample(source, params, cancel, stop, stats, tokens))

    def _score(
        self, tokens: list[int], params: GenerationParams, cancel: threading.Event
    ) -> ScoredPrompt | None:
        """Evaluate the whole prompt afresh (a cached prefix has no logits left to read) with
        logits for every position, scoring each token (engine/generation/scoring.py); the cache
        then holds the prompt, as after ``_prefill``. None when cancelled."""
        if not self.scores_prompts:
            raise InvalidRequest(f"{self.runtime} cannot score a prompt's tokens.")
        if not tokens:
            raise EngineError("The prompt is empty.")
        self._rewind(0, params)
        self._cached.clear()

        def feed(part: list[int]) -> bool:
            if not self._feed_scored(part, cancel):
                return False
            self._cached.extend(part)
            return True

        with self._prefilling():
            step = min(self.n_batch, SCORE_SLICE)
            return score_tokens(
                tokens,
                (tokens[i : i + step] for i in range(0, len(tokens), step)),
                feed,
                self._logits_at,
                top=params.logprobs or 0,
                token_bytes=self._token_bytes,
                bos=self.bos_token,
                cancel=cancel,
            )

    def _prefill(self, tokens: list[int], params: GenerationParams, cancel: threading.Event) -> int:
        """Bring the cache to ``tokens``, reusing their longest prefix already in it; returns how
        many tokens were reused, or -1 when cancelled."""
        if not tokens:
            raise EngineError("The prompt is empty.")
        common = 0
        for a, b in zip(self._cached, tokens, strict=False):
            if a != b:
                break
            common += 1
        common = self._restore_saved(tokens, common)
        # The last prompt token is evaluated again so that there are logits to sample from.
        common = min(common, len(tokens) - 1)
        common = self._rewind(common, params)
        del self._cached[common:]
        todo = tokens[common:]
        done = 0
        with self._prefilling():
            for part in self._parts(todo):
                if cancel.is_set():
                    return -1
                done += len(part)
                if not self._feed(part, cancel, last=done >= len(todo)):
                    return -1
                self._cached.extend(part)
        return common

    def _sample(
        self,
        source: TokenSource,
        params: GenerationParams,
        cancel: threading.Event,
        stop: Sequence[str],
        stats: StatsClock,
        history: Sequence[int] = (),
    ) -> Body:
        """Sample, detokenize and accept one token at a time; where the conversation predicts
        what comes next, check several guessed tokens in one batch
        (engine/generation/speculation.py)."""
        matcher = StopMatcher(stop)
        decoder = self._decoder()
        limit = params.max_tokens
        finish: FinishReason = "stop"
        context_full = False
        end_token: TokenLogprob | None = None
        generated = 0
        top = params.logprobs
        scored: list[TokenLogprob] = []  # the tokens of text not yet sent
        verifier = self._verifier(source, params)
        model_guess = self._model_guess if self._drafter is not None else None
        guesses = (
            ReplyGuesses(history, self._draft_policy, self._model_policy, model_guess)
            if verifier is not None
            else None
        )
        # Tokens already sampled, with their logits when asked; those before the last are
        # guesses the model agreed with, already in the cache (``ahead`` of plain decoding).
        ready: deque[tuple[int, Any]] = deque()
        ahead = 0
        hand_in = source.hand_in if isinstance(source, HandsIn) else None
        early: HandedIn | None = None  # the token handed in before its text was sent
        try:
            while True:
                if cancel.is_set():
                    return Ending("cancelled")
                if not ready:
                    logits = source.logits() if top is not None else None
                    ready.append((source.sample(), logits))
                token, logits = ready.popleft()
                if generated == 0:
                    stats.first_token()
                if self._is_end(token):
                    if top is not None:
                        # Listed after the reply's tokens by the completions API, as OpenAI's
                        # legacy completions, vLLM and llama-server list it: its text is none.
                        end = token_logprob(logits, token, top, self._token_bytes)
                        end_token = replace(end, token="", bytes=())
                    break
                if top is not None:
                    scored.append(token_logprob(logits, token, top, self._token_bytes))
                generated += 1
                stats.completion_tokens = generated
                at_limit = limit is not None and generated >= limit
                # Room for this token and the one sampled after it (counted as plain decoding
                # would).
                full = len(self._cached) - ahead + 2 > self._n_ctx
                alone = self._alone()
                if hand_in is not None and not (ahead or at_limit or full or alone):
                    # Beside other replies the token goes into the next step before its text
                    # goes to the client, so that the step need not wait for this reply's
                    # client; taken back if the text ends the reply.
                    early = hand_in(token, cancel)
                text, hit = matcher.feed(decoder.feed(token))
                if text:
                    yield Chunk(text=text, logprobs=tuple(scored))
                    scored.clear()
                if hit:
                    return Ending("stop")
                if at_limit:
                    finish = "length"
                    break
                if full:
                    finish, context_full = "length", True
                    break
                if ahead:  # a guess the model agreed with: already evaluated
                    ahead -= 1
                    if guesses is not None:
                        guesses.agreed(token)
                    continue
                if not alone:
                    stats.batched_tokens += 1
                if early is not None:
                    handed, early = early, None
                    if not handed.finish(cancel):
                        return Ending("cancelled")
                    self._cached.append(token)
                    continue
                draft: list[int] = []
                used = self._draft_policy
                if guesses is not None and alone:  # set exactly when there is a verifier
                    room = self._n_ctx - len(self._cached) - 2
                    if params.speculation == "exact":
                        room = min(room, self.exact_cells - len(self._cached) - 1)
                    if limit is not None:
                        room = min(room, limit - generated - 1)
                    draft, used = guesses.after(token, room, cancel)
                began = time.perf_counter()
                if not draft:
                    if not source.accept(token, cancel):
                        return Ending("cancelled")
                    if guesses is not None:  # a single step, the unit both policies measure in
                        guesses.timed_step(time.perf_counter() - began)
                    self._cached.append(token)
                    continue
                assert verifier is not None
                drawn = verifier.verify(token, draft, cancel, top is not None)
                if drawn is None:
                    return Ending("cancelled")
                used.timed_batch(len(draft) + 1, time.perf_counter() - began)
                agreed = len(drawn) - 1
                used.guessed(agreed, missed=agreed < len(draft))
                stats.drafted(len(draft), agreed)
                self._cached.append(token)
                self._cached.extend(draft[:agreed])
                ready.extend(drawn)
                ahead = agreed
        finally:
            if early is not None:  # the reply ended (or its client left) with a token handed in
                early.drop()
        tail = matcher.flush(decoder.flush())
        if tail:
            yield Chunk(text=tail, logprobs=tuple(scored))
        return Ending(finish, context_full, end_token)

    def attach_draft(self, drafter: Drafter | None) -> None:
        """Let a smaller model of the same vocabulary guess where the conversation offers no
        guess of its own (engine/backends/draft.py); None detaches (and frees) the current one."""
        old, self._drafter = self._drafter, drafter
        if old is not None and old is not drafter:
            old.close()
        self._model_policy = _model_policy()

    @property
    def draft_name(self) -> str | None:
        return self._drafter.name if self._drafter is not None else None

    def _model_guess(self, sequence: list[int], room: int, cancel: threading.Event) -> list[int]:
        """The draft model's guess, as long as is expected to pay; now and then a short one
        when nothing pays, so that the estimates can recover."""
        policy = self._model_policy
        k = policy.length(room)
        self._since_model_guess += 1
        if k == 0:
            if self._since_model_guess < MODEL_PROBE_EVERY:
                return []
            k = min(2, room)
        self._since_model_guess = 0
        assert self._drafter is not None
        began = time.perf_counter()
        guess = self._drafter.guess(sequence, k, cancel)
        policy.timed_guesses(len(guess), time.perf_counter() - began)
        return guess

    def _verifier(self, source: TokenSource, params: GenerationParams) -> Verifier | None:
        """The source's batch check, when this runtime has one and speculation is on."""
        mode = params.speculation
        if mode == "off" or not self.speculates or (mode == "exact" and not self.exact_cells):
            return None
        return source if isinstance(source, Verifier) else None

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


def _model_policy() -> DraftPolicy:
    """A draft model's policy before it has measured anything: a guess costs a fifth of a
    step."""
    return DraftPolicy(guess_cost=0.2)


class _Prompt(Protocol):
    def __call__(self) -> tuple[list[int], Truncation | None]: ...
