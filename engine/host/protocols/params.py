"""The sampling-parameter rules every protocol borrows: which fields are sampling and stopping
fields, how each is checked, and the ``GenerationParams`` they make. The OpenAI routes read them
straight from the body; the Responses, Anthropic and Ollama routes map their own names onto them
first."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, get_args

from engine.errors import InvalidRequest
from engine.types import GenerationParams, Speculation

MAX_STOP = 8
MAX_STOP_CHARS = 256

SAMPLING_FIELDS = {
    "temperature",
    "top_p",
    "top_k",
    "min_p",
    "repeat_penalty",
    "max_tokens",
    "max_completion_tokens",
    "stop",
    "seed",
    "speculation",
    "cove_conversation",
    "logit_bias",
    "ignore_eos",
}
MAX_LOGIT_BIAS = 1024  # tokens one request may bias (OpenAI allows 300)
# How a chat prompt ends (vLLM's fields; ``continues_final_message`` reads them).
PROMPT_END_FIELDS = {"continue_final_message", "add_generation_prompt"}


def parse_params(data: Mapping[str, Any]) -> GenerationParams:
    """Sampling and stopping fields, as every protocol's route reads them: each checked, and
    said in the request's own words when it is wrong."""
    kwargs: dict[str, Any] = {"max_tokens": None}
    for name in ("temperature", "top_p", "min_p", "repeat_penalty"):
        if data.get(name) is not None:
            if not is_number(data[name]):
                raise InvalidRequest(f"'{name}' must be a number.")
            kwargs[name] = float(data[name])
    for name, target in (
        ("top_k", "top_k"),
        ("seed", "seed"),
        ("max_tokens", "max_tokens"),
        ("max_completion_tokens", "max_tokens"),
    ):
        if data.get(name) is not None:
            if not is_int(data[name]):
                raise InvalidRequest(f"'{name}' must be an integer.")
            kwargs[target] = data[name]
    stop = data.get("stop")
    if stop is not None:
        stops = [stop] if isinstance(stop, str) else stop
        if not isinstance(stops, list) or not all(isinstance(s, str) and s for s in stops):
            raise InvalidRequest("'stop' must be a non-empty string or a list of them.")
        if len(stops) > MAX_STOP or any(len(s) > MAX_STOP_CHARS for s in stops):
            raise InvalidRequest(
                f"'stop' allows at most {MAX_STOP} strings of {MAX_STOP_CHARS} characters."
            )
        kwargs["stop"] = tuple(stops)
    speculation = data.get("speculation")
    if speculation is not None:
        if speculation not in get_args(Speculation):
            raise InvalidRequest('\'speculation\' must be "auto", "exact", "on" or "off".')
        kwargs["speculation"] = speculation
    conversation = data.get("cove_conversation")
    if conversation is not None:
        if not isinstance(conversation, str) or not 0 < len(conversation) <= 200:
            raise InvalidRequest("'cove_conversation' must be a short string.")
        kwargs["conversation"] = conversation
    if data.get("logit_bias") is not None:
        kwargs["logit_bias"] = logit_bias(data["logit_bias"])
    kwargs["ignore_eos"] = flag(data, "ignore_eos", False)
    try:
        return GenerationParams(**kwargs)
    except ValueError as exc:
        raise InvalidRequest(f"Invalid sampling parameter: {exc}.") from None


def continues_final_message(data: Mapping[str, Any]) -> bool:
    """vLLM's ``continue_final_message``: the reply extends the conversation's last assistant
    message. vLLM asks for ``add_generation_prompt: false`` beside it; here either form is read.
    Without a continuation, ``add_generation_prompt: false`` (a prompt that ends with a closed
    turn) is refused: every chat reply here opens a turn of its own, and ignoring the field
    would answer another question."""
    continuing = flag(data, "continue_final_message", False)
    if not continuing and not flag(data, "add_generation_prompt", True):
        raise InvalidRequest(
            "'add_generation_prompt': false is supported only with "
            "'continue_final_message': true (to continue the last assistant message)."
        )
    return continuing


def flag(data: Mapping[str, Any], name: str, default: bool) -> bool:
    value = data.get(name, default)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise InvalidRequest(f"'{name}' must be true or false.")
    return value


def is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value == value


def is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def logit_bias(value: object) -> tuple[tuple[int, float], ...]:
    """OpenAI's ``logit_bias`` (``{"1234": -100}``: token ids as keys, a bias from -100 to 100)
    or llama-server's list form (``[[1234, -1.5], [15, false]]``, false forbidding the token),
    as (token, bias) pairs; -100 and false forbid the token outright, as both servers mean."""
    pairs: list[tuple[int, object]]
    if isinstance(value, dict):
        pairs = [(_token_id(k, text=True), v) for k, v in value.items()]
    elif isinstance(value, list) and all(isinstance(p, list) and len(p) == 2 for p in value):
        # llama-server reads a string here as text to tokenize: only ids are taken.
        pairs = [(_token_id(p[0], text=False), p[1]) for p in value]
    else:
        raise InvalidRequest(
            "'logit_bias' must map token ids to numbers from -100 to 100 ({\"1234\": -100})."
        )
    if len(pairs) > MAX_LOGIT_BIAS:
        raise InvalidRequest(f"'logit_bias' may name at most {MAX_LOGIT_BIAS} tokens.")
    out: dict[int, float] = {}
    for token, bias in pairs:
        if bias is False:
            out[token] = float("-inf")
        elif isinstance(bias, int | float) and is_number(bias) and -100 <= bias <= 100:
            out[token] = float("-inf") if bias == -100 else float(bias)
        else:
            raise InvalidRequest(
                f"'logit_bias': the bias of token {token} must be a number from -100 to 100."
            )
    return tuple(sorted(out.items()))


def _token_id(key: object, *, text: bool) -> int:
    """A token id: a number (or, as OpenAI's map keys are, its digits), below 2**31."""
    if text and isinstance(key, str) and key.isascii() and key.isdigit() and len(key) <= 10:
        key = int(key)
    if is_int(key) and isinstance(key, int) and 0 <= key < 2**31:
        return key
    raise InvalidRequest(f"'logit_bias': {str(key)[:40]!r} is not a token id.")
