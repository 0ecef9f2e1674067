"""ggml's own calls, which llama-cpp-python does not bind, reached with ctypes in the library
copy llama.cpp itself loaded: the device registry, for the thread pool (threadpool.py) and for
llama.cpp's RPC devices (engine/native/rpc.py)."""

from __future__ import annotations

import ctypes
import functools
import sys
from pathlib import Path
from typing import Any


@functools.cache
def ggml_calls(llama_lib: Any) -> Any:
    """ggml (``.base``: ggml-base) with the registry and device calls bound, once. ``llama_lib``
    is the imported ``llama_cpp`` module. Raises OSError or AttributeError where this build
    lacks them."""
    folder = Path(llama_lib.llama_cpp._lib._name).parent
    ggml: Any = ctypes.CDLL(loaded_library(folder, "ggml"))
    ggml.ggml_backend_reg_by_name.restype = ctypes.c_void_p
    ggml.ggml_backend_reg_by_name.argtypes = (ctypes.c_char_p,)
    ggml.ggml_backend_reg_get_proc_address.restype = ctypes.c_void_p
    ggml.ggml_backend_reg_get_proc_address.argtypes = (ctypes.c_void_p, ctypes.c_char_p)
    ggml.ggml_backend_register.restype = None
    ggml.ggml_backend_register.argtypes = (ctypes.c_void_p,)
    ggml.ggml_backend_dev_count.restype = ctypes.c_size_t
    ggml.ggml_backend_dev_count.argtypes = ()
    ggml.ggml_backend_dev_get.restype = ctypes.c_void_p
    ggml.ggml_backend_dev_get.argtypes = (ctypes.c_size_t,)
    ggml.ggml_backend_dev_by_type.restype = ctypes.c_void_p
    ggml.ggml_backend_dev_by_type.argtypes = (ctypes.c_int,)
    base = ctypes.CDLL(loaded_library(folder, "ggml-base"))
    base.ggml_backend_dev_buffer_type.restype = ctypes.c_void_p
    base.ggml_backend_dev_buffer_type.argtypes = (ctypes.c_void_p,)
    base.ggml_backend_dev_type.restype = ctypes.c_int
    base.ggml_backend_dev_type.argtypes = (ctypes.c_void_p,)
    ggml.base = base
    return ggml


def loaded_library(folder: Path, stem: str) -> str:
    """The file of ``stem``'s library that llama.cpp was linked against, in ``folder``.

    A wheel cannot hold symbolic links, so ``libggml.so``, ``libggml.so.0`` and
    ``libggml.so.0.25.3`` are three copies of one library, and llama-cpp-python itself opens
    ``libggml.so`` beside the ``libggml.so.0`` that ``libllama`` names: each copy is a ggml with
    its own device registry. The one that counts is the versioned name (the soname), found among
    the files this process loaded (``/proc/self/maps`` on Linux)."""
    name = _library_name(stem)
    if sys.platform.startswith("linux"):
        try:
            maps = Path("/proc/self/maps").read_text(encoding="utf-8", errors="replace")
        except OSError:
            maps = ""
        loaded = {
            path
            for path in (line.rsplit(" ", 1)[-1] for line in maps.splitlines())
            if Path(path).parent == folder and Path(path).name.startswith(name + ".")
        }
        if loaded:
            return min(loaded, key=len)
    return str(folder / name)


def _library_name(stem: str) -> str:
    if sys.platform == "win32":
        return f"{stem}.dll"
    if sys.platform == "darwin":
        return f"lib{stem}.dylib"
    return f"lib{stem}.so"
