"""Small vision-model files for the library's tests: a text GGUF (``tests/support/tiny_gguf.py``)
and a projector beside it (``tests/tiny_vision.py``), as a publisher ships them, and the catalog's
entry for the tiny vision model whose repository holds them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests import tiny_vision
from tests.support.tiny_gguf import MATRIX, write_model
from tests.tiny_vision import VisionShape

SHAPE = MATRIX["gemma3"]  # embedding width 128
WIDTH = SHAPE.embd

# The catalog's tiny vision model: its repository on the hub, and the two files it ships.
REPO = "acme/Tiny-Vision-GGUF"
MODEL = "Tiny-Vision-Q4_K_M.gguf"
PROJECTOR = "mmproj-Tiny-Vision-f16.gguf"
ARCH = {"layers": SHAPE.layers, "heads": SHAPE.heads, "kv_heads": SHAPE.kv_heads}
ARCH |= {"head_dim": SHAPE.head_dim, "embedding": SHAPE.embd, "ffn": SHAPE.ff, "vocab": SHAPE.vocab}


def write_text_model(path: Path, seed: int = 0) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_model(path, SHAPE, seed=seed)


def write_projector(path: Path, projection_dim: int = WIDTH) -> Path:
    """A Gemma 3 projector (``tests/tiny_vision.py``) whose output width is ``projection_dim``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    return tiny_vision.write_projector(path, VisionShape(), projection_dim)


def served(folder: Path, model: str, projector: str) -> dict[str, bytes]:
    """A model file and its projector, by file name, as a hub serves them."""
    return {
        model: write_text_model(folder / model).read_bytes(),
        projector: write_projector(folder / projector).read_bytes(),
    }


def catalog_entry() -> dict[str, Any]:
    """The catalog's entry for the tiny vision model: one GGUF build with its projector."""
    return {
        "id": "tiny-vision",
        "name": "Tiny Vision",
        "kind": "chat",
        "publisher": "Acme",
        "params_b": 0.01,
        "context_length": 2048,
        "license": "apache-2.0",
        "description": "A tiny vision model for tests.",
        "arch": ARCH,
        "variants": [
            {
                "format": "gguf",
                "repo": REPO,
                "file": MODEL,
                "quant": "Q4_K_M",
                "projector": PROJECTOR,
            }
        ],
    }
