"""Values that cross module (and process) boundaries: messages, parameters, stream chunks."""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass, field
from typing import Literal, get_args

from engine.tools import Tool, ToolCall

Role = Literal["system", "user", "assistant", "tool"]
FinishReason = Literal["stop", "length", "cancelled", "error"]
FINISH_REASONS: tuple[FinishReason, ...] = ("stop", "length", "cancelled", "error")
Speculation = Literal["auto", "exact", "on", "off"]


@dataclass(frozen=True, slots=True)
class ImageInput:
    """One image as a model gets it: upright RGB pixels (row-major, 3 bytes a pixel) at most
    ``MODEL_SIDE`` on a side, with the bytes it was read from (what travels over the API)."""

    rgb: bytes = field(repr=False)
    width: int
    height: int
    encoded: bytes = field(repr=False)
    mime: str
    # The size it was given at, before any scaling (what the user sees).
    original: tuple[int, int] = (0, 0)

    @property
    def digest(self) -> str:
        """SHA-256 of the pixels the model sees: equal images are one image to the KV cache."""
        return _digest(self.rgb, self.width, self.height)

    def data_url(self) -> str:
        return f"data:{self.mime};base64,{base64.b64encode(self.encoded).decode('ascii')}"


def _digest(rgb: bytes, width: int, height: int) -> str:
    h = hashlib.sha256(f"{width}x{height}:".encode())
    h.update(rgb)
    return h.hexdigest()


@dataclass(frozen=True, slots=True)
class ChatMessage:
    role: Role
    content: str
    tool_calls: tuple[ToolCall, ...] = ()  # an assistant's calls
    tool_call_id: str | None = None  # a tool result's call
    name: str | None = None
    # A user's images, in order before the text (a vision model sees them; engine/images.py).
    images: tuple[ImageInput, ...] = ()


# The accepted range of each sampling parameter, in one place: the API, the CLI and the window's
# settings all take these (temperature follows the OpenAI API's 0..2).
TEMPERATURE_RANGE = (0.0, 2.0)
TOP_P_RANGE = (0.0, 1.0)  # (exclusive, inclusive]
MIN_P_RANGE = (0.0, 1.0)  # [inclusive, exclusive)
TOP_K_MAX = 1000
REPEAT_PENALTY_RANGE = (0.0, 10.0)  # (exclusive, inclusive]
TOP_LOGPROBS_MAX = 20


@dataclass(frozen=True, slots=True)
class TokenLogprob:
    """A generated token's natural-log probability under the model, with the most likely
    alternatives at that position: text, log-probability, the token's bytes."""

    token: str
    logprob: float
    bytes: tuple[int, ...]
    top: tuple[tuple[str, float, tuple[int, ...]], ...] = ()


