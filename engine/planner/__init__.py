"""Will a model fit in the memory that is free now, where, and at what context: the plan's types
(``plan``) and one memory model per format (``gguf``, ``onnx``, ``coreml``)."""
