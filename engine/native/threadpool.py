"""A persistent CPU thread pool for a llama.cpp context.

Without one, ggml creates and joins its worker threads on every graph it computes: once per
generated token. llama.cpp's own tools (llama-bench, llama-server) attach a pool that lives as long
as the context, and so does Cove; docs/PERFORMANCE.md measures the difference.

llama-cpp-python does not bind these calls, so they are reached through ctypes in the libraries it
already loaded: ``ggml_threadpool_params_init`` (ggml-base), ``ggml_threadpool_new`` and
``ggml_threadpool_free`` looked up through the CPU backend's registry (as llama-bench does, so that
it also works when backends are loaded dynamically), and ``llama_attach_threadpool`` (llama).
Anything missing means no pool: generation still works, as before, only slower.
"""

from __future__ import annotations

import ctypes
import logging
from typing import Any

from engine.native.ggml import ggml_calls

log = logging.getLogger("cove.llama")

_MAX_THREADS = 512  # GGML_MAX_N_THREADS: the size of the params struct's cpumask


class _Params(ctypes.Structure):
    """``struct ggml_threadpool_params`` (ggml.h)."""

    _fields_ = (
        ("cpumask", ctypes.c_bool * _MAX_THREADS),
        ("n_threads", ctypes.c_int),
        ("prio", ctypes.c_int),
        ("poll", ctypes.c_uint32),
        ("strict_cpu", ctypes.c_bool),
        ("paused", ctypes.c_bool),
    )


_NEW = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.POINTER(_Params))
_FREE = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class ThreadPool:
    """A pool of ``n_threads`` attached to one context; ``close()`` after the context is freed."""

    def __init__(self, handle: int, free: Any) -> None:
        self._handle: int | None = handle
        self._free = free

    @property
    def handle(self) -> int | None:
        return self._handle

    def close(self) -> None:
        if self._handle is not None:
            self._free(self._handle)
            self._handle = None


def attach_threadpool(llama_lib: Any, ctx: Any, n_threads: int) -> ThreadPool | None:
    """Create a pool of ``n_threads`` and attach it to ``ctx`` (for prompts and decoding alike);
    None when this build does not offer the calls."""
    try:
        libllama = llama_lib.llama_cpp._lib
        ggml = ggml_calls(llama_lib)
        base = ggml.base
        cpu = ggml.ggml_backend_reg_by_name(b"CPU")
        new_addr = ggml.ggml_backend_reg_get_proc_address(cpu, b"ggml_threadpool_new")
        free_addr = ggml.ggml_backend_reg_get_proc_address(cpu, b"ggml_threadpool_free")
        if not cpu or not new_addr or not free_addr:
            return None
        base.ggml_threadpool_params_init.restype = None
        base.ggml_threadpool_params_init.argtypes = (ctypes.POINTER(_Params), ctypes.c_int)
        attach = libllama.llama_attach_threadpool
        attach.restype = None
        attach.argtypes = (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)
    except (AttributeError, OSError) as exc:
        log.info("no persistent thread pool: %s", exc)
        return None
    params = _Params()
    base.ggml_threadpool_params_init(ctypes.byref(params), n_threads)
    handle = _NEW(new_addr)(ctypes.byref(params))
    if not handle:
        return None
    attach(ctx, handle, None)
    return ThreadPool(handle, _FREE(free_addr))
