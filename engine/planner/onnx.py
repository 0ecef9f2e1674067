"""The memory model of an ONNX build run by onnxruntime-genai: where the build runs (its execution
provider, or the CPU where this computer's ONNX Runtime cannot reach it) and at what context, from
the folder's ``genai_config.json`` (``engine/formats/onnx.py``) and the memory free now.
"""

from __future__ import annotations

from engine.formats.onnx import PREFILL_CHUNK, OnnxModelInfo
from engine.planner.plan import (
    MIN_CONTEXT,
    DeviceBudget,
    MiB,
    Plan,
    Resources,
    does_not_fit,
    largest_context,
    usable_bytes,
    wanted_context,
)

# Python, ONNX Runtime and onnxruntime-genai with a tokenizer loaded, less the weights: measured as
# the resident size after loading the test model (207 MiB) minus its 82 MiB of weights.
RUNTIME_BASE = 125 * MiB
SCRATCH_SLACK = 30 * MiB
# onnxruntime-genai's provider names (genai_config.json) and ONNX Runtime's, with the device
# each reaches, in words.
EXECUTION_PROVIDERS: dict[str, tuple[str, str]] = {
    "cuda": ("CUDAExecutionProvider", "an NVIDIA GPU (CUDA)"),
    "dml": ("DmlExecutionProvider", "a DirectX 12 GPU (DirectML)"),
    "webgpu": ("WebGpuExecutionProvider", "a GPU through WebGPU"),
    "rocm": ("ROCMExecutionProvider", "an AMD GPU (ROCm)"),
    "coreml": ("CoreMLExecutionProvider", "Apple's Neural Engine and GPU (Core ML)"),
    "qnn": ("QNNExecutionProvider", "a Qualcomm Hexagon NPU (QNN)"),
    "openvino": ("OpenVINOExecutionProvider", "an Intel NPU or GPU (OpenVINO)"),
    "vitisai": ("VitisAIExecutionProvider", "an AMD Ryzen AI NPU (Vitis AI)"),
}
# Builds for these are compiled for the device (QDQ graphs and EP context binaries): the CPU
# cannot run them. A CUDA, DirectML or WebGPU build is an ordinary graph the CPU can run.
_DEVICE_COMPILED = ("qnn", "openvino", "vitisai")


def provider_here(info: OnnxModelInfo, available: tuple[str, ...] | None) -> tuple[str, str | None]:
    """Where the build runs on a machine whose ONNX Runtime has the ``available`` providers
    (None: not known, the build's own): ("cpu" or the build's provider, the reason when that
    is not the build's own), or ("", why not) when it cannot run here."""
    wanted = info.provider
    if wanted == "cpu" or available is None:
        return wanted, None
    ep, device = EXECUTION_PROVIDERS.get(wanted, (f"{wanted} execution provider", wanted))
    if ep in available:
        return wanted, None
    here = ", ".join(p.removesuffix("ExecutionProvider") for p in available) or "none"
    if wanted in _DEVICE_COMPILED or info.compiled:
        return "", (
            f"This build is compiled for {device}; this computer's ONNX Runtime cannot reach "
            f"one (its providers: {here}). Get the model's CPU build instead."
        )
    return "cpu", (
        f"This build is for {device}, which this computer's ONNX Runtime cannot reach (its "
        f"providers: {here}); it runs on the CPU instead, more slowly."
    )


def plan_onnx(
    info: OnnxModelInfo,
    resources: Resources,
    *,
    requested_ctx: int | None = None,
    backend: str = "onnxruntime-genai",
) -> Plan:
    """Where the folder runs and at what context. The runtime picks the device from the folder's
    own config (the builder targets one execution provider); on CPU the budget is RAM."""
    reasons: list[str] = []
    wanted = wanted_context(info.context_length, requested_ctx, reasons)
    cpu = resources.cpu

    def budget(n_ctx: int) -> DeviceBudget:
        chunk = min(PREFILL_CHUNK, n_ctx)
        scratch = max(chunk * info.vocab_size * 4, info.heads * chunk * n_ctx * 4)
        return DeviceBudget(
            device=cpu.name,
            weights=info.weights_bytes,
            kv_cache=info.kv_cache_bytes(n_ctx),
            compute=scratch + SCRATCH_SLACK,
            overhead=RUNTIME_BASE,
            free=cpu.free_bytes,
        )

    def fits(n_ctx: int) -> bool:
        return budget(n_ctx).total <= usable_bytes(cpu.free_bytes)

    n_ctx, verdict = wanted, "fits"
    if not fits(wanted):
        best = largest_context(fits, wanted)
        if best is None:
            reasons.append(
                does_not_fit(
                    budget(MIN_CONTEXT).total,
                    usable_bytes(cpu.free_bytes),
                    context=MIN_CONTEXT,
                    advice="Close other programs or choose a smaller build.",
                )
            )
            n_ctx, verdict = MIN_CONTEXT, "does_not_fit"
        else:
            n_ctx, verdict = best, "fits_reduced_context"
            reasons.append(f"The context was reduced from {wanted} to {n_ctx} tokens to fit.")
    provider, why = provider_here(info, resources.ort_providers)
    if why is not None:
        reasons.append(why)
    if not provider:
        verdict = "unsupported"
    device = "CPU" if provider in ("cpu", "") else f"{provider.upper()} (ONNX Runtime)"
    return Plan(
        model=str(info.path),
        backend=backend,
        device=device,
        verdict=verdict,  # type: ignore[arg-type]
        n_ctx=n_ctx,
        requested_ctx=requested_ctx or wanted,
        n_layers=info.layers,
        gpu_layers=0,
        threads=resources.threads,
        n_batch=PREFILL_CHUNK,
        n_ubatch=PREFILL_CHUNK,
        kv_type="f32" if info.kv_bytes_per_element == 4 else "f16",
        flash_attn=False,
        budgets=(budget(n_ctx),),
        reasons=tuple(reasons),
    )
