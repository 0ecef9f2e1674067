"""llama.cpp in this process: imported once, its backends initialised once, and its log (and the
multimodal library's) kept in a bounded tail, shown with load errors, instead of the user's
terminal. Everything that binds llama.cpp or ggml (the backends, the thread pool, the RPC
devices, the hardware probe) starts here.
"""

from __future__ import annotations

import threading
from collections import deque
from typing import Any

from engine.errors import BackendUnavailable
from engine.native.lock import GGML_LOCK

_LOG_LINES = 200
_native: Any = None
_native_lock = threading.Lock()
_log_tail: deque[str] = deque(maxlen=_LOG_LINES)
_log_callback: Any = None  # kept referenced: llama.cpp calls it from native threads


def native() -> Any:
    """Import llama_cpp once, initialise its backends, and route its log into a bounded tail
    (shown with load errors) instead of the user's terminal."""
    global _native, _log_callback
    with _native_lock:
        if _native is None:
            try:
                import llama_cpp
            except ImportError as exc:  # pragma: no cover - depends on the installation
                raise BackendUnavailable(
                    f"llama-cpp-python is not installed ({exc}). Reinstall Cove's dependencies."
                ) from exc

            @llama_cpp.llama_log_callback  # type: ignore[untyped-decorator]
            def on_log(level: int, text: bytes, _data: Any) -> None:
                _log_tail.append(text.decode("utf-8", "replace"))

            _log_callback = on_log
            llama_cpp.llama_log_set(on_log, None)
            with GGML_LOCK:
                llama_cpp.llama_backend_init()
            _native = llama_cpp
        return _native


_mtmd_logging = False


def route_mtmd_log() -> None:
    """Send the multimodal library's log where llama.cpp's goes (the bounded tail)."""
    global _mtmd_logging
    native()
    with _native_lock:
        if not _mtmd_logging:
            from llama_cpp import mtmd_cpp

            mtmd_cpp.mtmd_log_set(_log_callback, None)
            mtmd_cpp.mtmd_helper_log_set(_log_callback, None)
            _mtmd_logging = True


def has_amx(lib: Any) -> bool:
    """Whether this llama.cpp build runs matrix products on the CPU's AMX tiles."""
    return amx_in(lib.llama_print_system_info().decode("utf-8", "replace"))


def amx_in(system_info: str) -> bool:
    return "AMX_INT8 = 1" in system_info


def recent_log(n: int = 20) -> list[str]:
    lines = "".join(_log_tail).splitlines()
    return [line for line in lines if line.strip()][-n:]


def clear_log() -> None:
    """Forget the tail, so that a load's errors are its own."""
    _log_tail.clear()
