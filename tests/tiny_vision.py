"""A small vision model with random weights: a Gemma 3 language model and its projector.

The projector is a SigLIP-style image encoder (patch embedding, position embedding, pre-norm
transformer blocks with biases, a final norm) followed by Gemma 3's average pooling, RMS norm and
input projection, laid out as llama.cpp's converter writes ``mmproj`` files (tensor names and
shapes from tools/mtmd/clip-impl.h and clip.cpp's Gemma 3 path). Everything runs through
llama.cpp's multimodal library for real; the weights are noise, so what the model says is noise.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
from gguf import GGUFWriter

from tests.support.tiny_gguf import MATRIX, Shape, finish_sparse, write_model

IMAGE_MARKERS = ("<start_of_image>", "<end_of_image>")


@dataclass(frozen=True, slots=True)
class VisionShape:
    image_size: int = 64
    patch_size: int = 8
    embd: int = 64
    ff: int = 160
    layers: int = 2
    heads: int = 4
    merge: int = 2  # patches averaged per side into one image token

    @property
    def patches_per_side(self) -> int:
        return self.image_size // self.patch_size

    @property
    def image_tokens(self) -> int:
        side = self.patches_per_side // self.merge
        return side * side


TEXT: Shape = replace(MATRIX["gemma3"], specials=IMAGE_MARKERS)


def write_vision_model(
    folder: Path,
    vision: VisionShape = VisionShape(),
    text: Shape = TEXT,
    *,
    name: str = "tiny-gemma3-vision",
    sparse: bool = False,
) -> tuple[Path, Path]:
    """The language model and its projector, side by side in ``folder`` as publishers ship
    them: ``NAME-F16.gguf`` and ``mmproj-NAME-f16.gguf``."""
    folder.mkdir(parents=True, exist_ok=True)
    model = write_model(folder / f"{name}-F16.gguf", text)
    projector = write_projector(
        folder / f"mmproj-{name}-f16.gguf", vision, text.embd, sparse=sparse
    )
    return model, projector


def write_projector(
    path: Path, v: VisionShape, text_embd: int, *, seed: int = 1, sparse: bool = False
) -> Path:
    """A Gemma 3 projector (``clip.projector_type`` gemma3) for a model ``text_embd`` wide.
    ``sparse``: the weights are left as a hole in the file (full-size shapes without the disk)."""
    rng = np.random.default_rng(seed)
    w = GGUFWriter(str(path), "clip")
    w.add_name("tiny gemma3 projector")
    w.add_file_type(1)
    w.add_bool("clip.has_vision_encoder", True)
    w.add_string("clip.projector_type", "gemma3")
    w.add_bool("clip.use_gelu", True)
    w.add_uint32("clip.vision.image_size", v.image_size)
    w.add_uint32("clip.vision.patch_size", v.patch_size)
    w.add_uint32("clip.vision.embedding_length", v.embd)
    w.add_uint32("clip.vision.feed_forward_length", v.ff)
    w.add_uint32("clip.vision.block_count", v.layers)
    w.add_uint32("clip.vision.projection_dim", text_embd)
    w.add_uint32("clip.vision.attention.head_count", v.heads)
    w.add_float32("clip.vision.attention.layer_norm_epsilon", 1e-6)
    w.add_uint32("clip.vision.projector.scale_factor", v.merge)
    w.add_array("clip.vision.image_mean", [0.5, 0.5, 0.5])
    w.add_array("clip.vision.image_std", [0.5, 0.5, 0.5])
    tensors = list(_projector_tensors(v, text_embd))
    if sparse:
        for name, dims, dtype in tensors:
            nbytes = int(np.prod(dims)) * np.dtype(dtype).itemsize
            w.add_tensor_info(name, dims, np.dtype(dtype), nbytes)
        return finish_sparse(w, path)
    for name, dims, dtype in tensors:
        if dtype == np.float32 and name.endswith(".weight") and len(dims) == 1:
            data = np.ones(dims, dtype=np.float32)
        else:
            data = (rng.standard_normal(dims, dtype=np.float32) * 0.02).astype(dtype)
        w.add_tensor(name, data)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path


def _projector_tensors(
    v: VisionShape, text_embd: int
) -> list[tuple[str, tuple[int, ...], type[np.floating]]]:
    """(name, numpy shape, dtype): numpy order is ggml's reversed."""
    e, f, p = v.embd, v.ff, v.patch_size
    f16, f32 = np.float16, np.float32
    out: list[tuple[str, tuple[int, ...], type[np.floating]]] = [
        ("v.patch_embd.weight", (e, 3, p, p), f16),
        ("v.patch_embd.bias", (e,), f32),
        ("v.position_embd.weight", (v.patches_per_side**2, e), f32),
    ]
    for i in range(v.layers):
        b = f"v.blk.{i}"
        for part in ("attn_q", "attn_k", "attn_v", "attn_out"):
            out += [(f"{b}.{part}.weight", (e, e), f16), (f"{b}.{part}.bias", (e,), f32)]
        out += [
            (f"{b}.ln1.weight", (e,), f32),
            (f"{b}.ln1.bias", (e,), f32),
            (f"{b}.ln2.weight", (e,), f32),
            (f"{b}.ln2.bias", (e,), f32),
            (f"{b}.ffn_up.weight", (f, e), f16),
            (f"{b}.ffn_up.bias", (f,), f32),
            (f"{b}.ffn_down.weight", (e, f), f16),
            (f"{b}.ffn_down.bias", (e,), f32),
        ]
    out += [
        ("v.post_ln.weight", (e,), f32),
        ("v.post_ln.bias", (e,), f32),
        ("mm.input_projection.weight", (e, text_embd), f16),
        ("mm.soft_emb_norm.weight", (e,), f32),
    ]
    return out
