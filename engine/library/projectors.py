"""Vision projectors in the models folder: the ``mmproj`` GGUF beside a model that lets it read
images. The library lists models, not projectors; a projector goes with its model when the model is
downloaded, imported or deleted, and stays while another model in its folder still uses it. Which
projector a model uses is ``engine.formats.gguf.projector.find_projector``'s answer, the one the
engine loads."""

from __future__ import annotations

import contextlib
from pathlib import Path

from engine.errors import EngineError
from engine.formats.gguf import GGUFFile
from engine.formats.gguf.projector import find_projector, is_projector
from engine.library.partial import disk_usage

MMPROJ = "mmproj"


def named_projector(path: Path) -> bool:
    """The name a projector has to have for the loader to look at it."""
    return MMPROJ in path.name.lower()


def listed_as_model(path: Path, info: GGUFFile | None) -> bool:
    """Whether a GGUF file is a model to list: not a vision projector by its header, nor a file
    named as one whose header cannot be read (a damaged projector)."""
    if info is None:
        return not named_projector(path)
    return not is_projector(info)


def projector_of(model: Path, embedding_length: int | None = None) -> Path | None:
    """The projector the engine would load with ``model``; None for a text-only model."""
    with contextlib.suppress(OSError, EngineError):
        return find_projector(model, embedding_length)
    return None


def models_using(projector: Path, *, besides: Path | None = None) -> list[Path]:
    """The GGUF models in the projector's folder that would load it, other than ``besides``."""
    try:
        siblings = sorted(projector.parent.iterdir())
    except OSError:
        return []
    return [
        p
        for p in siblings
        if p not in (projector, besides)
        and p.suffix.lower() == ".gguf"
        and not named_projector(p)
        and projector_of(p) == projector
    ]


def remove_unused(projector: Path | None, *, besides: Path | None = None) -> int:
    """Delete ``projector`` unless a model beside it (other than ``besides``) uses it; the bytes
    freed."""
    if projector is None or not projector.is_file() or models_using(projector, besides=besides):
        return 0
    freed = disk_usage(projector)
    with contextlib.suppress(FileNotFoundError):
        projector.unlink()
    return freed
