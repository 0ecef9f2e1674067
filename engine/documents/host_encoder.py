"""The engine host's embedding model as an ``Encoder``: the window indexes and asks through it,
so that it never loads a runtime itself (the host loads the encoder into its embedding slot; the
chat model stays resident)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.client.http_client import EngineClient

BATCH = 64


class HostEncoder:
    def __init__(self, client: EngineClient, folder: Path) -> None:
        client.load(str(folder))
        self._client = client
        self._name = folder.name
        self._dimensions = len(client.embed(["dimensions"], model=self._name)[0])

    @property
    def name(self) -> str:
        return self._name

    @property
    def dimensions(self) -> int:
        return self._dimensions

    def embed(self, texts: Sequence[str], *, batch_size: int = BATCH) -> list[list[float]]:
        vectors: list[list[float]] = []
        for start in range(0, len(texts), batch_size):
            vectors += self._client.embed(list(texts[start : start + batch_size]), model=self._name)
        return vectors
