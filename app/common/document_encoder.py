"""The sentence encoder document search uses in the window: the library's embedding model, run by
this computer's engine host (a host of this computer's even while another computer's engine
answers: documents and questions are searched here, and only the grounded prompt goes there)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from engine.documents import HostEncoder

if TYPE_CHECKING:
    from app.common.engine_service import EngineService
    from engine.documents import Encoder


class DocumentEncoder:
    """Called on a worker thread for the encoder; None until both the library's embedding model
    and an engine exist (files are then indexed for keywords, their vectors added the next time).
    ``forget()`` when the engine that embeds changes."""

    def __init__(self, engine: EngineService, folder: Callable[[], Path | None]) -> None:
        self._engine = engine
        self._folder = folder
        self._encoder: Encoder | None = None

    def __call__(self) -> Encoder | None:
        encoder = self._encoder
        if encoder is not None:
            return encoder
        folder = self._folder()
        if folder is None or self._engine.engine is None:
            return None
        encoder = HostEncoder(self._engine.local_embedder(), folder)
        self._encoder = encoder
        return encoder

    def forget(self) -> None:
        self._encoder = None
