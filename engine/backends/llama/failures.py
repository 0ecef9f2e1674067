"""What a failed llama.cpp call means for the user, with the native library's own last words."""

from __future__ import annotations

from engine.errors import EngineError
from engine.native.llama import recent_log


def decode_error(rc: int) -> EngineError:
    """What a failed ``llama_decode`` (other than an abort) means for the user."""
    if rc == 1:
        return EngineError("The context is full: no room left in the KV cache.")
    return EngineError(native_failure(f"llama.cpp failed to evaluate the prompt (code {rc})"))


def native_failure(what: str) -> str:
    """``what`` failed, with the errors llama.cpp logged just before."""
    tail = [line for line in recent_log(40) if "error" in line.lower() or "failed" in line.lower()]
    detail = f" llama.cpp said: {' | '.join(tail[-3:])}" if tail else ""
    return f"{what}.{detail} The file may be damaged or need a newer llama.cpp."
