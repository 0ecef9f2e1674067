"""What a model costs per token, from its file's header (or a catalog build's numbers) alone.

Generating a token reads every weight the token passes through once: the layers' matrices and
the output head, not the input embedding (one row of it is looked up), and of a mixture of
experts only the experts the router picks. Reading a prompt multiplies every prompt token through
the layers' matrices (two operations per weight) but computes the output head for the last token
only. Attention adds work that grows with the depth of the conversation: each token's query
meets every cached key and value.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

    from engine.formats.gguf import GGUFFile
    from engine.formats.onnx import OnnxModelInfo

_EXPERTS = re.compile(r"_exps?\.|_exp\.|\.ffn_(gate|up|down)_exps")
_INPUT = ("token_embd.weight",)
_OUTPUT = ("output.weight",)
# onnxruntime-genai builds: bytes a weight takes, by the builder's precision (int4 with a scale
# per block of 32: 4.5 bits).
ONNX_BYTES_PER_WEIGHT = {"int4": 0.5625, "fp16": 2.0, "fp32": 4.0, "int8": 1.0625}


@dataclass(frozen=True, slots=True)
class SpeedFacts:
    """A model's per-token costs, the numbers the speed model multiplies."""

    bytes_per_token: int  # weights read to generate one token (active experts only)
    prompt_flops: int  # operations per prompt token in the layers' matrices (2 per weight)
    layers: int
    width: int  # attention's query width: heads x head size
    kv_bytes_per_token: int  # cache bytes one token of context adds, every layer together
    moe: bool = False

    def attention_units(self, depth: float) -> float:
        """Attention's work for one token at ``depth`` tokens of context, in layer-width-token
        units (the speed model's attention rate multiplies them)."""
        return self.layers * self.width * max(depth, 0.0)

    def to_dict(self) -> dict[str, object]:
        return {
            "bytes_per_token": self.bytes_per_token,
            "prompt_flops": self.prompt_flops,
            "layers": self.layers,
            "width": self.width,
            "kv_bytes_per_token": self.kv_bytes_per_token,
            "moe": self.moe,
        }


def gguf_speed_facts(info: GGUFFile) -> SpeedFacts:
    """A GGUF's costs from its tensor table: exact bytes per tensor, experts scaled by the share
    the router uses. A catalog build (``engine/library/facts.py``) has one tensor per layer and
    no real shapes: its operations come from the architecture's numbers instead."""
    from engine.library.facts import ARCH

    layers = max(info.block_count, 1)
    heads, kv_heads = info.head_count, info.head_count_kv
    key, value = info.key_length, info.value_length
    experts = _optional_count(info, "expert_count")
    used = _optional_count(info, "expert_used_count")
    share = used / experts if experts and used else 1.0
    has_output = any(t.name in _OUTPUT for t in info.tensors)
    read = 0.0
    flops = 0.0
    for t in info.tensors:
        scale = share if _EXPERTS.search(t.name) else 1.0
        if t.name in _INPUT:
            if not has_output:  # tied: the input table is the output head too
                read += t.n_bytes
            continue
        read += t.n_bytes * scale
        if t.name.startswith("blk.") and len(t.shape) >= 2:
            flops += 2 * t.n_elements * scale
    if info.architecture == ARCH:
        flops = _arch_flops(info)
    return SpeedFacts(
        bytes_per_token=int(read),
        prompt_flops=int(flops),
        layers=layers,
        width=heads * key,
        kv_bytes_per_token=layers * kv_heads * (key + value) * 2,
        moe=experts > 1 and 0 < used < experts,
    )


def _arch_flops(info: GGUFFile) -> float:
    """Operations per token from the architecture's numbers: attention's four projections and
    a gated feed-forward's three matrices per layer."""
    embd = info.embedding_length
    heads, kv_heads, head = info.head_count, info.head_count_kv, info.key_length
    ffn = _optional_count(info, "feed_forward_length") or 4 * embd
    per_layer = 2 * embd * heads * head + 2 * embd * kv_heads * head + 3 * embd * ffn
    return 2.0 * per_layer * max(info.block_count, 1)


def onnx_speed_facts(info: OnnxModelInfo, precision: str = "int4") -> SpeedFacts:
    """An onnxruntime-genai build's costs: its files hold the weights; the parameter count
    follows from their bytes at the build's precision, less the embedding table."""
    per_weight = ONNX_BYTES_PER_WEIGHT.get(precision, ONNX_BYTES_PER_WEIGHT["int4"])
    width = info.heads * info.head_size
    table = info.vocab_size * width * per_weight
    params = max(info.weights_bytes - table, info.weights_bytes / 2) / per_weight
    return SpeedFacts(
        bytes_per_token=int(info.weights_bytes),
        prompt_flops=int(2 * params),
        layers=max(info.layers, 1),
        width=width,
        kv_bytes_per_token=info.layers * 2 * info.kv_heads * info.head_size * 2,
    )


def onnx_precision(name: str) -> str:
    """The builder's precision from a build's folder or target name ("cpu-int4", "cuda-fp16")."""
    lowered = name.lower()
    for precision in ("fp16", "fp32", "int8"):
        if precision in lowered:
            return precision
    return "int4"


def _optional_count(info: GGUFFile, key: str) -> int:
    """A count the architecture may not have (experts): 0 when absent or not a count."""
    value = info.arch_value(key)
    if isinstance(value, list) and value:
        value = value[0]  # per-layer: layer 0, as llama.cpp's scalar accessors read it
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def shape_by_size(size_bytes: int, bits_per_weight: float) -> SpeedFacts:
    """A dense decoder's costs known only by its file's size: the parameters from the bits per
    weight, layers and width as models of that size typically have them (about twelve times
    layers x width squared parameters)."""
    params = size_bytes * 8 / max(bits_per_weight, 1.0)
    layers = next((n for limit, n in _LAYERS if params < limit), 80)
    width = int((params / (12 * layers)) ** 0.5)
    return SpeedFacts(
        bytes_per_token=int(size_bytes * 0.92),  # the input embedding is not read
        prompt_flops=int(2 * params * 0.85),
        layers=layers,
        width=width,
        kv_bytes_per_token=layers * (width // 4) * 2 * 2,  # grouped queries: a quarter
    )


# (parameters below, layers): typical depths of open models by size.
_LAYERS = ((1e9, 24), (3e9, 28), (9e9, 32), (20e9, 48), (40e9, 64))


def facts_for(info: object) -> SpeedFacts | None:
    """A GGUF's or an ONNX build's costs; None for other formats (Core ML)."""
    from engine.formats.gguf import GGUFFile
    from engine.formats.onnx import OnnxModelInfo

    if isinstance(info, GGUFFile):
        return gguf_speed_facts(info)
    if isinstance(info, OnnxModelInfo):
        return onnx_speed_facts(info, onnx_precision(info.path.name))
    return None


def read_model_info(path: Path) -> GGUFFile | OnnxModelInfo:
    """A model file's header: an ONNX build's folder, else a GGUF file."""
    from engine.formats.gguf import read_gguf
    from engine.formats.onnx import is_onnx_chat_folder, read_onnx_model

    return read_onnx_model(path) if is_onnx_chat_folder(path) else read_gguf(path)
