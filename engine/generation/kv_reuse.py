"""How much of a cached conversation a new prompt may keep in the KV cache.

A follow-up in a chat shares a prefix with what is already cached; only the rest needs
evaluating. With a window-sized cache for sliding-window layers (Plan.swa_full false), llama.cpp
drops positions that have slid out of the window, so keeping a prefix of length ``n`` is only
sound if the cache still holds every position a token at ``n`` attends to: ``n - window`` and
after. llama.cpp's own server makes the same check against ``llama_memory_seq_pos_min`` before it
reuses a slot. When the check fails the whole prompt is evaluated again, which is correct, and as
slow as a first turn.
"""

from __future__ import annotations

from collections.abc import Sequence


def reusable_prefix(common: int, *, oldest_cached: int, window: int) -> int:
    """Tokens of a ``common`` prefix that may stay in the cache.

    ``oldest_cached`` is the lowest position the cache still holds for the sequence (-1 when it
    is empty), ``window`` the model's sliding window (0 when it has none). A full-size cache
    never evicts, so its oldest position stays 0 and the whole prefix is kept.
    """
    if common <= 0 or oldest_cached < 0:
        return 0
    if window <= 0:
        return common
    return common if oldest_cached <= max(0, common - window) else 0


def common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    """How many tokens two sequences share from their start.

    Compared a slice at a time (a bisection over where they part), so that two prompts of
    20,000 tokens are compared at the speed of list equality, not one Python step a token."""
    n = min(len(a), len(b))
    x, y = (a, b) if type(a) is type(b) and isinstance(a, list | tuple) else (list(a), list(b))
    if x[:n] == y[:n]:
        return n
    lo, hi = 0, n  # x[:lo] == y[:lo], and they part before hi
    while hi - lo > _LINEAR:
        mid = (lo + hi) // 2
        if x[lo:mid] == y[lo:mid]:
            lo = mid
        else:
            hi = mid
    while lo < hi and x[lo] == y[lo]:
        lo += 1
    return lo


# Below this many tokens the part where two sequences part is walked a token at a time.
_LINEAR = 32
