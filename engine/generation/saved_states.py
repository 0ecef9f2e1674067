"""A conversation's runtime state kept between replies (engine/generation/state_cache.py holds the
files): handed to the cache after a reply, and restored for a prompt that continues a saved one
further than the runtime's cache does. Both run with the model's lock held."""

from __future__ import annotations

import logging

from engine.generation.runtime import LoopModel
from engine.generation.state_cache import MIN_GAIN, MIN_TOKENS

log = logging.getLogger("cove.engine")


def save_state(model: LoopModel, conversation: str | None) -> None:
    """Hand the conversation's state to the cache (written in the background)."""
    states = model._states
    if states is None or len(model._cached) < MIN_TOKENS:
        return
    key = model._state_key()
    if key is None or (tuple(model._cached) == model._saved and states.holds(key, model._saved)):
        return
    try:
        tokens = tuple(model._cached)
        data = model._state_bytes()
    except Exception as exc:  # a state not saved costs the next restart, never this reply
        log.warning("could not read the conversation's state: %s", exc)
        return
    states.save_later(key, tokens, data, conversation)
    model._saved = tokens


def restore_saved(model: LoopModel, tokens: list[int], common: int) -> int:
    """Where a saved state continues further into ``tokens`` than the cache does, restore it;
    returns the common prefix afterwards."""
    states = model._states
    key = model._state_key()
    if states is None or key is None or len(tokens) - 1 - common < MIN_GAIN:
        return common
    found = states.find(key, tokens)
    if found is None or found[1] < common + MIN_GAIN:
        return common
    entry, shared = found
    data = states.read(entry)
    if data is None:
        return common
    model._cached.clear()
    if not model._restore_state(data):
        log.warning("the runtime refused a saved state; reading the history instead")
        model._forget()
        return 0
    model._cached.extend(entry.tokens)
    model._saved = entry.tokens
    log.info("restored a conversation's state (%d tokens)", len(entry.tokens))
    return shared
