"""What indexing and asking need of a sentence encoder: its identity, its vector size, and vectors
for texts (L2-normalised, so a dot product is a cosine). ``engine.embeddings.EmbeddingModel``
is one, in this process; the window uses the engine host's, over its API, so that it never loads
a runtime itself."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol


class Encoder(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def dimensions(self) -> int: ...

    def embed(self, texts: Sequence[str], *, batch_size: int = 32) -> list[list[float]]: ...
