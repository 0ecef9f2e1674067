"""ONNX Runtime, imported with its telemetry off.

The environment switch set by ``engine/__init__.py`` (engine/privacy.py) is what stops ONNX
Runtime's lookups; the runtime call here is on top of it, for builds that honour only the call.
Kept apart from engine/privacy.py so that importing ``engine`` never reaches a runtime.
"""

from __future__ import annotations

from typing import Any


def import_onnxruntime() -> Any:
    """``import onnxruntime``, with the runtime's own opt-out called on top of the environment
    switch (the switch is what stops its lookups; the call covers builds that honour only it).
    Raises ImportError when it is not installed."""
    import onnxruntime

    disable = getattr(onnxruntime, "disable_telemetry_events", None)
    if callable(disable):
        disable()
    return onnxruntime
