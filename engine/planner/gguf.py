"""Memory plan: will this model fit in the memory that is free *now*, where, and at what context.

need = weights + KV cache + compute buffers + runtime overhead, per device, checked against free
memory with headroom. The formula, its sources and its measured error are in docs/MEMORY_PLANNER.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from engine.formats.gguf import GGUFFile
from engine.formats.gguf.projector import ProjectorInfo
from engine.planner.plan import (
    CONTEXT_STEP,
    MIN_CONTEXT,
    SWA_FULL,
    Device,
    DeviceBudget,
    MiB,
    Plan,
    ProjectorPlan,
    Resources,
    Verdict,
    does_not_fit,
    largest_context,
    usable_bytes,
    wanted_context,
)
from engine.units import format_bytes

# Bytes per KV element by cache type: ggml's block sizes (q8_0: 34 bytes per 32 values, q4_0: 18
# per 32), see ggml's type_traits table.
KV_BYTES: dict[str, float] = {"f16": 2.0, "q8_0": 34 / 32, "q4_0": 18 / 32}
# llama.cpp pads the KV cache to a multiple of this many cells (the plans' context step).
KV_PAD = CONTEXT_STEP
# Process baseline measured for the engine (interpreter, llama.cpp, numpy, ONNX Runtime not loaded)
# with a model of a 1,024-token vocabulary: see docs/MEMORY_PLANNER.md for the measurement.
RUNTIME_BASE = 72 * MiB
# Resident bytes per vocabulary token and per BPE merge: llama.cpp's token tables (text, score,
# the text-to-id map, the piece cache) and what the Python parse of the header leaves behind.
# Fitted on peak RSS of a 262,144-token SentencePiece vocabulary (197 B per token) and the
# starter's 49,152 tokens with 48,900 merges (274 B per merge): docs/MEMORY_PLANNER.md.
RUNTIME_PER_TOKEN = 200
RUNTIME_PER_MERGE = 275
# Per-device runtime cost of a GPU backend (CUDA context, cuBLAS workspace, Metal command buffers);
# llama.cpp does not allocate it through its buffers, so it must be added by hand.
GPU_RUNTIME = {"cuda": 400 * MiB, "metal": 64 * MiB}


def projector_compute_bytes(info: ProjectorInfo) -> int:
    """The image encoder's scratch memory for one image, as ggml's allocator reserves it with
    flash attention (llama.cpp's multimodal default where the device has it): one block's
    feed-forward activations and three hidden states per patch, f32. Without flash attention the
    attention scores (heads x patches x patches) come on top. Checked against the "compute buffer
    size" llama.cpp reports for encoders from 64 to 4,096 patches (docs/MEMORY_PLANNER.md)."""
    return info.patches * 4 * (info.ff + 3 * info.embd)


def projector_plan(info: ProjectorInfo, device: str) -> ProjectorPlan:
    return ProjectorPlan(
        path=str(info.path),
        device=device,
        weights=info.weights_bytes,
        compute=projector_compute_bytes(info),
        image_tokens=info.image_tokens,
        kind=info.projector_type,
    )


def kv_cache_parts(
    g: GGUFFile, n_ctx: int, kv_type: str = "f16", n_ubatch: int = 512, swa_full: bool = SWA_FULL
) -> tuple[int, int]:
    """(bytes of the full-attention layers' cache, bytes of the sliding-window layers' cache).

    Per layer: cells * kv_heads * (head_dim_k + head_dim_v) * bytes per element. Full-attention
    layers hold the whole context padded to 256 cells. Sliding-window layers, unless ``swa_full``,
    hold ``pad(min(cells, window + n_ubatch), 256)``: the window plus one micro-batch in flight
    (llama.cpp's llama_kv_cache_iswa, one sequence, not unified). llama.cpp keeps the two kinds in
    two buffers and reports each; a model without sliding-window layers has only the first.
    """
    per_elem = KV_BYTES[kv_type]
    cells, swa_cells = kv_cache_cells(g, n_ctx, n_ubatch, swa_full)
    heads = g.kv_heads_per_layer()
    swa = g.swa_layers()
    dims = g.key_length + g.value_length
    full_part = swa_part = 0.0
    for layer in range(g.block_count):
        if swa[layer]:
            swa_part += swa_cells * heads[layer] * dims * per_elem
        else:
            full_part += cells * heads[layer] * dims * per_elem
    return math.ceil(full_part), math.ceil(swa_part)


def kv_cache_bytes(
    g: GGUFFile, n_ctx: int, kv_type: str = "f16", n_ubatch: int = 512, swa_full: bool = SWA_FULL
) -> int:
    """The whole KV cache: both parts of ``kv_cache_parts``."""
    return sum(kv_cache_parts(g, n_ctx, kv_type, n_ubatch, swa_full))


def compute_bytes(
    g: GGUFFile,
    n_ctx: int,
    n_ubatch: int,
    flash_attn: bool,
    *,
    resident_only: bool = False,
    swa_full: bool = SWA_FULL,
) -> int:
    """The graph's scratch memory for one micro-batch, as ggml's allocator reserves it.

    llama.cpp reserves the prompt graph for a full micro-batch with every row's logits. ggml's
    allocator reuses memory once a tensor's last reader has run, so the buffer is the larger of
    two peaks rather than their sum:

    - inside the layers: the attention masks (f16, one row of cells per token, one mask per cache
      kind), live from the first layer to the last, plus one layer's feed-forward activations
      (f32: four ``n_ff``-wide and one ``n_embd``-wide per token; for a mixture of experts,
      ``n_ff`` is the routed experts' width times the experts used per token). Without flash
      attention the K*Q scores (f32, cells x tokens x heads) are live too;
    - at the output: the logits (f32, ``n_vocab`` per token) and three hidden states per token.

    Cove asks for the logits of the last prompt token only, so in RAM, where a page becomes
    resident when it is first written, one logits row is ever resident (``resident_only``). GPU
    allocations are committed up front and count in full. Measured against llama.cpp's "compute
    buffer size" over the architecture matrix: docs/MEMORY_PLANNER.md.
    """
    n_embd = g.embedding_length
    cells = _pad(n_ctx, KV_PAD)
    masks = n_ubatch * sum(kv_cache_cells(g, n_ctx, n_ubatch, swa_full)) * 2
    layer = masks + n_ubatch * 4 * (4 * _ffn_width(g) + n_embd)
    if not flash_attn:
        layer += cells * n_ubatch * max(g.heads_per_layer()) * 4
    logits_rows = 1 if resident_only else n_ubatch
    output = logits_rows * 4 * g.vocab_size + n_ubatch * 4 * 3 * n_embd
    return max(layer, output)


def kv_cache_cells(
    g: GGUFFile, n_ctx: int, n_ubatch: int = 512, swa_full: bool = SWA_FULL
) -> tuple[int, int]:
    """(cells of the full-attention cache, cells of the sliding-window cache; 0 without one)."""
    cells = _pad(n_ctx, KV_PAD)
    window = g.sliding_window
    if not any(g.swa_layers()) or window is None:
        return cells, 0
    return cells, cells if swa_full else _pad(min(cells, window + n_ubatch), KV_PAD)


def _ffn_width(g: GGUFFile) -> int:
    """Width of one token's feed-forward activations: the dense ``n_ff``, or for a mixture of
    experts the routed experts' width times the experts each token uses (plus a shared expert)."""
    experts_used = _as_int(g.arch_value("expert_used_count", 0))
    expert_ff = _as_int(g.arch_value("expert_feed_forward_length", 0))
    if experts_used and expert_ff:
        shared = _as_int(g.arch_value("expert_shared_feed_forward_length", 0))
        return experts_used * expert_ff + shared
    return _as_int(g.arch_value("feed_forward_length", 4 * g.embedding_length))


def runtime_overhead(g: GGUFFile) -> int:
    """Process baseline plus what scales with the tokenizer: llama.cpp's tables per token and per
    merge, and the Python parse of the header (to validate the file and choose the chat
    template). Counted per token and per merge rather than per header byte: a byte of vocabulary
    costs far more than a byte of anything else in the header."""
    merges = g.metadata.get("tokenizer.ggml.merges")
    n_merges = len(merges) if isinstance(merges, list) else 0
    return RUNTIME_BASE + RUNTIME_PER_TOKEN * g.vocab_size + RUNTIME_PER_MERGE * n_merges


def split_weights(g: GGUFFile) -> tuple[list[int], int, int]:
    """(bytes per repeating layer, input embedding bytes, output head bytes)."""
    layers = [0] * g.block_count
    embed = output = 0
    for t in g.tensors:
        if t.name.startswith("blk."):
            idx = t.name.split(".", 2)[1]
            if idx.isdigit() and int(idx) < g.block_count:
                layers[int(idx)] += t.n_bytes
                continue
        if t.name.startswith("token_embd"):
            embed += t.n_bytes
        else:
            output += t.n_bytes
    return layers, embed, output


def make_plan(
    g: GGUFFile,
    resources: Resources,
    *,
    requested_ctx: int | None = None,
    kv_type: str = "f16",
    n_batch: int = 512,
    n_ubatch: int = 512,
    backend: str = "llama.cpp",
    flash_attn: bool = True,
    projector: ProjectorInfo | None = None,
) -> Plan:
    """Choose device, GPU layers and context so that everything fits in free memory. Flash
    attention is on unless asked otherwise (``engine.tuning`` measures both where both can
    run; without it the attention scores need scratch memory and the V cache must be f16)."""
    if kv_type not in KV_BYTES:
        raise ValueError(f"unknown KV cache type {kv_type!r}; choose one of {sorted(KV_BYTES)}")
    reasons: list[str] = []
    wanted = wanted_context(g.context_length, requested_ctx, reasons)
    common = _Settings(
        model=str(g.path),
        backend=backend,
        requested_ctx=requested_ctx or wanted,
        n_layers=g.block_count,
        threads=resources.threads,
        n_batch=n_batch,
        n_ubatch=n_ubatch,
        kv_type=kv_type,
        flash_attn=flash_attn,
        projector=projector,
    )
    gpu = max(resources.gpus, key=lambda d: d.free_bytes) if resources.gpus else None
    if gpu is not None and resources.gpu_offload:
        plan = _plan_gpu(g, resources, gpu, wanted, common, reasons)
        if plan is not None:
            return plan
        reasons.append(f"{gpu.name} has too little free memory for even one layer; using the CPU.")
    return _plan_cpu(g, resources, wanted, common, reasons)


@dataclass(frozen=True, slots=True)
class _Settings:
    """The parts of a plan that do not depend on where the model goes."""

    model: str
    backend: str
    requested_ctx: int
    n_layers: int
    threads: int
    n_batch: int
    n_ubatch: int
    kv_type: str
    flash_attn: bool
    projector: ProjectorInfo | None = None

    @property
    def projector_bytes(self) -> int:
        p = self.projector
        return 0 if p is None else p.weights_bytes + projector_compute_bytes(p)

    def plan(
        self,
        device: str,
        verdict: Verdict,
        n_ctx: int,
        gpu_layers: int,
        budgets: tuple[DeviceBudget, ...],
        reasons: list[str],
    ) -> Plan:
        return Plan(
            model=self.model,
            backend=self.backend,
            device=device,
            verdict=verdict,
            n_ctx=n_ctx,
            requested_ctx=self.requested_ctx,
            n_layers=self.n_layers,
            gpu_layers=gpu_layers,
            threads=self.threads,
            n_batch=self.n_batch,
            n_ubatch=self.n_ubatch,
            kv_type=self.kv_type,
            flash_attn=self.flash_attn,
            budgets=budgets,
            reasons=tuple(reasons),
            projector=(
                None
                if self.projector is None
                else projector_plan(self.projector, budgets[0].device)
            ),
        )


def _cpu_budget(
    g: GGUFFile,
    cpu: Device,
    n_ctx: int,
    kv_type: str,
    n_ubatch: int,
    flash_attn: bool = True,
    projector: int = 0,
) -> DeviceBudget:
    return DeviceBudget(
        device=cpu.name,
        weights=g.weights_bytes,
        kv_cache=kv_cache_bytes(g, n_ctx, kv_type, n_ubatch),
        compute=compute_bytes(g, n_ctx, n_ubatch, flash_attn=flash_attn, resident_only=True),
        overhead=runtime_overhead(g),
        free=cpu.free_bytes,
        projector=projector,
    )


def _plan_cpu(
    g: GGUFFile, r: Resources, wanted: int, common: _Settings, reasons: list[str]
) -> Plan:
    kv_type, n_ubatch = common.kv_type, common.n_ubatch

    def budget(ctx: int) -> DeviceBudget:
        return _cpu_budget(
            g, r.cpu, ctx, kv_type, n_ubatch, common.flash_attn, common.projector_bytes
        )

    full = budget(wanted)
    if full.total <= full.usable:
        return common.plan("CPU", "fits", wanted, 0, (full,), reasons)
    best = largest_context(lambda ctx: budget(ctx).total <= full.usable, wanted)
    if best is not None:
        reasons.append(
            f"At {wanted} tokens it needs {format_bytes(full.total)} but "
            f"{format_bytes(full.usable)} is usable; context reduced to {best} tokens."
        )
        return common.plan("CPU", "fits_reduced_context", best, 0, (budget(best),), reasons)
    reasons.append(
        does_not_fit(
            budget(MIN_CONTEXT).total,
            full.usable,
            context=MIN_CONTEXT,
            advice="Close other programs or choose a smaller quantization.",
        )
    )
    return common.plan("CPU", "does_not_fit", wanted, 0, (full,), reasons)


def _plan_gpu(
    g: GGUFFile,
    r: Resources,
    gpu: Device,
    wanted: int,
    common: _Settings,
    reasons: list[str],
) -> Plan | None:
    """Offload as many layers as fit, from the last layer down (llama.cpp offloads the last
    ``n_gpu_layers`` repeating layers, plus the output head when all of them are offloaded)."""
    kv_type, n_ubatch = common.kv_type, common.n_ubatch
    layers, embed, output = split_weights(g)
    kv_total = kv_cache_bytes(g, wanted, kv_type, n_ubatch)
    kv_layer = [kv_total / g.block_count] * g.block_count
    compute = compute_bytes(g, wanted, n_ubatch, flash_attn=common.flash_attn)
    gpu_rt = GPU_RUNTIME.get(gpu.kind, GPU_RUNTIME["cuda"])
    unified = gpu.kind == "metal"

    def budgets(n: int) -> tuple[DeviceBudget, DeviceBudget]:
        on_gpu = range(g.block_count - min(n, g.block_count), g.block_count)
        w_gpu = sum(layers[i] for i in on_gpu) + (output if n > g.block_count else 0)
        kv_gpu = int(sum(kv_layer[i] for i in on_gpu))
        # llama.cpp's multimodal library puts the image encoder on the GPU when there is one.
        gpu_b = DeviceBudget(
            gpu.name, w_gpu, kv_gpu, compute, gpu_rt, gpu.free_bytes, common.projector_bytes
        )
        # With mmap the CPU keeps only what was not offloaded; the logits and the input
        # embeddings' lookups stay on the host.
        cpu_b = DeviceBudget(
            r.cpu.name,
            g.weights_bytes - w_gpu if not unified else embed,
            kv_total - kv_gpu,
            n_ubatch * 4 * g.vocab_size if n > g.block_count else compute,
            runtime_overhead(g),
            r.cpu.free_bytes,
        )
        return gpu_b, cpu_b

    def fits(n: int) -> bool:
        gpu_b, cpu_b = budgets(n)
        if unified:
            return gpu_b.total + cpu_b.total <= min(gpu_b.usable, cpu_b.usable)
        return gpu_b.total <= gpu_b.usable and cpu_b.total <= cpu_b.usable

    all_layers = g.block_count + 1
    device = f"{gpu.kind.upper() if gpu.kind != 'metal' else 'Metal'}: {gpu.name}"
    if fits(all_layers):
        return common.plan(device, "fits", wanted, all_layers, budgets(all_layers), reasons)
    best = max((n for n in range(g.block_count, 0, -1) if fits(n)), default=0)
    if best == 0:
        return None
    reasons.append(
        f"All {all_layers} layers need more than the {format_bytes(usable_bytes(gpu.free_bytes))} "
        f"usable on {gpu.name}; {best} run on the GPU and the rest on the CPU (slower)."
    )
    return common.plan(device, "partial_offload", wanted, best, budgets(best), reasons)


def _pad(n: int, to: int) -> int:
    return ((n + to - 1) // to) * to


def _as_int(value: object) -> int:
    if isinstance(value, list):
        return max(int(v) for v in value) if value else 0
    return int(value)  # type: ignore[call-overload, no-any-return]
