"""Will a model fit in the memory that is free now, where, and at what context: the plan's types
(``plan``) and one memory model per format (``gguf``, ``onnx``, ``coreml``)."""

# What the window uses, from the modules that hold it.
from engine.planner.plan import DEFAULT_CONTEXT, DeviceBudget, Plan

__all__ = ["DEFAULT_CONTEXT", "DeviceBudget", "Plan"]
