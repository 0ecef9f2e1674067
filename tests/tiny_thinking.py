"""A small model whose chat template can turn its thinking off, as Qwen3's does: with
``enable_thinking`` false the generation prompt closes an empty thinking block, so the reply is
the answer alone; otherwise the prompt opens the thinking (as thinking builds of Qwen3 and
DeepSeek-R1 do), so the reply starts inside it. The weights are noise: what the model writes is
noise, thinking or not."""

from __future__ import annotations

from pathlib import Path

from tests.support.tiny_gguf import MATRIX, write_model

OPEN_THINKING = "<think>\n"
SKIPPED_THINKING = "<think>\n\n</think>\n\n"
THINKING_TEMPLATE = (
    "{% for m in messages %}<|{{ m['role'] }}|>\n{{ m['content'] }}\n{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>\n"
    "{% if enable_thinking is defined and enable_thinking is false %}"
    + SKIPPED_THINKING
    + "{% else %}"
    + OPEN_THINKING
    + "{% endif %}{% endif %}"
)


def write_thinking_model(path: Path) -> Path:
    """A tiny llama-shaped GGUF at ``path`` with ``THINKING_TEMPLATE``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_model(path, MATRIX["llama"], chat_template=THINKING_TEMPLATE)