@dataclass(frozen=True, slots=True)
class ScoredPrompt:
    """A prompt as the model read it (``GenerationParams.score_prompt``). ``unscored``: the text
    and bytes of its first token when nothing before it predicts it (it has no probability);
    None when a beginning-of-sequence token that the tokenizer put before the text did.
    ``tokens``: every later token with its log-probability given those before it, and the most
    likely tokens at its place."""

    unscored: tuple[str, tuple[int, ...]] | None
    tokens: tuple[TokenLogprob, ...]


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
    tools: tuple[Tool, ...] = ()  # offered to the model through its chat template
    grammar: str | None = None  # GBNF the reply must match (constrained decoding)
    # The log-probability of each generated token and of this many most likely alternatives
    # (0..TOP_LOGPROBS_MAX); None: none reported.
    logprobs: int | None = None
    # Check tokens guessed from the conversation in batches (engine/generation/speculation.py):
    # "auto" (or "on") wherever the measured policy expects guesses to pay: a batch may round
    # differently from single steps, as batching replies together does, so a near-tie may flip
    # (bench/bench_speculative.py counts how often); "exact" only where the runtime evaluates a
    # batch bit for bit as single tokens (the reply is exactly plain decoding's); "off" never.
    speculation: Speculation = "auto"
    # The client's name for the conversation, kept with its saved state so that deleting the
    # conversation deletes the state (engine/generation/state_cache.py).
    conversation: str | None = None
    # Added to the logits of these tokens before every choice (OpenAI's ``logit_bias``): -100
    # or -inf forbids a token, +100 all but forces it.
    logit_bias: tuple[tuple[int, float], ...] = ()
    # The model's end-of-reply tokens are never chosen, so the reply runs to ``max_tokens``
    # (llama-server's and vLLM's ``ignore_eos``: what load tests send for replies of one length).
    ignore_eos: bool = False
    # When the conversation's last message is the assistant's, the prompt ends with that
    # message's text, its turn left open, so that the reply extends it (vLLM's and Hugging Face
    # transformers' ``continue_final_message``: a reply cut at ``max_tokens``, or words put in
    # the model's mouth). The chunks streamed are only the new text. Ignored when the last
    # message is another role's.
    continue_final_message: bool = False
    # Whether a reasoning model thinks before it answers, where its chat template can turn that
    # off (engine/formats/thinking_switch.py: ``enable_thinking``); None: as the template does by
    # default. A template without the switch is unaffected.
    thinking: bool | None = None
    # Score the prompt first: each of its tokens' log-probability given those before it (with
    # ``logprobs`` alternatives), in a chunk before the reply's; ``max_tokens`` may then be 0,
    # for the prompt alone (the completions API's ``echo``, as evaluation harnesses send it).
    score_prompt: bool = False

    def __post_init__(self) -> None:
        low, high = TEMPERATURE_RANGE
        if not low <= self.temperature <= high:
            raise ValueError(f"temperature must be between {low:g} and {high:g}")
        if not 0 <= self.top_k <= TOP_K_MAX:
            raise ValueError(f"top_k must be 0 (off) or up to {TOP_K_MAX}")
        low, high = TOP_P_RANGE
        if not low < self.top_p <= high:
            raise ValueError(f"top_p must be above {low:g} and at most {high:g}")
        low, high = MIN_P_RANGE
        if not low <= self.min_p < high:
            raise ValueError(f"min_p must be at least {low:g} and below {high:g}")
        low, high = REPEAT_PENALTY_RANGE
        if not low < self.repeat_penalty <= high:
            raise ValueError(f"repeat_penalty must be above {low:g} and at most {high:g}")
        if self.repeat_last_n < -1:
            raise ValueError("repeat_last_n must be -1 (the whole context), 0 (off) or positive")
        if self.max_tokens is not None and self.max_tokens < (0 if self.score_prompt else 1):
            raise ValueError("max_tokens must be at least 1")
        if any(not s for s in self.stop):
            raise ValueError("stop strings must not be empty")
        if self.speculation not in get_args(Speculation):
            raise ValueError("speculation must be auto, exact, on or off")
        if any(t < 0 or b != b for t, b in self.logit_bias):
            raise ValueError("logit_bias maps token ids (0 or more) to numbers")
        if self.logprobs is not None and not 0 <= self.logprobs <= TOP_LOGPROBS_MAX:
            raise ValueError(f"top_logprobs must be between 0 and {TOP_LOGPROBS_MAX}")


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
    # Speculation: tokens guessed and sent for checking, and how many the model agreed with.
    draft_tokens: int = 0
    accepted_tokens: int = 0
    # Tokens decoded in one batch with other replies' (continuous batching), where speculation
    # gives way to batching.
    batched_tokens: int = 0


@dataclass(frozen=True, slots=True)
class Chunk:
    """One piece of a stream. Every stream ends with exactly one terminal chunk."""

    text: str = ""
    finish_reason: FinishReason | None = None
    # A reasoning model's thinking (engine.generation.reasoning), apart from its answer in ``text``.
    reasoning: str = ""
    stats: GenerationStats | None = None
    truncation: Truncation | None = None
    error: str | None = None
    context_full: bool = False
    # The error's stable code (an EngineError subclass's ``code``): what callers check.
    code: str | None = None
    # Parameters of the request that this runtime could not honour (reported, never dropped
    # silently): e.g. min_p on onnxruntime-genai.
    ignored_params: tuple[str, ...] = ()
    # On the terminal chunk of a reply to a request that offered tools: the calls it made.
    tool_calls: tuple[ToolCall, ...] = ()
    # With ``params.logprobs``: the tokens this chunk's text came from (a collected reply's
    # terminal chunk carries them all).
    logprobs: tuple[TokenLogprob, ...] = ()
    # With ``params.score_prompt``: the prompt scored, in a chunk before the reply's text (a
    # collected reply's terminal chunk carries it).
    scored_prompt: ScoredPrompt | None = None
    # With ``params.logprobs``, on the terminal chunk of a reply the model ended itself: the
    # end-of-text token it chose, its text empty, with its log-probability (the completions API
    # lists it after the reply's tokens, engine/host/protocols/echo.py).
    end_token: TokenLogprob | None = None

    @property
    def is_terminal(self) -> bool:
        return self.finish_reason is not None
