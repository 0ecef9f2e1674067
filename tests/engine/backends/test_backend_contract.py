"""The generation contract, run on every backend present: the same loop (engine/generation/loop.py)
must behave the same way on llama.cpp and onnxruntime-genai, on real models."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.errors import EngineBusy, ModelNotFound
from engine.formats.gguf import read_gguf
from engine.formats.onnx import read_onnx_model
from engine.generation.loop import GenerationLoop
from engine.planner.gguf import make_plan
from engine.planner.onnx import plan_onnx
from engine.planner.plan import Device, Resources
from engine.types import ChatMessage, Chunk, GenerationParams
from tests.conftest import CAPITAL, SHARED_MODELS, collect

RESOURCES = Resources(cpu=Device("CPU RAM", "cpu", 16 * 2**30, 24 * 2**30), threads=2)
GREEDY = GenerationParams(temperature=0.0, max_tokens=32)
QUESTION = list(CAPITAL)
LONG = [ChatMessage("user", "Write a very long essay about the history of Rome.")]
ONNX_FOLDER = SHARED_MODELS / "smollm2-135m-instruct-onnx-int4-cpu"


def load(kind: str, starter: Path, ctx: int = 2048) -> GenerationLoop:
    if kind == "llama.cpp":
        from engine.backends.llama.single import LlamaCppModel

        return LlamaCppModel(starter, make_plan(read_gguf(starter), RESOURCES, requested_ctx=ctx))
    if not ONNX_FOLDER.is_dir():
        pytest.skip(f"{ONNX_FOLDER} is absent")
    from engine.backends.ort_genai import OrtGenaiModel

    info = read_onnx_model(ONNX_FOLDER)
    return OrtGenaiModel(ONNX_FOLDER, plan_onnx(info, RESOURCES, requested_ctx=ctx))


@pytest.fixture(scope="module", params=["llama.cpp", "onnxruntime-genai"])
def model(request: pytest.FixtureRequest, starter: Path) -> Iterator[GenerationLoop]:
    m = load(request.param, starter)
    yield m
    m.close()


class CancelAfter(threading.Event):
    """Sets itself once the engine has polled it ``polls`` times: a cancel that lands inside
    the work the engine is doing, driven by the engine's own checks rather than a clock."""

    def __init__(self, polls: int) -> None:
        super().__init__()
        self._left = polls

    def is_set(self) -> bool:
        self._left -= 1
        if self._left <= 0:
            self.set()
        return super().is_set()


def test_greedy_answer_and_one_terminal_chunk(model: GenerationLoop) -> None:
    text, final = collect(model.chat(QUESTION, GREEDY))
    assert "Paris" in text
    assert final.finish_reason in ("stop", "length") and final.error is None
    stats = final.stats
    assert stats is not None and stats.prompt_tokens > 10 and stats.completion_tokens > 0
    assert stats.ttft_s > 0 and stats.decode_tokens_per_s > 0
    model.reset()  # read the prompt afresh: the same arithmetic, so the same words
    again, _ = collect(model.chat(QUESTION, GREEDY))
    assert again == text  # greedy decoding is deterministic


def test_max_tokens_ends_with_length(model: GenerationLoop) -> None:
    _, final = collect(model.chat(LONG, GenerationParams(temperature=0.0, max_tokens=5)))
    assert final.finish_reason == "length"
    assert final.stats is not None and final.stats.completion_tokens == 5


def test_stop_string_ends_the_reply_before_it(model: GenerationLoop) -> None:
    full, _ = collect(model.chat(QUESTION, GREEDY))
    # A word from the reply this machine gives, past its start: any CPU's reply has one.
    word = next(w for w in full.split()[1:] if len(w) > 2)
    text, final = collect(model.chat(QUESTION, GenerationParams(temperature=0.0, stop=(word,))))
    assert final.finish_reason == "stop"
    assert word not in text and full.startswith(text)


def test_seeded_sampling_is_reproducible(model: GenerationLoop) -> None:
    params = GenerationParams(temperature=0.9, seed=7, max_tokens=16)
    first, _ = collect(model.chat(QUESTION, params))
    second, _ = collect(model.chat(QUESTION, params))
    other, _ = collect(
        model.chat(QUESTION, GenerationParams(temperature=0.9, seed=8, max_tokens=16))
    )
    assert first == second and first != other


