"""Runtimes behind one small Protocol, found by name in a registry.

A backend module imports its runtime inside functions, so that listing backends (or importing the
engine at all) never pays for a native library the user does not need.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from engine.errors import BackendUnavailable
from engine.tools import Tool
from engine.types import ChatMessage, Chunk, GenerationParams

if TYPE_CHECKING:
    from engine.planner.plan import Plan


# Called with the fraction loaded (0..1); returning False cancels the load.
LoadProgress = Callable[[float], bool]


class LoadedModel(Protocol):
    """A model resident in memory. ``close()`` returns its native memory."""

    @property
    def n_ctx(self) -> int: ...

    def count_tokens(self, messages: Sequence[ChatMessage], tools: Sequence[Tool] = ()) -> int: ...

    def chat(
        self,
        messages: Sequence[ChatMessage],
        params: GenerationParams,
        cancel: threading.Event | None = None,
    ) -> Iterator[Chunk]: ...

    def complete(
        self, prompt: str, params: GenerationParams, cancel: threading.Event | None = None
    ) -> Iterator[Chunk]: ...

    def close(self) -> None: ...


class Backend(Protocol):
    name: str

    def availability(self) -> str | None:
        """None when usable here, else why not (for the user)."""
        ...

    def handles(self, path: Path) -> bool: ...

    def load(self, path: Path, plan: Plan, progress: LoadProgress | None = None) -> LoadedModel: ...


_REGISTRY: dict[str, Backend] = {}


def register(backend: Backend) -> None:
    if backend.name in _REGISTRY:
        raise ValueError(f"a backend named {backend.name!r} is already registered")
    _REGISTRY[backend.name] = backend


def get_backend(name: str) -> Backend:
    _ensure_builtin()
    try:
        return _REGISTRY[name]
    except KeyError:
        known = ", ".join(sorted(_REGISTRY)) or "none"
        raise BackendUnavailable(f"No backend named {name!r}. Known backends: {known}.") from None


def backend_for(path: Path) -> Backend:
    _ensure_builtin()
    for backend in _REGISTRY.values():
        if backend.handles(path):
            return backend
    known = ", ".join(sorted(_REGISTRY))
    raise BackendUnavailable(
        f"No backend can run {path.name}. Cove runs GGUF files, ONNX model folders with a "
        f"genai_config.json and (on macOS) stateful Core ML packages (backends: {known})."
    )


def backend_names() -> list[str]:
    _ensure_builtin()
    return sorted(_REGISTRY)


_builtin_lock = threading.Lock()


def _ensure_builtin() -> None:
    with _builtin_lock:
        if "llama.cpp" not in _REGISTRY:
            from engine.backends.llama_cpp import LlamaCppBackend

            register(LlamaCppBackend())
        if "onnxruntime-genai" not in _REGISTRY:
            from engine.backends.ort_genai import OrtGenaiBackend

            register(OrtGenaiBackend())
        if "coreml" not in _REGISTRY:
            from engine.backends.coreml import CoreMLBackend

            register(CoreMLBackend())
