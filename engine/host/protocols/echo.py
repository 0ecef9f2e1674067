"""The completions API's prompts and choices beyond one prompt's continuation: a list of prompts
(text, or token ids as evaluation harnesses send them), one choice each, and ``echo``: the prompt
repeated before the reply, with its tokens' log-probabilities when ``logprobs`` is set (OpenAI's
legacy shape, as llama-cpp-python's server and vLLM answer it: the first token's is null).
After the prompt's tokens come every token generated, the end-of-text token the model chose
included (its text empty), as OpenAI's legacy completions, vLLM and llama-server list them:
evaluation harnesses drop that last entry as the generated one (lm-evaluation-harness's
``token_logprobs[ctxlen:-1]``), so without it they would drop the answer's last token.
Pure functions, no I/O."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any

from engine.errors import InvalidRequest
from engine.host.protocols.params import is_int
from engine.types import Chunk, ScoredPrompt, TokenLogprob

# Prompts one request may score or continue.
MAX_PROMPTS = 1024

Prompt = str | tuple[int, ...]


def parse_prompts(raw: object) -> tuple[Prompt, ...]:
    """``prompt``: a string, a list of strings, a list of token ids, or a list of such lists."""
    if isinstance(raw, str):
        items: list[object] = [raw]
    elif isinstance(raw, list) and raw and all(is_int(t) for t in raw):
        items = [raw]
    elif isinstance(raw, list) and raw:
        items = list(raw)
    else:
        items = []
    if len(items) > MAX_PROMPTS:
        raise InvalidRequest(f"'prompt' holds {len(items)} prompts; at most {MAX_PROMPTS}.")
    prompts: list[Prompt] = []
    for item in items:
        if isinstance(item, str) and item:
            prompts.append(item)
        elif isinstance(item, list) and item and all(is_int(t) and t >= 0 for t in item):
            prompts.append(tuple(item))
        else:
            prompts = []
            break
    if not prompts:
        raise InvalidRequest(
            "'prompt' must be a non-empty string, a list of token ids, or a list of either."
        )
    return tuple(prompts)


def listing_end(chunks: Iterator[Chunk]) -> Iterator[Chunk]:
    """A completion's chunks with the end-of-text token the model chose (``Chunk.end_token``,
    there with ``logprobs``) among its tokens: in a piece of no text before the terminal chunk,
    so that a stream sends it in order too, and counted in ``completion_tokens``."""
    try:
        for chunk in chunks:
            end = chunk.end_token
            if chunk.is_terminal and end is not None:
                yield Chunk(logprobs=(end,))
                stats = chunk.stats
                if stats is not None:
                    counted = replace(stats, completion_tokens=stats.completion_tokens + 1)
                    chunk = replace(chunk, stats=counted)
            yield chunk
    finally:
        close = getattr(chunks, "close", None)
        if close is not None:  # left early: the model's stream lets go of its sequence now
            close()


def prompt_text(prompt: Prompt, final: Chunk) -> str:
    """What a prompt says: its text, or its tokens' text as the model read them."""
    if isinstance(prompt, str):
        return prompt
    scored = final.scored_prompt
    if scored is None:
        return ""
    raw = b"".join(bytes(t.bytes) for t in scored.tokens)
    head = bytes(scored.unscored[1]) if scored.unscored is not None else b""
    return (head + raw).decode("utf-8", "replace")


def choice(
    index: int,
    prompt: Prompt,
    text: str,
    final: Chunk,
    finish: str,
    *,
    echo: bool,
    logprobs: bool,
) -> dict[str, Any]:
    """One prompt's choice: the reply (after the prompt with ``echo``), and with ``logprobs``
    the tokens of both."""
    said = prompt_text(prompt, final) if echo else ""
    block: dict[str, Any] | None = None
    if logprobs:
        block = _empty()
        if echo and final.scored_prompt is not None:
            _add_prompt(block, final.scored_prompt)
        _add_tokens(block, final.logprobs, len(said))
    return {"index": index, "text": said + text, "logprobs": block, "finish_reason": finish}


def logprobs_block(tokens: Sequence[TokenLogprob], offset: int = 0) -> dict[str, Any]:
    """The completions API's ``logprobs`` for generated tokens: parallel lists, ``text_offset``
    in characters from ``offset``, each token's alternatives with the token itself among
    them."""
    block = _empty()
    _add_tokens(block, tokens, offset)
    return block


def _empty() -> dict[str, Any]:
    return {"tokens": [], "token_logprobs": [], "top_logprobs": [], "text_offset": []}


def _add_prompt(block: dict[str, Any], scored: ScoredPrompt) -> None:
    offset = 0
    if scored.unscored is not None:
        text = scored.unscored[0]
        block["tokens"].append(text)
        block["token_logprobs"].append(None)
        block["top_logprobs"].append(None)
        block["text_offset"].append(0)
        offset = len(text)
    _add_tokens(block, scored.tokens, offset)


def _add_tokens(block: dict[str, Any], tokens: Sequence[TokenLogprob], offset: int) -> None:
    for t in tokens:
        top = {text: lp for text, lp, _raw in t.top}
        top.setdefault(t.token, t.logprob)
        block["tokens"].append(t.token)
        block["token_logprobs"].append(t.logprob)
        block["top_logprobs"].append(top)
        block["text_offset"].append(offset)
        offset += len(t.token)