def test_cancel_from_the_stream_stops_within_one_token(model: GenerationLoop) -> None:
    cancel = threading.Event()
    after_cancel = 0
    final: Chunk | None = None
    for chunk in model.chat(LONG, GenerationParams(temperature=0.0, max_tokens=400), cancel):
        if chunk.is_terminal:
            final = chunk
            break
        after_cancel += cancel.is_set()
        cancel.set()
    assert final is not None and final.finish_reason == "cancelled"
    assert after_cancel <= 1
    assert final.stats is not None and final.stats.completion_tokens <= 2


def test_cancel_inside_the_prompt_leaves_the_model_usable(model: GenerationLoop) -> None:
    before, _ = collect(model.chat(QUESTION, GREEDY))
    long_prompt = [ChatMessage("user", "The quick brown fox jumps over the lazy dog. " * 150)]
    cancel = CancelAfter(polls=2)
    _, final = collect(
        model.chat(long_prompt, GenerationParams(temperature=0, max_tokens=8), cancel)
    )
    assert final.finish_reason == "cancelled"
    assert final.stats is not None and final.stats.completion_tokens == 0
    text, again = collect(model.chat(QUESTION, GREEDY))
    assert again.finish_reason in ("stop", "length") and text == before


def test_follow_up_reuses_the_cached_conversation(model: GenerationLoop) -> None:
    history = [ChatMessage("system", "You are a geography teacher."), QUESTION[-1]]
    reply, first = collect(model.chat(history, GREEDY))
    follow_up = ChatMessage("user", "And what is the capital of Italy?")
    _, second = collect(model.chat([*history, ChatMessage("assistant", reply), follow_up], GREEDY))
    assert first.stats is not None and second.stats is not None
    assert second.stats.cached_tokens >= first.stats.prompt_tokens
    evaluated = second.stats.prompt_tokens - second.stats.cached_tokens
    assert evaluated <= len(model.tokenize(follow_up.content)) + 12


def test_a_second_concurrent_generation_is_refused_with_a_code(model: GenerationLoop) -> None:
    first = model.chat(LONG, GenerationParams(temperature=0.0, max_tokens=64))
    assert not next(first).is_terminal  # the first generation holds the model
    _, refused = collect(model.chat(QUESTION, GREEDY))
    assert refused.finish_reason == "error" and refused.code == EngineBusy.code
    _, final = collect(first)
    assert final.finish_reason in ("stop", "length")


def test_a_raw_prompt_too_long_is_an_error_chunk(model: GenerationLoop) -> None:
    huge = "word " * (model.n_ctx * 2)
    _, final = collect(model.complete(huge, GREEDY))
    assert final.finish_reason == "error" and final.error and "context" in final.error


def test_completion_continues_the_text(model: GenerationLoop) -> None:
    text, final = collect(model.complete("One, two, three, four,", GREEDY))
    assert final.finish_reason in ("stop", "length") and text.strip()


def test_parameters_the_runtime_cannot_honour_are_reported(model: GenerationLoop) -> None:
    params = GenerationParams(temperature=0.8, min_p=0.1, seed=1, max_tokens=4)
    _, final = collect(model.chat(QUESTION, params))
    assert final.ignored_params == model.unsupported(params)
    _, greedy = collect(model.chat(QUESTION, GenerationParams(temperature=0, repeat_penalty=1)))
    assert greedy.ignored_params == ()


@pytest.mark.parametrize("kind", ["llama.cpp", "onnxruntime-genai"])
def test_close_stops_a_running_generation_and_waits_for_it(kind: str, starter: Path) -> None:
    model = load(kind, starter, ctx=1024)
    first_chunk = threading.Event()
    result: list[Chunk] = []

    def consume() -> None:
        for chunk in model.chat(LONG, GenerationParams(temperature=0.0, max_tokens=900)):
            first_chunk.set()
            if chunk.is_terminal:
                result.append(chunk)

    worker = threading.Thread(target=consume)
    worker.start()
    assert first_chunk.wait(120)
    model.close()  # returns only once the generation has let go of the model
    worker.join(120)
    assert not worker.is_alive()
    assert [c.finish_reason for c in result] == ["cancelled"]
    _, after = collect(model.chat(QUESTION, GREEDY))
    assert after.finish_reason == "error" and after.code == ModelNotFound.code


def test_the_onnx_runtime_reports_what_it_ignores(starter: Path) -> None:
    model = load("onnxruntime-genai", starter, ctx=512)
    try:
        params = GenerationParams(temperature=0.8, min_p=0.1, repeat_penalty=1.2, max_tokens=4)
        assert model.unsupported(params) == ("min_p", "repeat_last_n")
    finally:
        model.close()
