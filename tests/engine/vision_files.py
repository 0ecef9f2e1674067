"""Small vision-model files for the library's tests: a text GGUF (``tests/support/tiny_gguf.py``)
and a projector beside it (``tests/tiny_vision.py``), as a publisher ships them."""

from __future__ import annotations

from pathlib import Path

from tests import tiny_vision
from tests.support.tiny_gguf import MATRIX, write_model
from tests.tiny_vision import VisionShape

SHAPE = MATRIX["gemma3"]  # embedding width 128
WIDTH = SHAPE.embd


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
