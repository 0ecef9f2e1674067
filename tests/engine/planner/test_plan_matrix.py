"""The planner against llama.cpp, architecture by architecture.

Tiny models with random weights, shaped like the architectures people download, are loaded
through Cove's own backend with the plan's context parameters; the planner's weights, KV cache and
compute terms are compared with what llama.cpp itself reports: the model size from its API, the
KV and compute buffers from its log (it has no API for them). KV must match to the byte (the log
prints MiB to two decimals), compute within 10 %.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

pytest.importorskip("gguf")

from engine.backends.llama import single as backend
from engine.formats.gguf import GGUFFile, read_gguf
from engine.native import llama as native_llama
from engine.planner.gguf import compute_bytes, kv_cache_cells, kv_cache_parts, make_plan
from engine.planner.plan import MiB
from tests.support.plan_matrix import _PLENTY, VOCAB, reported_compute, reported_kv
from tests.support.tiny_gguf import MATRIX, write_model

CONTEXTS = (512, 4096, 32768)
KV_TYPES = ("f16", "q8_0")


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("matrix")
    return {
        name: write_model(folder / f"{name}.gguf", replace(shape, vocab=VOCAB))
        for name, shape in MATRIX.items()
    }


class LogCapture:
    """Every line llama.cpp logs while installed, debug included (the backend keeps a tail)."""

    def __init__(self) -> None:
        self.parts: list[str] = []

    @property
    def text(self) -> str:
        return "".join(self.parts)


@pytest.fixture
def llama_log() -> Iterator[LogCapture]:
    lib = native_llama.native()
    capture = LogCapture()

    @lib.llama_log_callback  # type: ignore[untyped-decorator]
    def on_log(_level: int, text: bytes, _data: object) -> None:
        capture.parts.append(text.decode("utf-8", "replace"))

    lib.llama_log_set(on_log, None)
    try:
        yield capture
    finally:
        lib.llama_log_set(native_llama._log_callback, None)


@pytest.mark.parametrize("arch", list(MATRIX))
def test_plan_matches_what_llama_cpp_allocates(
    arch: str, models: dict[str, Path], llama_log: LogCapture
) -> None:
    path = models[arch]
    g = read_gguf(path)
    for n_ctx in CONTEXTS:
        for kv_type in KV_TYPES:
            plan = make_plan(g, _PLENTY, requested_ctx=n_ctx, kv_type=kv_type)
            assert plan.n_ctx == n_ctx
            llama_log.parts.clear()
            with backend.LlamaCppModel(path, plan) as model:
                size = native_llama.native().llama_model_size(model.model.handle)
            log = llama_log.text
            where = f"{arch} at {n_ctx} tokens, {kv_type}"
            assert "full-size SWA cache" not in log, where
            assert size == g.weights_bytes, where
            check_kv(g, plan.n_ctx, kv_type, plan.n_ubatch, log, where)
            planned = compute_bytes(g, n_ctx, plan.n_ubatch, plan.flash_attn)
            assert planned == pytest.approx(reported_compute(log), rel=0.10), where


def check_kv(g: GGUFFile, n_ctx: int, kv_type: str, n_ubatch: int, log: str, where: str) -> None:
    cells = kv_cache_cells(g, n_ctx, n_ubatch)
    parts = kv_cache_parts(g, n_ctx, kv_type, n_ubatch)
    swa = g.swa_layers()
    expected = [(parts[0], cells[0], swa.count(False))]
    if any(swa):
        expected.append((parts[1], cells[1], swa.count(True)))
    reported = reported_kv(log)
    assert [(c, n) for _mib, c, n in reported] == [(c, n) for _b, c, n in expected], where
    for (mib, _c, _n), (planned, _cells, _layers) in zip(reported, expected, strict=True):
        # Exact to the log's precision: printf's %.2f rounds as Python's format does.
        assert f"{planned / MiB:.2f}" == f"{mib:.2f}", where


def test_the_matrix_covers_sliding_windows_llama_cpp_ignores(models: dict[str, Path]) -> None:
    """Mistral (converted as llama) and Phi-3 files declare a window that llama.cpp does not use;
    Gemma 2 and 3 use theirs on some layers only."""
    for arch in ("mistral-window", "phi3"):
        g = read_gguf(models[arch])
        assert g.sliding_window and not any(g.swa_layers())
    for arch in ("gemma2", "gemma3"):
        swa = read_gguf(models[arch]).swa_layers()
        assert any(swa) and not all(swa)


def test_a_full_size_policy_is_modelled_too(models: dict[str, Path], llama_log: LogCapture) -> None:
    """The planner follows the policy the plan carries, whichever it is."""
    g = read_gguf(models["gemma3"])
    plan = replace(make_plan(g, _PLENTY, requested_ctx=4096), swa_full=True)
    with backend.LlamaCppModel(models["gemma3"], plan):
        pass
    assert "full-size SWA cache" in llama_log.text
    cells = [c for _mib, c, _n in reported_kv(llama_log.text)]
    assert cells == list(kv_cache_cells(g, 4096, swa_full=True)) == [4096, 4096]
    full, swa = kv_cache_parts(g, 4096, swa_full=True)
    assert [f"{mib:.2f}" for mib, _c, _n in reported_kv(llama_log.text)] == [
        f"{full / MiB:.2f}",
        f"{swa / MiB:.2f}",
    ]
