"""A reply, token by token: sample, turn into text, watch for stop strings and the limits, and
accept; where the conversation (or a draft model) predicts what comes next, check several guessed
tokens in one batch (engine/generation/speculation.py). Beside other replies of a shared
context, a token goes into the next step before its text goes out."""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Generator, Sequence
from dataclasses import dataclass, replace
from typing import Any

from engine.generation.clock import StatsClock
from engine.generation.runtime import HandedIn, HandsIn, LoopModel, TokenSource, Verifier
from engine.generation.sampling import token_logprob
from engine.generation.speculation import DraftPolicy, ModelGuess, ReplyGuesses
from engine.generation.stopping import StopMatcher
from engine.types import Chunk, FinishReason, GenerationParams, TokenLogprob


@dataclass(frozen=True, slots=True)
class Ending:
    """How the body of a generation ended: why, whether the context was full, and with
    ``logprobs`` the end-of-text token the model chose to end it (``Chunk.end_token``)."""

    finish: FinishReason
    context_full: bool = False
    end_token: TokenLogprob | None = None


# The body of one generation: yields text chunks, returns how it ended.
Body = Generator[Chunk, None, Ending]


def verifier(model: LoopModel, source: TokenSource, params: GenerationParams) -> Verifier | None:
    """The source's batch check, when this runtime has one and speculation is on."""
    mode = params.speculation
    if mode == "off" or not model.speculates or (mode == "exact" and not model.exact_cells):
        return None
    return source if isinstance(source, Verifier) else None


def decode(
    model: LoopModel,
    source: TokenSource,
    params: GenerationParams,
    cancel: threading.Event,
    stop: Sequence[str],
    stats: StatsClock,
    history: Sequence[int],
    model_policy: DraftPolicy,
    model_guess: ModelGuess | None,
) -> Body:
    """Sample, detokenize and accept one token at a time, checking guesses in batches where a
    guess is expected to pay; ``model_guess`` asks the draft model, where there is one."""
    matcher = StopMatcher(stop)
    decoder = model._decoder()
    limit = params.max_tokens
    finish: FinishReason = "stop"
    context_full = False
    end_token: TokenLogprob | None = None
    generated = 0
    top = params.logprobs
    scored: list[TokenLogprob] = []  # the tokens of text not yet sent
    checker = verifier(model, source, params)
    guesses = (
        ReplyGuesses(history, model._draft_policy, model_policy, model_guess)
        if checker is not None
        else None
    )
    # Tokens already sampled, with their logits when asked; those before the last are guesses
    # the model agreed with, already in the cache (``ahead`` of plain decoding).
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
            if model._is_end(token):
                if top is not None:
                    # Listed after the reply's tokens by the completions API, as OpenAI's legacy
                    # completions, vLLM and llama-server list it: its text is none.
                    end = token_logprob(logits, token, top, model._token_bytes)
                    end_token = replace(end, token="", bytes=())
                break
            if top is not None:
                scored.append(token_logprob(logits, token, top, model._token_bytes))
            generated += 1
            stats.completion_tokens = generated
            at_limit = limit is not None and generated >= limit
            # Room for this token and the one sampled after it (counted as plain decoding would).
            full = len(model._cached) - ahead + 2 > model._n_ctx
            alone = model._alone()
            if hand_in is not None and not (ahead or at_limit or full or alone):
                # Beside other replies the token goes into the next step before its text goes to
                # the client, so that the step need not wait for this reply's client; taken back
                # if the text ends the reply.
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
                model._cached.append(token)
                continue
            draft: list[int] = []
            used = model._draft_policy
            if guesses is not None and alone:  # set exactly when there is a verifier
                room = model._n_ctx - len(model._cached) - 2
                if params.speculation == "exact":
                    room = min(room, model.exact_cells - len(model._cached) - 1)
                if limit is not None:
                    room = min(room, limit - generated - 1)
                draft, used = guesses.after(token, room, cancel)
            began = time.perf_counter()
            if not draft:
                if not source.accept(token, cancel):
                    return Ending("cancelled")
                if guesses is not None:  # a single step, the unit both policies measure in
                    guesses.timed_step(time.perf_counter() - began)
                model._cached.append(token)
                continue
            assert checker is not None
            drawn = checker.verify(token, draft, cancel, top is not None)
            if drawn is None:
                return Ending("cancelled")
            used.timed_batch(len(draft) + 1, time.perf_counter() - began)
            agreed = len(drawn) - 1
            used.guessed(agreed, missed=agreed < len(draft))
            stats.drafted(len(draft), agreed)
            model._cached.append(token)
            model._cached.extend(draft[:agreed])
            ready.extend(drawn)
            ahead = agreed
    finally:
        if early is not None:  # the reply ended (or its client left) with a token handed in
            early.drop()
    tail = matcher.flush(decoder.flush())
    if tail:
        yield Chunk(text=tail, logprobs=tuple(scored))
    return Ending(finish, context_full, end_token)
