"""The prefix-reuse rule for sliding-window caches, as a pure function."""

from __future__ import annotations

from engine.generation.kv_reuse import reusable_prefix


def test_a_model_without_a_window_keeps_the_whole_prefix() -> None:
    assert reusable_prefix(5000, oldest_cached=0, window=0) == 5000


def test_an_empty_cache_keeps_nothing() -> None:
    assert reusable_prefix(300, oldest_cached=-1, window=512) == 0
    assert reusable_prefix(0, oldest_cached=-1, window=0) == 0


def test_a_full_size_cache_never_evicts() -> None:
    assert reusable_prefix(20000, oldest_cached=0, window=512) == 20000


def test_appending_after_a_long_conversation_keeps_the_prefix() -> None:
    # 4000 tokens cached in a window-sized cache of 1024 cells: positions 2976.. are left.
    assert reusable_prefix(3990, oldest_cached=2976, window=512) == 3990
    # The boundary: the token at `common` attends back to `common - window`.
    assert reusable_prefix(3488, oldest_cached=2976, window=512) == 3488


def test_rewinding_past_the_window_starts_over() -> None:
    assert reusable_prefix(3487, oldest_cached=2976, window=512) == 0
    assert reusable_prefix(100, oldest_cached=2976, window=512) == 0


def test_a_short_conversation_within_the_window_is_kept() -> None:
    assert reusable_prefix(200, oldest_cached=0, window=512) == 200
