"""Prefix reuse on a model with sliding-window layers and a window-sized cache (the default plan):
a follow-up keeps the cached conversation; a rewind to before the window starts over, and the
reply is the same as from a cold cache."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

pytest.importorskip("gguf")

from engine.backends.llama.single import LlamaCppModel
from engine.formats.gguf import read_gguf
from engine.generation.state_cache import StateCache
from engine.planner.gguf import make_plan
from engine.planner.plan import Device, Resources
from engine.types import GenerationParams, GenerationStats
from tests.conftest import collect
from tests.support.tiny_gguf import MATRIX, write_model

GREEDY = GenerationParams(temperature=0.0, max_tokens=12)
WORDS = "the quick brown fox jumps over the lazy dog and a dog of the fox is in it "


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaCppModel]:
    shape = MATRIX["gemma3"]  # 256-token window: the cache holds 768 cells
    path = write_model(tmp_path_factory.mktemp("swa") / "gemma3.gguf", replace(shape, vocab=1024))
    g = read_gguf(path)
    plenty = Resources(cpu=Device("CPU RAM", "cpu", 64 << 30, 64 << 30), threads=2)
    plan = make_plan(g, plenty, requested_ctx=4096)
    assert not plan.swa_full
    with LlamaCppModel(path, plan) as loaded:
        yield loaded


def run(model: LlamaCppModel, prompt: str) -> tuple[str, GenerationStats]:
    text, final = collect(model.complete(prompt, GREEDY))
    assert final.finish_reason in ("stop", "length") and final.stats is not None, final.error
    return text, final.stats


def test_a_follow_up_reuses_a_conversation_longer_than_the_window(model: LlamaCppModel) -> None:
    model.reset()
    first = WORDS * 25
    reply, stats = run(model, first)
    assert stats.prompt_tokens > 1500 and stats.cached_tokens == 0
    _text, follow = run(model, first + reply + " and then?")
    assert follow.cached_tokens >= stats.prompt_tokens


def test_a_rewind_past_the_window_starts_over_and_answers_the_same(model: LlamaCppModel) -> None:
    model.reset()
    run(model, WORDS * 25)
    rewound = WORDS * 5 + "a lazy fox"
    text, stats = run(model, rewound)
    assert stats.cached_tokens == 0, "positions before the window were evicted: no reuse"
    model.reset()
    cold_text, _cold = run(model, rewound)
    assert text == cold_text


def test_a_saved_state_is_used_only_while_it_holds_what_the_next_token_attends_to(
    model: LlamaCppModel, tmp_path: Path
) -> None:
    """Restored from disk into a fresh model: a prompt that continues the saved conversation
    keeps it; one that leaves it before the window starts over, and answers as from a cold
    cache. (The saved state of a window-sized cache holds the window only, so only a prompt
    that continues all of it can keep it.)"""
    folder = tmp_path / "state"
    first = (WORDS * 25).strip() + "."
    model.reset()
    model.keep_states(StateCache(folder))
    try:
        _text, final = collect(model.complete(first, replace(GREEDY, max_tokens=1)))
        assert final.stats is not None
        saved = final.stats.prompt_tokens
        model._states.flush()  # type: ignore[union-attr]
    finally:
        model.keep_states(None)
    path, plan = model.path, model.plan
    with LlamaCppModel(path, plan) as restarted:
        restarted.keep_states(StateCache(folder))
        _text, follow = run(restarted, first + " And then?")
    assert follow.cached_tokens >= saved - 1
    rewound = WORDS * 5 + "a lazy fox"
    with LlamaCppModel(path, plan) as restarted:
        restarted.keep_states(StateCache(folder))
        text, early = run(restarted, rewound)
    assert early.cached_tokens == 0, "the saved cache no longer holds the window before it"
    model.reset()
    cold_text, _cold = run(model, rewound)
    assert text == cold_text
