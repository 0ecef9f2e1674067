"""Values that cross module (and process) boundaries: messages, parameters, stream chunks."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Role = Literal["system", "user", "assistant"]
FinishReason = Literal["stop", "length", "cancelled", "error"]
FINISH_REASONS: tuple[FinishReason, ...] = ("stop", "length", "cancelled", "error")


@dataclass(frozen=True, slots=True)
class ChatMessage:
    role: Role
    content: str


@dataclass(frozen=True, slots=True)
class GenerationParams:
    """Sampling and stopping. ``temperature == 0`` means greedy decoding."""

    temperature: float = 0.7
    top_k: int = 40
    top_p: float = 0.95
    min_p: float = 0.05
    repeat_penalty: float = 1.1
    repeat_last_n: int = 64
    seed: int | None = None
    max_tokens: int | None = 512
    stop: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not 0.0 <= self.temperature <= 5.0:
            raise ValueError("temperature must be between 0 and 5")
        if self.top_k < 0:
            raise ValueError("top_k must be 0 (off) or positive")
        if not 0.0 < self.top_p <= 1.0:
            raise ValueError("top_p must be in (0, 1]")
        if not 0.0 <= self.min_p < 1.0:
            raise ValueError("min_p must be in [0, 1)")
        if self.repeat_penalty <= 0.0:
            raise ValueError("repeat_penalty must be positive")
        if self.max_tokens is not None and self.max_tokens < 1:
            raise ValueError("max_tokens must be at least 1")
        if any(not s for s in self.stop):
            raise ValueError("stop strings must not be empty")


@dataclass(frozen=True, slots=True)
class Truncation:
    """What the context-window policy removed so that a conversation fits. Never silent."""

    dropped_messages: int
    shortened_messages: int
    dropped_tokens: int
    context_limit: int

    def describe(self) -> str:
        parts = []
        if self.dropped_messages:
            s = "" if self.dropped_messages == 1 else "s"
            parts.append(f"dropped the {self.dropped_messages} oldest message{s}")
        if self.shortened_messages:
            parts.append("shortened the oldest message kept")
        what = " and ".join(parts) or "trimmed the conversation"
        return (
            f"The conversation was longer than the {self.context_limit}-token context: "
            f"{what} ({self.dropped_tokens} tokens); the system prompt was kept."
        )


@dataclass(frozen=True, slots=True)
class GenerationStats:
    prompt_tokens: int = 0
    cached_tokens: int = 0
    completion_tokens: int = 0
    ttft_s: float = 0.0
    prompt_tokens_per_s: float = 0.0
    decode_tokens_per_s: float = 0.0
    total_s: float = 0.0


@dataclass(frozen=True, slots=True)
class Chunk:
    """One piece of a stream. Every stream ends with exactly one terminal chunk."""

    text: str = ""
    finish_reason: FinishReason | None = None
    stats: GenerationStats | None = None
    truncation: Truncation | None = None
    error: str | None = None
    context_full: bool = False
    # With an error: the EngineError code (engine.errors) callers check, never the message text.
    code: str | None = None

    @property
    def is_terminal(self) -> bool:
        return self.finish_reason is not None
