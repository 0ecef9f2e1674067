"""Backend registry and the engine's import discipline."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from engine.backends import backend_for, backend_names, get_backend, register
from engine.errors import BackendUnavailable


def test_llama_cpp_is_registered_and_handles_gguf(starter: Path, tmp_path: Path) -> None:
    assert "llama.cpp" in backend_names()
    assert backend_for(starter).name == "llama.cpp"
    assert get_backend("llama.cpp").availability() is None
    other = tmp_path / "model.bin"
    other.write_bytes(b"x")
    with pytest.raises(BackendUnavailable, match=r"No backend can run model\.bin"):
        backend_for(other)


def test_unknown_backend_lists_the_known_ones() -> None:
    with pytest.raises(BackendUnavailable, match=r"Known backends: .*llama\.cpp"):
        get_backend("vllm-in-process")


def test_duplicate_registration_is_refused() -> None:
    with pytest.raises(ValueError, match="already registered"):
        register(get_backend("llama.cpp"))


def test_importing_the_engine_loads_no_runtime() -> None:
    code = (
        "import sys, engine.cli, engine.backends.loader, engine.planner.gguf, engine.formats.gguf,"
        " engine.templates;"
        "heavy = [m for m in ('llama_cpp', 'onnxruntime', 'coremltools', 'PySide6', 'numpy')"
        " if m in sys.modules]; print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
