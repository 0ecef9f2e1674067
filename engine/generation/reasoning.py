"""A reasoning model's thinking, told apart from its answer: the text between ``<think>`` and
``</think>`` at the start of a reply (DeepSeek-R1 distills, Qwen3, QwQ) becomes the chunks'
``reasoning``, the rest their ``text``. Where the chat template opens the thinking itself (its
generation prompt ends with ``<think>``), the engine's loop starts the reply with that tag so
that the split is the same.

Streaming: the start of a reply is held only until it is clear whether it opens with the tag, and
a possible half of the closing tag is held at the end of each piece."""

from __future__ import annotations

from collections.abc import Iterator

from engine.types import Chunk, TokenLogprob

OPEN, CLOSE = "<think>", "</think>"


def opens_thinking(prompt: str) -> bool:
    """Whether a rendered prompt leaves the model inside its thinking."""
    return prompt.rstrip().endswith(OPEN)


def split_thinking(chunks: Iterator[Chunk]) -> Iterator[Chunk]:
    mode = "start"  # start: not known yet; think: inside the tags; answer: after (or none)
    held = ""
    after_close = False  # the answer's leading blank lines are the tag's, not the answer's
    scored: list[TokenLogprob] = []
    for chunk in chunks:
        if chunk.is_terminal:
            if held:
                if mode == "think":
                    yield Chunk(reasoning=held, logprobs=tuple(scored))
                else:
                    yield Chunk(text=held, logprobs=tuple(scored))
            yield chunk
            return
        held += chunk.text
        scored.extend(chunk.logprobs)
        if mode == "start":
            lead = held.lstrip()
            if OPEN.startswith(lead):
                continue  # still could be the tag
            if lead.startswith(OPEN):
                mode, held = "think", lead[len(OPEN) :].lstrip("\n")
            else:
                mode = "answer"
        if mode == "think":
            end = held.find(CLOSE)
            if end < 0:
                keep = _partial_close(held)
                if len(held) > keep:
                    yield Chunk(reasoning=held[: len(held) - keep], logprobs=tuple(scored))
                    scored.clear()
                    held = held[len(held) - keep :]
                continue
            thought, held = held[:end].rstrip(), held[end + len(CLOSE) :].lstrip()
            if thought:
                yield Chunk(reasoning=thought, logprobs=tuple(scored))
                scored.clear()
            mode, after_close = "answer", True
        if mode == "answer" and after_close:
            held = held.lstrip()
            after_close = not held
        if mode == "answer" and held:
            yield Chunk(text=held, logprobs=tuple(scored))
            held = ""
            scored.clear()


def _partial_close(text: str) -> int:
    """How many characters at the end of ``text`` could begin ``</think>``."""
    for n in range(min(len(CLOSE) - 1, len(text)), 0, -1):
        if CLOSE.startswith(text[-n:]):
            return n
    return 0
