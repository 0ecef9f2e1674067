"""Memory planner: formula checks against llama.cpp's own figures for the starter model, verdicts
against devices with more or less free memory, sliding-window layers, and a measured load."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine.formats.gguf import GGUFFile, TensorInfo, read_gguf
from engine.planner.gguf import compute_bytes, kv_cache_bytes, make_plan
from engine.planner.plan import Device, MiB, Plan, Resources, usable_bytes

GiB = 1024 * MiB
ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def info(starter: Path) -> GGUFFile:
    return read_gguf(starter)


def free_for_usable(usable: int) -> int:
    """Free memory whose usable part (after the planner's headroom) is ``usable``."""
    return max(int(usable / 0.9), usable + 256 * MiB)


def cpu(free_gib: float) -> Resources:
    return Resources(cpu=Device("CPU RAM", "cpu", int(free_gib * GiB), 24 * GiB), threads=2)


def test_kv_cache_matches_llama_cpp(info: GGUFFile) -> None:
    # llama.cpp reports "KV buffer size = 180.00 MiB" for the starter model at 8192 cells (f16)
    # and 45.00 MiB at 2048: 30 layers x 3 KV heads x (64 + 64) x 2 bytes per cell.
    assert kv_cache_bytes(info, 8192) == 180 * MiB
    assert kv_cache_bytes(info, 2048) == 45 * MiB
    # Padded to 256 cells, like llama.cpp.
    assert kv_cache_bytes(info, 2000) == 45 * MiB
    assert kv_cache_bytes(info, 8192, "q8_0") == pytest.approx(180 * MiB * 34 / 64, rel=1e-6)


def test_compute_reserve_matches_llama_cpp(info: GGUFFile) -> None:
    # llama.cpp reports "CPU compute buffer size = 98.25 MiB" (n_ubatch 512, flash attention):
    # the logits of a full micro-batch. Without flash attention, at 8192 tokens the K*Q scores
    # outgrow them: 166.38 MiB.
    reserve = compute_bytes(info, 4096, 512, flash_attn=True)
    assert reserve == pytest.approx(98.25 * MiB, rel=0.05)
    resident = compute_bytes(info, 4096, 512, flash_attn=True, resident_only=True)
    assert resident < reserve / 5
    no_flash = compute_bytes(info, 8192, 512, flash_attn=False)
    assert no_flash == pytest.approx(166.38 * MiB, rel=0.05)


def test_plenty_of_memory_fits_at_the_default_context(info: GGUFFile) -> None:
    plan = make_plan(info, cpu(16))
    assert plan.verdict == "fits"
    assert plan.n_ctx == 8192 and plan.device == "CPU" and plan.gpu_layers == 0
    (budget,) = plan.budgets
    assert budget.weights == info.weights_bytes
    assert budget.total == budget.weights + budget.kv_cache + budget.compute + budget.overhead
    assert Plan.from_dict(json.loads(json.dumps(plan.to_dict()))) == plan


def test_a_malformed_plan_is_refused(info: GGUFFile) -> None:
    data = make_plan(info, cpu(16)).to_dict()
    with pytest.raises(ValueError):
        Plan.from_dict({**data, "verdict": "maybe"})
    with pytest.raises(KeyError):
        Plan.from_dict({k: v for k, v in data.items() if k != "n_ctx"})


def test_context_beyond_training_is_capped_and_said(info: GGUFFile) -> None:
    plan = make_plan(info, cpu(16), requested_ctx=32768)
    assert plan.n_ctx == 8192
    assert any("trained context" in r for r in plan.reasons)


def test_tight_memory_reduces_the_context(info: GGUFFile) -> None:
    full = make_plan(info, cpu(16), requested_ctx=8192).budgets[0].total
    # Free memory such that the usable part is between the 2k and 8k needs.
    free = free_for_usable(full - 100 * MiB)
    plan = make_plan(info, cpu(free / GiB), requested_ctx=8192)
    assert plan.verdict == "fits_reduced_context"
    assert 512 <= plan.n_ctx < 8192 and plan.n_ctx % 256 == 0
    assert plan.budgets[0].total <= usable_bytes(free)
    bigger = make_plan(info, cpu(free / GiB), requested_ctx=plan.n_ctx + 256)
    assert bigger.n_ctx == plan.n_ctx, "the largest context that fits was chosen"
    assert any("reduced" in r for r in plan.reasons)


def test_too_little_memory_does_not_fit(info: GGUFFile) -> None:
    plan = make_plan(info, cpu(0.2))
    assert plan.verdict == "does_not_fit" and not plan.loadable
    assert any("free" in r for r in plan.reasons)


def test_a_gpu_with_room_takes_every_layer(info: GGUFFile) -> None:
    gpu = Device("RTX 4090", "cuda", 20 * GiB, 24 * GiB)
    res = Resources(cpu=cpu(16).cpu, gpus=(gpu,), threads=8, gpu_offload=True)
    plan = make_plan(info, res)
    assert plan.verdict == "fits"
    assert plan.gpu_layers == info.block_count + 1
    assert plan.device.startswith("CUDA")
    gpu_budget = plan.budgets[0]
    assert gpu_budget.kv_cache == kv_cache_bytes(info, plan.n_ctx)
    assert gpu_budget.weights > 0.9 * info.weights_bytes - 30 * MiB


def test_a_small_gpu_gets_part_of_the_layers(info: GGUFFile) -> None:
    full = make_plan(
        info,
        Resources(
            cpu=cpu(16).cpu,
            gpus=(Device("big", "cuda", 20 * GiB, 24 * GiB),),
            gpu_offload=True,
        ),
    ).budgets[0]
    # Enough for the runtime, compute and about half of the layers.
    free = free_for_usable(full.overhead + full.compute + (full.weights + full.kv_cache) // 2)
    res = Resources(cpu=cpu(16).cpu, gpus=(Device("small", "cuda", free, free),), gpu_offload=True)
    plan = make_plan(info, res)
    assert plan.verdict == "partial_offload"
    assert 0 < plan.gpu_layers < info.block_count
    gpu_b, cpu_b = plan.budgets
    assert gpu_b.total <= gpu_b.usable
    assert cpu_b.weights > 0 and cpu_b.kv_cache > 0


def test_a_gpu_the_build_cannot_use_is_ignored(info: GGUFFile) -> None:
    res = Resources(cpu=cpu(16).cpu, gpus=(Device("g", "cuda", 20 * GiB, 24 * GiB),))
    plan = make_plan(info, res)
    assert plan.device == "CPU" and plan.gpu_layers == 0


def test_apple_unified_memory_counts_once(info: GGUFFile) -> None:
    metal = Device("Apple M2", "metal", 10 * GiB, 16 * GiB)
    res = Resources(cpu=cpu(12).cpu, gpus=(metal,), gpu_offload=True)
    plan = make_plan(info, res)
    assert plan.device.startswith("Metal") and plan.verdict == "fits"


def swa_model(window: int | None) -> GGUFFile:
    """A gemma3-like header: 12 layers, every 6th global, the others sliding-window."""
    md: dict[str, object] = {
        "general.architecture": "gemma3",
        "gemma3.block_count": 12,
        "gemma3.context_length": 32768,
        "gemma3.embedding_length": 1024,
        "gemma3.attention.head_count": 8,
        "gemma3.attention.head_count_kv": 4,
        "gemma3.attention.key_length": 128,
        "gemma3.attention.value_length": 128,
        "tokenizer.ggml.tokens": ["a"] * 1000,
    }
    if window:
        md["gemma3.attention.sliding_window"] = window
    tensor = TensorInfo("blk.0.attn_q.weight", (1024, 1024), 0, "F32", 0, 4 * 1024 * 1024)
    return GGUFFile(Path("m.gguf"), 3, 10**8, md, (tensor,), 4096)


def test_sliding_window_layers_hold_only_the_window() -> None:
    windowed, full = swa_model(1024), swa_model(None)
    assert windowed.swa_layers().count(True) == 10
    per_cell_layer = 4 * 256 * 2  # kv heads x (k + v dims) x f16
    expect = 2 * 32768 * per_cell_layer + 10 * (1024 + 512) * per_cell_layer
    assert kv_cache_bytes(windowed, 32768) == expect
    assert kv_cache_bytes(full, 32768) == 12 * 32768 * per_cell_layer


def measured_rows(*args: str) -> list[dict[str, float]]:
    out = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "bench_memory.py"), *args, "--json", "/dev/stdout"],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        timeout=240,
    )
    rows: list[dict[str, float]] = json.loads(out.stdout[out.stdout.index("[") :])
    return rows


@pytest.mark.slow
def test_prediction_matches_a_real_load_within_ten_percent() -> None:
    (row,) = measured_rows("--ctx", "2048")
    assert row["prompt_tokens"] > 1500, "the context was filled"
    assert abs(row["error_pct"]) <= 10.0, row


@pytest.mark.slow
def test_a_large_vocabulary_costs_what_the_runtime_term_says(tmp_path: Path) -> None:
    """A 262,144-token vocabulary (Gemma 3's) makes the header 6.4 MiB: the runtime term counts
    it per token, where 30 x header bytes over-counted it by 140 MiB."""
    pytest.importorskip("gguf")
    from tests.support.tiny_gguf import MATRIX, with_vocab, write_model

    path = write_model(tmp_path / "big-vocab.gguf", with_vocab(MATRIX["llama"], 262144))
    assert read_gguf(path).data_offset > 6 * MiB
    (row,) = measured_rows("--model", str(path), "--ctx", "1024")
    assert row["prompt_tokens"] > 700, "the context was filled"
    assert abs(row["error_pct"]) <= 10.0, row
