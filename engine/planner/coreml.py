"""The memory model of a Core ML package: its weights, the KV-cache state Core ML allocates whole
at the package's fixed context, and the prompt's scratch, against the memory free now (unified: the
Neural Engine and the GPU share it with the CPU). The package is read by
``engine/formats/coreml.py``.
"""

from __future__ import annotations

from engine.formats.coreml import PREFILL_CHUNK, CoreMLModelInfo
from engine.planner.plan import (
    DEFAULT_CONTEXT,
    MIN_CONTEXT,
    DeviceBudget,
    Plan,
    Resources,
    does_not_fit,
    usable_bytes,
)

RUNTIME_BYTES = 300 << 20  # Core ML's own runtime and compiled-model cache, measured on nothing


def plan_coreml(
    info: CoreMLModelInfo,
    resources: Resources,
    *,
    requested_ctx: int | None = None,
    backend: str = "coreml",
) -> Plan:
    """Weights, the KV-cache state (fixed at the package's context: Core ML allocates it whole)
    and the prompt's scratch, against free memory (unified: the Neural Engine and the GPU share
    it with the CPU)."""
    reasons: list[str] = []
    n_ctx = info.context_length
    wanted = requested_ctx or min(n_ctx, DEFAULT_CONTEXT)
    if wanted > n_ctx:
        reasons.append(
            f"The package's KV cache holds {n_ctx} tokens; the context is {n_ctx}, not {wanted}."
        )
    elif wanted < n_ctx:
        reasons.append(
            f"The package's KV cache is allocated for {n_ctx} tokens whatever context is asked "
            "for; conversations may use all of it."
        )
    scratch = PREFILL_CHUNK * info.vocab_size * 4 + PREFILL_CHUNK * (n_ctx + PREFILL_CHUNK) * 2
    cpu = resources.cpu
    budget = DeviceBudget(
        device=cpu.name,
        weights=info.weights_bytes,
        kv_cache=info.state_bytes,
        compute=scratch,
        overhead=RUNTIME_BYTES,
        free=cpu.free_bytes,
    )
    fits = budget.total <= usable_bytes(cpu.free_bytes)
    if not fits:
        reasons.append(
            does_not_fit(
                budget.total,
                usable_bytes(cpu.free_bytes),
                context=None,
                advice="Core ML packages have a fixed context: a smaller one needs another "
                "conversion.",
            )
        )
    return Plan(
        model=str(info.path),
        backend=backend,
        device="Neural Engine / GPU (Core ML)",
        verdict="fits" if fits else "does_not_fit",
        n_ctx=max(n_ctx, MIN_CONTEXT) if n_ctx >= MIN_CONTEXT else n_ctx,
        requested_ctx=requested_ctx or wanted,
        n_layers=info.layers,
        gpu_layers=info.layers,
        threads=resources.threads,
        n_batch=PREFILL_CHUNK,
        n_ubatch=PREFILL_CHUNK,
        kv_type="f16" if info.states[0].element_bytes == 2 else "f32",
        flash_attn=False,
        budgets=(budget,),
        reasons=tuple(reasons),
    )
