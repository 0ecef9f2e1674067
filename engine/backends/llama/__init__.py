"""The llama.cpp backend: a GGUF model (model.py) generating one reply at a time on its one
sequence (single.py), or several at once on the sequences of its context (parallel.py), as the
plan says."""

from __future__ import annotations

from pathlib import Path

from engine.backends.base import LoadProgress
from engine.backends.llama.model import LlamaModel
from engine.backends.llama.parallel import ParallelLlamaCpp
from engine.backends.llama.single import LlamaCppModel
from engine.errors import BackendUnavailable
from engine.native.llama import native
from engine.planner.plan import Plan

__all__ = ["LlamaCppBackend"]


class LlamaCppBackend:
    name = "llama.cpp"

    def availability(self) -> str | None:
        try:
            native()
        except BackendUnavailable as exc:
            return str(exc)
        return None

    def handles(self, path: Path) -> bool:
        return path.is_file() and path.suffix.lower() == ".gguf"

    def load(
        self, path: Path, plan: Plan, progress: LoadProgress | None = None
    ) -> LlamaCppModel | ParallelLlamaCpp:
        if plan.parallel > 1 and plan.projector is None:
            model = LlamaModel(path, plan, progress=progress, sequences=plan.parallel)
            return ParallelLlamaCpp(model)
        return LlamaCppModel(path, plan, progress=progress)
