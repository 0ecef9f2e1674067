"""Prefix reuse on a model with sliding-window layers and a window-sized cache (the default plan):
a follow-up keeps the cached conversation; a rewind to before the window starts over, and the
reply is the same as from a cold cache."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest

pytest.importorskip("gguf")

from engine.backends.llama_cpp import LlamaCppModel
from engine.gguf import read_gguf
from engine.planner import Device, Resources, make_plan
from engine.types import GenerationParams, GenerationStats
from tests.conftest import collect
from tests.tiny_gguf import MATRIX, write_model

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
