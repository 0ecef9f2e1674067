"""Small vision-model files for the library's tests: a text GGUF (``tests/tiny_gguf.py``) and a
projector beside it, a clip GGUF as llama.cpp's converter writes one (architecture ``clip``, a
vision encoder, its projector type and output width), with a few small tensors. They parse with
``engine.gguf``; they are not meant to run."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from gguf import GGUFWriter

from tests.tiny_gguf import MATRIX, write_model

SHAPE = MATRIX["gemma3"]  # embedding width 128
WIDTH = SHAPE.embd


def write_text_model(path: Path, seed: int = 0) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_model(path, SHAPE, seed=seed)


def write_projector(path: Path, projection_dim: int = WIDTH, seed: int = 0) -> Path:
    """A gemma3-type projector whose output width is ``projection_dim``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    writer = GGUFWriter(str(path), "clip")
    writer.add_bool("clip.has_vision_encoder", True)
    writer.add_string("clip.projector_type", "gemma3")
    writer.add_uint32("clip.vision.image_size", 64)
    writer.add_uint32("clip.vision.patch_size", 16)
    writer.add_uint32("clip.vision.embedding_length", 32)
    writer.add_uint32("clip.vision.feed_forward_length", 64)
    writer.add_uint32("clip.vision.block_count", 1)
    writer.add_uint32("clip.vision.attention.head_count", 2)
    writer.add_uint32("clip.vision.projection_dim", projection_dim)
    writer.add_tensor(
        "v.patch_embd.weight", rng.standard_normal((32, 3, 16, 16)).astype(np.float16)
    )
    writer.add_tensor(
        "mm.input_projection.weight", rng.standard_normal((projection_dim, 32)).astype(np.float16)
    )
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path
