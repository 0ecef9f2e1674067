"""What indexing and asking need of a sentence encoder: its identity, its vector size, and vectors
for texts (L2-normalised, so a dot product is a cosine).
``engine.documents.embeddings.EmbeddingModel`` is one, in this process; the window uses the engine
host's, over its API, so that it never loads a runtime itself."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Protocol


class Encoder(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def dimensions(self) -> int: ...

    def embed(self, texts: Sequence[str], *, batch_size: int = 32) -> list[list[float]]: ...


DEFAULT_ENCODER_ID = "all-minilm-l6-v2"  # the catalog's embedding model


def default_encoder_folder() -> Path | None:
    """The library's embedding model, when it is installed (``cove pull all-minilm-l6-v2``)."""
    return library_folder(DEFAULT_ENCODER_ID)


def library_folder(model_id: str) -> Path | None:
    """Where the catalog model ``model_id``'s first build is installed, when it is."""
    from engine.errors import CatalogError
    from engine.library.builds import install_path, is_installed
    from engine.library.catalog import load_catalog
    from engine.paths import models_dir

    try:
        entry = load_catalog().get(model_id)
    except CatalogError:
        return None
    if entry is None:
        return None
    variant = entry.variants[0]
    return install_path(models_dir(), variant) if is_installed(models_dir(), variant) else None
