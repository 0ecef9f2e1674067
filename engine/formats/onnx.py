"""ONNX chat models (onnxruntime-genai folders): what a folder holds, read without loading it, and
the memory plan for it.

A folder is ``genai_config.json`` + the ONNX graph and its weights + ``tokenizer.json``, as
onnxruntime-genai's model builder writes it. The config is untrusted input: every field is checked
here before the runtime sees the folder.

Memory (measured on the test model, see docs/MEMORY_PLANNER.md):
  need = process and runtime baseline + weights (the ONNX files, read into memory)
       + KV cache (the runtime allocates it for the whole context up front: layers x 2 x kv_heads
         x head_size x context x bytes per element, fp32 for CPU builds, fp16 for GPU/NPU ones)
       + one prefill chunk's scratch: its logits (chunk x vocab x 4 bytes) or its attention scores
         (heads x chunk x context x 4 bytes), whichever is larger
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from engine.errors import ModelLoadError, ModelNotFound
from engine.planner.gguf import (
    DEFAULT_CONTEXT,
    MIN_CONTEXT,
    DeviceBudget,
    MiB,
    Plan,
    Resources,
    usable_bytes,
)

CONFIG = "genai_config.json"
MAX_CONFIG_BYTES = 1 << 20
PREFILL_CHUNK = 512
# Python, ONNX Runtime and onnxruntime-genai with a tokenizer loaded, less the weights: measured as
# the resident size after loading the test model (207 MiB) minus its 82 MiB of weights.
RUNTIME_BASE = 125 * MiB
SCRATCH_SLACK = 30 * MiB
_GPU_PROVIDERS = ("cuda", "dml", "webgpu", "qnn", "openvino", "vitisai")
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
_EP_CONTEXT = b"EPContext"
_GRAPH_HEAD = 4 << 20  # the graph's nodes come before its weights in the file


@dataclass(frozen=True, slots=True)
class OnnxModelInfo:
    path: Path
    name: str
    architecture: str
    layers: int
    heads: int
    kv_heads: int
    head_size: int
    context_length: int
    vocab_size: int
    weights_bytes: int
    kv_bytes_per_element: int
    providers: tuple[str, ...]
    chat_template: str | None
    compiled: bool = False  # holds precompiled device contexts (EPContext nodes)

    @property
    def provider(self) -> str:
        """The execution provider the build is for ("cpu" when none is named)."""
        return self.providers[0] if self.providers else "cpu"

    def kv_cache_bytes(self, n_ctx: int) -> int:
        per_token = self.layers * 2 * self.kv_heads * self.head_size * self.kv_bytes_per_element
        return per_token * n_ctx

    def summary(self) -> dict[str, object]:
        return {
            "format": "onnx (onnxruntime-genai)",
            "name": self.name,
            "architecture": self.architecture,
            "layers": self.layers,
            "heads": self.heads,
            "kv_heads": self.kv_heads,
            "context_length": self.context_length,
            "vocab_size": self.vocab_size,
            "weights_bytes": self.weights_bytes,
            "providers": list(self.providers) or ["cpu"],
        }


def is_onnx_chat_folder(path: Path) -> bool:
    return path.is_dir() and (path / CONFIG).is_file()


def read_onnx_model(path: Path) -> OnnxModelInfo:
    """Read and check a model folder's config; a clear ModelLoadError for anything malformed."""
    if not path.is_dir():
        raise ModelNotFound(f"No model folder at {path}.")
    config_path = path / CONFIG
    if not config_path.is_file():
        raise ModelLoadError(f"{path.name} has no {CONFIG}: it is not an ONNX chat model folder.")
    if config_path.stat().st_size > MAX_CONFIG_BYTES:
        raise ModelLoadError(f"{config_path} is implausibly large for a model config.")
    try:
        config = json.loads(config_path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise ModelLoadError(f"{config_path} is not valid JSON: {exc}.") from None
    model = _dict(config, "model", config_path)
    decoder = _dict(model, "decoder", config_path)
    graph = decoder.get("filename")
    if not isinstance(graph, str) or "/" in graph or "\\" in graph or graph.startswith("."):
        raise ModelLoadError(f"{config_path}: decoder.filename must name a file in the folder.")
    if not (path / graph).is_file():
        raise ModelLoadError(f"{path.name} is missing its model graph {graph}.")
    if not (path / "tokenizer.json").is_file():
        raise ModelLoadError(f"{path.name} is missing tokenizer.json.")
    heads = _int(decoder, "num_attention_heads", config_path, 1, 1024)
    providers = _providers(decoder)
    template_file = path / "chat_template.jinja"
    template = None
    if template_file.is_file() and template_file.stat().st_size <= MAX_CONFIG_BYTES:
        template = template_file.read_text(encoding="utf-8", errors="replace")
    weights = sum(
        f.stat().st_size
        for f in path.iterdir()
        if f.is_file() and (f.name.endswith(".onnx") or f.name.endswith(".onnx.data"))
    )
    return OnnxModelInfo(
        path=path,
        name=path.name,
        architecture=str(model.get("type") or "unknown"),
        layers=_int(decoder, "num_hidden_layers", config_path, 1, 1024),
        heads=heads,
        kv_heads=_int(decoder, "num_key_value_heads", config_path, 1, heads, default=heads),
        head_size=_int(decoder, "head_size", config_path, 1, 4096),
        context_length=_int(model, "context_length", config_path, 16, 1 << 22),
        vocab_size=_int(model, "vocab_size", config_path, 1, 1 << 22),
        weights_bytes=weights,
        kv_bytes_per_element=2 if any(p in _GPU_PROVIDERS for p in providers) else 4,
        providers=providers,
        chat_template=template,
        compiled=_has_ep_context(path / graph),
    )


def _has_ep_context(graph: Path) -> bool:
    with graph.open("rb") as f:
        return _EP_CONTEXT in f.read(_GRAPH_HEAD)


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
    train = max(info.context_length, MIN_CONTEXT)
    wanted = requested_ctx or min(train, DEFAULT_CONTEXT)
    if wanted > train:
        reasons.append(f"{wanted} exceeds the model's trained context; capped at {train}.")
        wanted = train
    wanted = max(wanted, MIN_CONTEXT)
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
        lo, hi = MIN_CONTEXT // 256, wanted // 256
        if not fits(lo * 256):
            need = budget(MIN_CONTEXT).total
            reasons.append(
                f"Needs {need / 2**30:.1f} GiB even at a {MIN_CONTEXT}-token context; "
                f"{usable_bytes(cpu.free_bytes) / 2**30:.1f} GiB of RAM is free to use."
            )
            n_ctx, verdict = MIN_CONTEXT, "does_not_fit"
        else:
            while lo < hi:
                mid = (lo + hi + 1) // 2
                lo, hi = (mid, hi) if fits(mid * 256) else (lo, mid - 1)
            n_ctx, verdict = lo * 256, "fits_reduced_context"
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


def _dict(data: object, key: str, where: Path) -> dict[str, object]:
    value = data.get(key) if isinstance(data, dict) else None
    if not isinstance(value, dict):
        raise ModelLoadError(f"{where}: '{key}' must be an object.")
    return value


def _int(
    data: dict[str, object],
    key: str,
    where: Path,
    low: int,
    high: int,
    default: int | None = None,
) -> int:
    value = data.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise ModelLoadError(f"{where}: '{key}' must be an integer between {low} and {high}.")
    return value


def _providers(decoder: dict[str, object]) -> tuple[str, ...]:
    options = decoder.get("session_options")
    entries = options.get("provider_options") if isinstance(options, dict) else None
    found: list[str] = []
    for entry in entries if isinstance(entries, list) else ():
        if isinstance(entry, dict):
            found.extend(str(k).lower() for k in entry)
    return tuple(found)
