"""A GGUF model answering one reply at a time: the loaded model with its one sequence."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from pathlib import Path

from engine.backends.base import LoadProgress
from engine.backends.llama.model import LlamaModel
from engine.backends.llama.sequence import LlamaSequence
from engine.planner.plan import Plan


class LlamaCppModel(LlamaSequence):
    """One resident model with one context (one conversation's KV cache), generating through the
    shared loop (engine/generation/loop.py). It owns its model: closing it frees the weights."""

    def __init__(self, path: Path, plan: Plan, *, progress: LoadProgress | None = None) -> None:
        super().__init__(LlamaModel(path, plan, progress=progress))
        # A reply and other work on the weights (a measurement, ``held``) exclude each other.
        self._lock = self.model.lock

    @contextlib.contextmanager
    def held(self) -> Iterator[threading.Event]:
        with self.model.held() as event:
            yield event

    def close(self) -> None:
        self.model.interrupt()
        super().close()

    def _free(self) -> None:
        self.model.free()
