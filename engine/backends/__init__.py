"""Runtimes behind one small Protocol (``base``), found by name in a registry.

A backend module imports its runtime inside functions, so that listing backends (or importing the
engine at all) never pays for a native library the user does not need.
"""

from __future__ import annotations

import threading
from pathlib import Path

from engine.backends.base import Backend, LoadedModel, LoadProgress
from engine.errors import BackendUnavailable

__all__ = ["Backend", "LoadProgress", "LoadedModel", "backend_for", "get_backend", "register"]

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
            from engine.backends.llama import LlamaCppBackend

            register(LlamaCppBackend())
        if "onnxruntime-genai" not in _REGISTRY:
            from engine.backends.ort_genai import OrtGenaiBackend

            register(OrtGenaiBackend())
        if "coreml" not in _REGISTRY:
            from engine.backends.coreml import CoreMLBackend

            register(CoreMLBackend())
