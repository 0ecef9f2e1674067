"""Cove's engine: everything that is not pixels.

Importing this package must stay cheap: runtimes (llama.cpp, ONNX Runtime, Core ML) are imported
inside the functions that need them, never at module level.
"""

__version__ = "0.1.0"
