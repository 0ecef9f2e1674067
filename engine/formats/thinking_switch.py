"""Whether a model's chat template can turn its thinking off, read from the template's text
without rendering it.

Hybrid reasoning models (Qwen3, SmolLM3, GLM-4.5 ...) ship a template that reads the variable
``enable_thinking``: false, it closes an empty thinking block in the generation prompt (or tells
the model not to think), and the reply is the answer alone. Hugging Face's
``apply_chat_template(enable_thinking=False)`` sets it, as do llama-server's and vLLM's
``chat_template_kwargs``; here a request's ``GenerationParams.thinking`` (engine.templates.render).
"""

from __future__ import annotations

THINKING_VARIABLE = "enable_thinking"


def switches_thinking(source: str | None) -> bool:
    """Whether a chat template lets a request turn the model's thinking off (it reads
    ``enable_thinking``)."""
    return source is not None and THINKING_VARIABLE in source
