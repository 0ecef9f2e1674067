"""The llama.cpp backend on the real starter model: answers, streaming contract, cancellation,
KV-cache reuse, context overflow, stop strings, unload."""

from __future__ import annotations

import gc
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from engine.backends.llama.single import LlamaCppModel
from engine.errors import LoadCancelled, ModelLoadError
from engine.formats.gguf import read_gguf
from engine.planner.gguf import make_plan
from engine.types import ChatMessage, GenerationParams
from tests.conftest import collect
from tests.engine.cpu_plans import RESOURCES, plan_for

GREEDY = GenerationParams(temperature=0.0, max_tokens=48)


@pytest.fixture(scope="module")
def model(starter: Path) -> Iterator[LlamaCppModel]:
    m = LlamaCppModel(starter, plan_for(starter, 2048))
    yield m
    m.close()


class CancelOnSecondPoll(threading.Event):
    """A cancel event that sets itself the second time the generation asks whether to stop. The
    first ask comes before the prompt's first batch; the second from inside prompt evaluation
    (llama.cpp's abort callback, or the check before the next batch). So the cancel lands during
    the prompt on any machine, however fast, where a timer could fire after the prompt is done."""

    def __init__(self) -> None:
        super().__init__()
        self.polls = 0
        self._count = threading.Lock()

    def is_set(self) -> bool:
        with self._count:
            self.polls += 1
            if self.polls == 2:
                self.set()
        return super().is_set()


def test_overflow_keeps_system_prompt_and_reports_it(starter: Path) -> None:
    with LlamaCppModel(starter, plan_for(starter, 512)) as small:
        system = ChatMessage("system", "Always answer in English.")
        history = [system]
        for i in range(12):
            history.append(ChatMessage("user", f"Question {i}: " + "tell me about rivers " * 12))
            history.append(
                ChatMessage("assistant", "Rivers are long flowing bodies of water. " * 6)
            )
        history.append(ChatMessage("user", "What is the capital of France?"))
        assert small.count_tokens(history) > 512
        text, final = collect(small.chat(history, GenerationParams(temperature=0.0, max_tokens=32)))
        assert final.finish_reason in ("stop", "length"), final.error
        assert final.truncation is not None
        assert final.truncation.dropped_messages > 0
        assert final.truncation.context_limit == 512
        assert "system prompt was kept" in final.truncation.describe()
        assert final.stats is not None and final.stats.prompt_tokens <= 512 - 32
        assert text


def test_generation_stops_cleanly_when_the_context_is_full(starter: Path) -> None:
    with LlamaCppModel(starter, plan_for(starter, 512)) as small:
        prompt = "1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,"
        params = GenerationParams(temperature=0.0, max_tokens=None, repeat_penalty=1.0)
        _, final = collect(small.complete(prompt, params))
        assert final.finish_reason in ("length", "stop")
        if final.finish_reason == "length":
            assert final.context_full
            assert final.stats is not None
            assert final.stats.prompt_tokens + final.stats.completion_tokens >= 511


def test_unload_returns_the_memory(starter: Path) -> None:
    proc = psutil.Process()
    gc.collect()
    before = proc.memory_info().rss
    m = LlamaCppModel(starter, plan_for(starter, 4096))
    collect(m.chat([ChatMessage("user", "Hello!")], GREEDY))
    loaded = proc.memory_info().rss
    m.close()
    gc.collect()
    after = proc.memory_info().rss
    assert loaded - before > 80 * 2**20, "the model should occupy memory while loaded"
    assert after - before < 0.2 * (loaded - before), (before, loaded, after)
    # Using a closed model is a clear error, not a crash.
    _, final = collect(m.chat([ChatMessage("user", "Hello")], GREEDY))
    assert final.finish_reason == "error" and "unloaded" in (final.error or "")


def test_a_file_llama_cpp_refuses_is_a_clear_error(starter: Path, tmp_path: Path) -> None:
    broken = tmp_path / "unknown-arch.gguf"
    shutil.copyfile(starter, broken)
    data = bytearray(broken.read_bytes()[:4096])
    at = data.find(b"general.architecture")
    value = data.find(b"llama", at)
    data[value : value + 5] = b"zzzzz"
    with open(broken, "r+b") as f:
        f.write(data)
    info = read_gguf(broken)
    assert info.architecture == "zzzzz"
    plan = make_plan(read_gguf(starter), RESOURCES, requested_ctx=512)
    with pytest.raises(ModelLoadError, match="could not load"):
        LlamaCppModel(broken, plan)


