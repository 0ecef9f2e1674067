"""Tools a model may call: what a request declares, what a reply's calls are, and how a call is
told from prose. Values here cross the API and the engine; nothing imports a runtime."""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from typing import Any, Literal

ChoiceMode = Literal["auto", "none", "required", "function"]


@dataclass(frozen=True, slots=True)
class Tool:
    """A function the model may call (OpenAI's ``{"type": "function", "function": {...}}``)."""

    name: str
    description: str = ""
    parameters: dict[str, Any] = field(default_factory=lambda: {"type": "object"})
    strict: bool = False

    def to_openai(self) -> dict[str, Any]:
        function: dict[str, Any] = {"name": self.name, "parameters": self.parameters}
        if self.description:
            function["description"] = self.description
        return {"type": "function", "function": function}


@dataclass(frozen=True, slots=True)
class ToolChoice:
    mode: ChoiceMode = "auto"
    name: str | None = None  # the function, when ``mode == "function"``
    parallel: bool = True  # more than one call in one reply


@dataclass(frozen=True, slots=True)
class ToolCall:
    name: str
    arguments: dict[str, Any]
    id: str = field(default_factory=lambda: "call_" + uuid.uuid4().hex[:24])

    def arguments_json(self) -> str:
        return json.dumps(self.arguments, ensure_ascii=False)

    def to_openai(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments_json()},
        }
