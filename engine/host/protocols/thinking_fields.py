"""How each protocol's request turns a reasoning model's thinking on or off, read into
``GenerationParams.thinking`` (engine/formats/thinking_switch.py gives it to the chat template).

- Chat Completions: llama-server's and vLLM's ``chat_template_kwargs``, variables for the chat
  template. Only ``enable_thinking`` is read; any other key is ignored and named in the
  ``cove-ignored`` header (engine/host/http/leniency.py), never handed to the template: the
  template's other variables are the engine's (``messages``, ``tools``, ``bos_token`` ...), and a
  client that set them could rewrite the prompt or make the template fail.
- Ollama: ``think``, true or false (a level, ``"high"``, ``"medium"`` or ``"low"``, is thinking
  on: Cove sets no effort).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.errors import InvalidRequest
from engine.formats.thinking_switch import THINKING_VARIABLE
from engine.host.http.leniency import unknown_fields

TEMPLATE_KWARGS = "chat_template_kwargs"
OLLAMA_LEVELS = ("high", "medium", "low")


def template_kwargs_thinking(data: Mapping[str, Any]) -> bool | None:
    """``chat_template_kwargs.enable_thinking`` (None: not given)."""
    raw = data.get(TEMPLATE_KWARGS)
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise InvalidRequest(
            f"'{TEMPLATE_KWARGS}' must be an object, such as {{\"{THINKING_VARIABLE}\": false}}."
        )
    unknown_fields(raw, (THINKING_VARIABLE,), TEMPLATE_KWARGS)
    value = raw.get(THINKING_VARIABLE)
    if value is not None and not isinstance(value, bool):
        raise InvalidRequest(f"'{TEMPLATE_KWARGS}.{THINKING_VARIABLE}' must be true or false.")
    return value


def ollama_thinking(data: Mapping[str, Any]) -> bool | None:
    """Ollama's ``think`` (None: not given)."""
    value = data.get("think")
    if value is None or isinstance(value, bool):
        return value
    if value in OLLAMA_LEVELS:
        return True
    raise InvalidRequest('think must be true, false, "high", "medium" or "low"')
