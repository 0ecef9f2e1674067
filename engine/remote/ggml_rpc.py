"""llama.cpp's RPC backend through the libraries llama-cpp-python already ships (built with
``-DGGML_RPC=ON``, packaging/llama_cpp_wheel.sh): the server side that ``cove worker`` runs
(``ggml_backend_rpc_start_server``, what llama.cpp's ``rpc-server`` tool calls) and, on the using
side, adding a server as a device before a model loads (what llama.cpp's ``--rpc`` does:
``ggml_backend_rpc_add_server`` looked up through the RPC backend's registry, then
``ggml_backend_register``). llama-cpp-python binds neither, so they are reached with ctypes.

ggml's RPC protocol has no authentication or encryption: Cove binds these servers to loopback only
and carries them between machines over its own key-checked TLS tunnel (engine/remote/tunnel.py).
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.errors import BackendUnavailable
from engine.native_lock import GGML_LOCK

# enum ggml_backend_dev_type (ggml-backend.h)
DEV_CPU, DEV_GPU, DEV_IGPU, DEV_ACCEL = 0, 1, 2, 3
_added: set[str] = set()


@dataclass(frozen=True, slots=True)
class DeviceMemory:
    name: str
    description: str
    kind: int
    free: int
    total: int


def _ggml() -> Any:
    from engine.backends.llama_cpp import native
    from engine.backends.threadpool import loaded_library

    lib = native()
    folder = Path(lib.llama_cpp._lib._name).parent
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
    base = ctypes.CDLL(loaded_library(folder, "ggml-base"))
    for name in ("ggml_backend_dev_name", "ggml_backend_dev_description"):
        getattr(base, name).restype = ctypes.c_char_p
        getattr(base, name).argtypes = (ctypes.c_void_p,)
    base.ggml_backend_dev_type.restype = ctypes.c_int
    base.ggml_backend_dev_type.argtypes = (ctypes.c_void_p,)
    base.ggml_backend_dev_memory.restype = None
    base.ggml_backend_dev_memory.argtypes = (
        ctypes.c_void_p,
        ctypes.POINTER(ctypes.c_size_t),
        ctypes.POINTER(ctypes.c_size_t),
    )
    ggml.base = base
    return ggml


def cpu_buffer_type() -> int:
    """The CPU device's buffer type (for keeping tensors on this machine's CPU)."""
    ggml = _ggml()
    ggml.ggml_backend_dev_by_type.restype = ctypes.c_void_p
    ggml.ggml_backend_dev_by_type.argtypes = (ctypes.c_int,)
    ggml.base.ggml_backend_dev_buffer_type.restype = ctypes.c_void_p
    ggml.base.ggml_backend_dev_buffer_type.argtypes = (ctypes.c_void_p,)
    cpu = ggml.ggml_backend_dev_by_type(DEV_CPU)
    if not cpu:
        raise BackendUnavailable("llama.cpp has no CPU device.")
    return int(ggml.base.ggml_backend_dev_buffer_type(cpu))


def _rpc_proc(ggml: Any, name: bytes) -> int:
    reg = ggml.ggml_backend_reg_by_name(b"RPC")
    if not reg:
        raise BackendUnavailable(
            "This llama.cpp was built without its RPC backend, so a model cannot be split across "
            "machines. Reinstall Cove (its setup builds llama.cpp with -DGGML_RPC=ON)."
        )
    address = ggml.ggml_backend_reg_get_proc_address(reg, name)
    if not address:
        raise BackendUnavailable(f"llama.cpp's RPC backend has no {name.decode()}.")
    return int(address)


def available() -> bool:
    try:
        _rpc_proc(_ggml(), b"ggml_backend_rpc_add_server")
    except (BackendUnavailable, OSError, AttributeError):
        return False
    return True


def devices() -> list[DeviceMemory]:
    """This process's ggml devices (the CPU, GPUs) with their free and total memory."""
    ggml = _ggml()
    found = []
    for i in range(int(ggml.ggml_backend_dev_count())):
        dev = ggml.ggml_backend_dev_get(i)
        free, total = ctypes.c_size_t(0), ctypes.c_size_t(0)
        ggml.base.ggml_backend_dev_memory(dev, ctypes.byref(free), ctypes.byref(total))
        found.append(
            DeviceMemory(
                name=(ggml.base.ggml_backend_dev_name(dev) or b"").decode(),
                description=(ggml.base.ggml_backend_dev_description(dev) or b"").decode(),
                kind=int(ggml.base.ggml_backend_dev_type(dev)),
                free=int(free.value),
                total=int(total.value),
            )
        )
    return found


def add_server(endpoint: str) -> None:
    """Make the RPC server at ``endpoint`` (host:port) a device for the models loaded after."""
    if endpoint in _added:
        return
    ggml = _ggml()
    add = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_char_p)(
        _rpc_proc(ggml, b"ggml_backend_rpc_add_server")
    )
    with GGML_LOCK:
        reg = add(endpoint.encode())
        if not reg:
            raise BackendUnavailable(f"llama.cpp could not add the RPC server {endpoint}.")
        ggml.ggml_backend_register(reg)
    _added.add(endpoint)


def start_server(endpoint: str, threads: int) -> None:
    """Serve this machine's GPUs (or, without one, its CPU) on ``endpoint`` until the process
    ends. Blocks; it is the whole life of ``python -m engine.remote.rpc_server``."""
    ggml = _ggml()
    start = ctypes.CFUNCTYPE(
        None,
        ctypes.c_char_p,
        ctypes.c_char_p,
        ctypes.c_size_t,
        ctypes.c_size_t,
        ctypes.POINTER(ctypes.c_void_p),
    )(_rpc_proc(ggml, b"ggml_backend_rpc_start_server"))
    handles = [ggml.ggml_backend_dev_get(i) for i in range(int(ggml.ggml_backend_dev_count()))]
    kinds = [int(ggml.base.ggml_backend_dev_type(h)) for h in handles]
    chosen = [h for h, k in zip(handles, kinds, strict=True) if k in (DEV_GPU, DEV_IGPU)]
    if not chosen:
        chosen = [h for h, k in zip(handles, kinds, strict=True) if k == DEV_CPU][:1]
    array = (ctypes.c_void_p * len(chosen))(*chosen)
    start(endpoint.encode(), None, threads, len(chosen), array)
