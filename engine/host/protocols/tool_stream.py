"""A streamed reply when tools are offered: prose goes out as it comes, and from the first place a
call could begin (a call marker, or a JSON value opening the reply) the text is held until the
reply ends, then parsed. What was held and is not a call goes out as content; the calls go out
as OpenAI tool-call deltas. A client never sees half a call as text."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from engine.tools import Tool, ToolCall
from engine.tools.calls import parse_calls, prose_end
from engine.types import Chunk, TokenLogprob


@dataclass(slots=True)
class Held:
    """The reply's calls, known once the stream has ended."""

    calls: tuple[ToolCall, ...] = ()


def hold_calls(
    chunks: Iterator[Chunk], tools: Sequence[Tool], parallel: bool, held: Held
) -> Iterator[Chunk]:
    text = ""
    sent = 0
    scored: list[TokenLogprob] = []  # the tokens of the text held back
    for chunk in chunks:
        if chunk.reasoning:  # a reasoning model's thinking is never a call
            yield Chunk(reasoning=chunk.reasoning)
        if not chunk.is_terminal:
            text += chunk.text
            scored.extend(chunk.logprobs)
            # Whitespace waits for what follows it: before a call it is not content.
            end = len(text[: prose_end(text)].rstrip())
            if end > sent:
                yield Chunk(text=text[sent:end], logprobs=tuple(scored))
                scored.clear()
                sent = end
            continue
        if chunk.finish_reason in ("stop", "length"):
            content, held.calls = split_calls(text, tools, parallel)
            rest = text[sent:]
            if held.calls:
                shown = text[:sent].strip()
                rest = content[len(shown) :].rstrip() if content.startswith(shown) else ""
            if rest.strip() or (rest and not held.calls):
                yield Chunk(text=rest, logprobs=tuple(scored))
        yield chunk
        return


def split_calls(
    text: str, tools: Sequence[Tool], parallel: bool
) -> tuple[str, tuple[ToolCall, ...]]:
    """A whole reply's content and calls (only the first without parallel calls)."""
    parsed = parse_calls(text, tools)
    calls = parsed.calls if parallel else parsed.calls[:1]
    return (parsed.content if calls else text), calls
