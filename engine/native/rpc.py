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
from typing import Any

from engine.errors import BackendUnavailable
from engine.native.lock import GGML_LOCK

# enum ggml_backend_dev_type (ggml-backend.h)
DEV_CPU, DEV_GPU, DEV_IGPU, DEV_ACCEL = 0, 1, 2, 3
_added: set[str] = set()


def _ggml() -> Any:
    from engine.native.ggml import ggml_calls
    from engine.native.llama import native

    return ggml_calls(native())


def cpu_buffer_type() -> int:
    """The CPU device's buffer type (for keeping tensors on this machine's CPU)."""
    ggml = _ggml()
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
