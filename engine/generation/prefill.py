"""Reading a prompt into the runtime's cache: the prefix already there is kept (or a saved
state restored, engine/generation/saved_states.py) and only the rest is evaluated, in the pieces
the runtime takes; or, to score a prompt, all of it afresh with logits for every position.
Cancellation is checked between pieces, and inside one where the runtime polls it."""

from __future__ import annotations

import threading

from engine.errors import EngineError, InvalidRequest
from engine.generation.runtime import LoopModel
from engine.generation.saved_states import restore_saved
from engine.generation.scoring import SCORE_SLICE, score_tokens
from engine.types import GenerationParams, ScoredPrompt


def prefill(
    model: LoopModel, tokens: list[int], params: GenerationParams, cancel: threading.Event
) -> int:
    """Bring the cache to ``tokens``, reusing their longest prefix already in it; returns how
    many tokens were reused, or -1 when cancelled."""
    if not tokens:
        raise EngineError("The prompt is empty.")
    common = 0
    for a, b in zip(model._cached, tokens, strict=False):
        if a != b:
            break
        common += 1
    common = restore_saved(model, tokens, common)
    # The last prompt token is evaluated again so that there are logits to sample from.
    common = min(common, len(tokens) - 1)
    common = model._rewind(common, params)
    del model._cached[common:]
    todo = tokens[common:]
    done = 0
    with model._prefilling():
        for part in model._parts(todo):
            if cancel.is_set():
                return -1
            done += len(part)
            if not model._feed(part, cancel, last=done >= len(todo)):
                return -1
            model._cached.extend(part)
    return common


def score(
    model: LoopModel, tokens: list[int], params: GenerationParams, cancel: threading.Event
) -> ScoredPrompt | None:
    """Evaluate the whole prompt afresh (a cached prefix has no logits left to read) with
    logits for every position, scoring each token (engine/generation/scoring.py); the cache
    then holds the prompt, as after ``prefill``. None when cancelled."""
    if not model.scores_prompts:
        raise InvalidRequest(f"{model.runtime} cannot score a prompt's tokens.")
    if not tokens:
        raise EngineError("The prompt is empty.")
    model._rewind(0, params)
    model._cached.clear()

    def feed(part: list[int]) -> bool:
        if not model._feed_scored(part, cancel):
            return False
        model._cached.extend(part)
        return True

    with model._prefilling():
        step = min(model.n_batch, SCORE_SLICE)
        return score_tokens(
            tokens,
            (tokens[i : i + step] for i in range(0, len(tokens), step)),
            feed,
            model._logits_at,
            top=params.logprobs or 0,
            token_bytes=model._token_bytes,
            bos=model.bos_token,
            cancel=cancel,
        )
