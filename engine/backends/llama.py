"""The llama.cpp backend: GGUF models generating one reply at a time (llama_cpp.py) or several at
once in one context (llama_parallel.py), as the plan says."""

from __future__ import annotations

from pathlib import Path

from engine.backends.base import LoadProgress
from engine.backends.llama_cpp import LlamaCppModel
from engine.backends.llama_parallel import ParallelLlamaCpp
from engine.errors import BackendUnavailable
from engine.native.llama import native
from engine.planner.plan import Plan


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
            model = LlamaCppModel(path, plan, progress=progress, sequences=plan.parallel)
            return ParallelLlamaCpp(model, plan.parallel)
        return LlamaCppModel(path, plan, progress=progress)
