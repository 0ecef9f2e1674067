"""A catalog build as the planners see it, before any of its bytes exist here: the architecture's
numbers from the catalog and the build's size (the hub's, or an estimate from the parameter count)
turned into the same ``GGUFFile`` / ``OnnxModelInfo`` a local file gives, so that a catalog
recommendation and a load are planned by one and the same code.

The weights are spread as llama.cpp lays them out: the input embedding and the output head (each
vocabulary x width at the build's bits per weight), the rest shared evenly by the layers, which is
what partial GPU offload counts. The vocabulary's merge table is not known, so the runtime term is
counted for the tokens alone (a few MiB less than for the real file).
"""

from __future__ import annotations

from pathlib import Path

from engine.formats.gguf import GGUFFile, TensorInfo
from engine.formats.onnx import OnnxModelInfo
from engine.library.catalog import BITS_PER_WEIGHT, CatalogModel, Variant

ARCH = "catalog"
_GPU_PROVIDERS = ("cuda", "dml", "qnn", "openvino", "vitisai", "webgpu")


def gguf_facts(model: CatalogModel, variant: Variant, size_bytes: int) -> GGUFFile:
    arch = model.arch
    if arch is None:
        raise ValueError(f"{model.id} has no architecture numbers to plan with")
    bits = BITS_PER_WEIGHT.get(str(variant.quant), 8.5)
    table = int(arch.vocab * arch.embedding * bits / 8)
    embed = output = min(table, size_bytes // 4)
    per_layer = max(0, size_bytes - embed - output) // arch.layers
    layers = [f"blk.{i}.weights" for i in range(arch.layers)]
    names = ["token_embd.weight", *layers, "output.weight"]
    sizes = [embed, *([per_layer] * arch.layers), output]
    tensors, offset = [], 0
    for name, n in zip(names, sizes, strict=True):
        tensors.append(TensorInfo(name, (n,), 0, str(variant.quant), offset, n))
        offset += n
    metadata: dict[str, object] = {
        "general.architecture": ARCH,
        "general.name": model.name,
        f"{ARCH}.block_count": arch.layers,
        f"{ARCH}.context_length": model.context_length,
        f"{ARCH}.embedding_length": arch.embedding,
        f"{ARCH}.feed_forward_length": arch.ffn,
        f"{ARCH}.attention.head_count": arch.heads,
        f"{ARCH}.attention.head_count_kv": arch.kv_heads,
        f"{ARCH}.attention.key_length": arch.head_dim,
        f"{ARCH}.attention.value_length": arch.head_dim,
        f"{ARCH}.vocab_size": arch.vocab,
    }
    if arch.sliding_window and arch.swa_period:  # interleaved: every period-th layer is global
        metadata[f"{ARCH}.attention.sliding_window"] = arch.sliding_window
        metadata[f"{ARCH}.attention.sliding_window_pattern"] = arch.swa_period
    return GGUFFile(
        path=Path(variant.key),
        version=3,
        file_size=size_bytes,
        metadata=metadata,
        tensors=tuple(tensors),
        data_offset=0,
    )


def onnx_facts(model: CatalogModel, variant: Variant, size_bytes: int) -> OnnxModelInfo:
    arch = model.arch
    if arch is None:
        raise ValueError(f"{model.id} has no architecture numbers to plan with")
    provider = variant.provider or "cpu"
    return OnnxModelInfo(
        path=Path(variant.key),
        name=model.name,
        architecture=ARCH,
        layers=arch.layers,
        heads=arch.heads,
        kv_heads=arch.kv_heads,
        head_size=arch.head_dim,
        context_length=model.context_length,
        vocab_size=arch.vocab,
        weights_bytes=size_bytes,
        kv_bytes_per_element=2 if provider in _GPU_PROVIDERS else 4,
        providers=() if provider == "cpu" else (provider,),
        chat_template=None,
    )