def test_a_hostile_template_in_the_model_file_executes_nothing(
    starter: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "pwned"
    hostile_path = tmp_path / "hostile.gguf"
    shutil.copyfile(starter, hostile_path)
    original = read_gguf(starter).chat_template
    assert original is not None
    attack = f"{{{{ cycler.__init__.__globals__.os.popen('touch {marker}').read() }}}}"
    padded = attack + "{#" + " " * (len(original) - len(attack) - 4) + "#}"
    assert len(padded.encode()) == len(original.encode())
    data = bytearray(hostile_path.read_bytes()[: read_gguf(starter).data_offset])
    at = data.find(original.encode())
    data[at : at + len(padded)] = padded.encode()
    with open(hostile_path, "r+b") as f:
        f.write(data)
    assert read_gguf(hostile_path).chat_template == padded
    with LlamaCppModel(hostile_path, plan_for(starter, 512)) as hostile:
        _, final = collect(hostile.chat([ChatMessage("user", "hi")], GREEDY))
    assert final.finish_reason == "error"
    assert final.error and "template" in final.error.lower()
    assert not marker.exists()


def test_load_reports_progress_and_can_be_cancelled(starter: Path) -> None:
    seen: list[float] = []

    def track(fraction: float) -> bool:
        seen.append(fraction)
        return True

    with LlamaCppModel(starter, plan_for(starter, 512), progress=track):
        pass
    assert seen and seen[-1] == pytest.approx(1.0)
    assert seen == sorted(seen)

    with pytest.raises(LoadCancelled):
        LlamaCppModel(starter, plan_for(starter, 512), progress=lambda f: False)


@pytest.mark.parametrize(("penalty", "window"), [(1.0, 64), (1.1, 64), (1.5, 16), (0.9, 64)])
def test_greedy_in_place_picks_what_the_native_chain_picks(
    starter: Path, monkeypatch: pytest.MonkeyPatch, penalty: float, window: int
) -> None:
    from engine.backends.llama import sequence
    from engine.backends.llama.sampling import NativeSampler

    msgs = [ChatMessage("user", "Write a long story about the sea, and say 'sea' often.")]
    params = GenerationParams(
        temperature=0.0, repeat_penalty=penalty, repeat_last_n=window, max_tokens=96
    )
    with LlamaCppModel(starter, plan_for(starter, 1024)) as model:
        fast, _ = collect(model.chat(msgs, params))

        def native(m: LlamaCppModel, _penalty: float, _window: int, *_: object) -> object:
            return NativeSampler(m, m._make_sampler(params))

        monkeypatch.setattr(sequence, "_Argmax", native)
        model.reset()
        slow, final = collect(model.chat(msgs, params))
    assert final.stats is not None and final.stats.completion_tokens > 16
    assert fast == slow


def test_amx_builds_load_weights_without_amx_buffers() -> None:
    from engine.native.llama import amx_in

    avx512 = "CPU : SSE3 = 1 | AVX2 = 1 | AVX512 = 1 | AVX512_VNNI = 1 | REPACK = 1 |"
    assert not amx_in(avx512)
    assert amx_in(avx512.replace("REPACK", "AMX_INT8 = 1 | REPACK"))
    assert not amx_in(avx512.replace("REPACK", "AMX_INT8 = 0 | REPACK"))


def test_the_loaded_model_answers_on_this_cpu(model: LlamaCppModel) -> None:
    # Whatever instruction set this build uses (AMX included, which crashes in llama.cpp's own
    # weight buffers on some Xeons), a prompt is read and a reply generated.
    text, final = collect(model.chat([ChatMessage("user", "Hello!")], GREEDY))
    assert final.error is None and final.finish_reason in ("stop", "length") and text.strip()


@pytest.mark.parametrize(("penalty", "window"), [(1.1, 64), (1.5, 16)])
def test_sampling_with_the_penalty_in_place_draws_what_the_native_chain_draws(
    starter: Path, monkeypatch: pytest.MonkeyPatch, penalty: float, window: int
) -> None:
    from engine.backends.llama import sequence
    from engine.backends.llama.sampling import NativeSampler, make_chain

    msgs = [ChatMessage("user", "Write a long story about the sea, and say 'sea' often.")]
    params = GenerationParams(
        temperature=0.9, seed=11, repeat_penalty=penalty, repeat_last_n=window, max_tokens=96
    )
    with LlamaCppModel(starter, plan_for(starter, 1024)) as model:
        fast, _ = collect(model.chat(msgs, params))

        class Native(NativeSampler):  # the chain's own penalty sampler, nothing in place
            def __init__(self, m: LlamaCppModel, chain: object, *_: object) -> None:
                super().__init__(m, make_chain(m.model.lib, m.model.vocab, params, window))

        monkeypatch.setattr(sequence, "NativeSampler", Native)
        model.reset()
        slow, final = collect(model.chat(msgs, params))
    assert final.stats is not None and final.stats.completion_tokens > 16
    assert fast == slow
