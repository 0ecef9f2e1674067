"""Vision projectors (``mmproj`` GGUF files): what they are, and which one belongs to a model.

A vision model in llama.cpp is two files: the language model, and a projector holding the image
encoder (a ViT) and the layers that map its output into the language model's embedding space.
Publishers ship the projector beside the model (``mmproj-model-f16.gguf``,
``mmproj-gemma-3-4b-it-f16.gguf``); llama.cpp's multimodal library refuses a projector whose
output width differs from the model's embedding width, so that is what "belongs" means here.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from engine.errors import EngineError
from engine.formats.gguf import GGUFFile, read_gguf


@dataclass(frozen=True, slots=True)
class ProjectorInfo:
    """What the planner and the library need of a projector."""

    path: Path
    projector_type: str  # llama.cpp's name: gemma3, idefics3, qwen2.5vl_merger, ...
    weights_bytes: int
    image_size: int  # the encoder's input side in pixels
    patch_size: int
    embd: int  # the encoder's width
    ff: int
    layers: int
    heads: int
    projection_dim: int  # the width it hands the language model (0: not stated)
    merge: int  # patches merged per side into one token (Gemma 3's pooling, SmolVLM's shuffle)

    @property
    def patches(self) -> int:
        side = self.image_size // max(self.patch_size, 1)
        return side * side

    @property
    def image_tokens(self) -> int:
        """Tokens one image (one tile) takes in the language model's context."""
        side = self.image_size // max(self.patch_size, 1)
        per_side = side // max(self.merge, 1)
        return max(per_side * per_side, 1)


def is_projector(info: GGUFFile) -> bool:
    return info.architecture == "clip" and bool(info.metadata.get("clip.has_vision_encoder"))


def read_projector(path: Path) -> ProjectorInfo:
    """A projector's header; ``EngineError`` when the file is not a vision projector."""
    info = read_gguf(path)
    if not is_projector(info):
        raise EngineError(f"{path.name} is not a vision projector (mmproj) file.")
    meta = info.metadata

    def num(key: str, default: int = 0) -> int:
        value = meta.get(key, default)
        return int(value) if isinstance(value, int | float) else default

    kind = meta.get("clip.projector_type") or meta.get("clip.vision.projector_type") or "?"
    merge = num("clip.vision.projector.scale_factor", 0) or _DEFAULT_MERGE.get(str(kind), 1)
    return ProjectorInfo(
        path=path,
        projector_type=str(kind),
        weights_bytes=info.weights_bytes,
        image_size=num("clip.vision.image_size"),
        patch_size=num("clip.vision.patch_size", 1),
        embd=num("clip.vision.embedding_length"),
        ff=num("clip.vision.feed_forward_length"),
        layers=num("clip.vision.block_count"),
        heads=num("clip.vision.attention.head_count", 1),
        projection_dim=num("clip.vision.projection_dim"),
        merge=merge,
    )


# Merges llama.cpp applies when the file does not say (clip.cpp's load_hparams).
_DEFAULT_MERGE = {"gemma3": 4, "idefics3": 3, "qwen2vl_merger": 2, "qwen2.5vl_merger": 2}


def find_projector(model: Path, embedding_length: int | None = None) -> Path | None:
    """The projector beside a GGUF model: in the same folder, ``mmproj`` in its name, a vision
    projector whose output width is the model's embedding width (when known). Among several,
    the one whose name shares most with the model's, then the widest type (f16 before q8_0)."""
    found = _best_projector(model, embedding_length)
    return found.path if found is not None else None


def _best_projector(model: Path, embedding_length: int | None) -> ProjectorInfo | None:
    if model.suffix.lower() != ".gguf":
        return None
    try:
        candidates = [
            p
            for p in model.parent.iterdir()
            if p != model and p.suffix.lower() == ".gguf" and "mmproj" in p.name.lower()
        ]
    except OSError:
        return None
    if embedding_length is None:
        try:
            embedding_length = read_gguf(model).embedding_length
        except EngineError:
            return None
    fitting: list[tuple[int, int, str, ProjectorInfo]] = []
    for path in candidates:
        try:
            info = read_projector(path)
        except (EngineError, OSError):
            continue
        if info.projection_dim and info.projection_dim != embedding_length:
            continue
        # Names, character by character (not path components).
        stem = path.name.lower().replace("mmproj-", "")
        shared = len(os.path.commonprefix([stem, model.name.lower()]))  # noqa: RUF071
        fitting.append((-shared, -info.weights_bytes, path.name, info))
    return min(fitting)[3] if fitting else None


def projector_for(model: Path, info: GGUFFile) -> ProjectorInfo | None:
    """The projector that belongs to ``model`` (see ``find_projector``), read; None for a text
    model or one whose projector is missing."""
    return _best_projector(model, info.embedding_length)


# Language-model architectures that exist only as halves of vision models.
_VISION_ARCHITECTURES = frozenset(
    {"qwen2vl", "qwen3vl", "qwen3vlmoe", "mllama", "llama4", "gemma3n", "glm4v", "kimivl"}
)
_VISION_WORDS = ("-vl", " vl", "vl-", "vision", "smolvlm", "llava", "pixtral", "minicpm-v")


def looks_like_vision(model: Path, info: GGUFFile) -> bool:
    """Whether ``model`` looks like the language half of a vision model, by its architecture or
    its name (Gemma 3 from 4B up, Qwen2.5-VL, SmolVLM, LLaVA ...): without a projector beside
    it, it runs as a text model, and Cove says so."""
    name = f"{info.name or ''} {model.name}".lower()
    gemma3_vision = info.architecture == "gemma3" and info.embedding_length >= 2560
    return (
        info.architecture in _VISION_ARCHITECTURES
        or gemma3_vision
        or any(w in name for w in _VISION_WORDS)
    )


TEXT_ONLY = (
    "No projector (mmproj) file was found beside this vision model: it runs as a text model "
    "and cannot see images. Put the projector in the same folder, or reinstall it from Discover."
)
