"""Cove's engine: everything that is not pixels.

Importing this package must stay cheap: runtimes (llama.cpp, ONNX Runtime, Core ML) are imported
inside the functions that need them, never at module level.

Telemetry of every dependency is switched off here, first, so that no import order can load a
runtime before the switch is set (engine/privacy.py).
"""

from engine import privacy as _privacy

_privacy.apply()

__version__ = "0.1.0"
