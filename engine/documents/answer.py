"""A grounded answer: the question and the numbered sources in one prompt that fits the model's
context window, an instruction to cite them as [1], [2], and to say so when they do not hold the
answer. The reply streams like any chat reply; its citations resolve to the sources' file, page
and passage.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, TextIO

from engine.types import ChatMessage, GenerationParams

if TYPE_CHECKING:
    from engine.documents.retrieve import Source

NOT_FOUND = "Not in your documents."
REPLY_TOKENS = 384
CHARS_PER_TOKEN = 3.5  # conservative for English prose with numbers and names
PROMPT_MARGIN_TOKENS = 160
SYSTEM = (
    "You answer questions about the user's documents using only the numbered sources given with "
    "the question. After each statement, cite the sources that support it by number in square "
    "brackets, like [1] or [2][3]. If the sources do not contain the answer, reply exactly: "
    f'"{NOT_FOUND}" Never use outside knowledge.'
)
_CITATION = re.compile(r"\[(\d+)\]")


def build_messages(question: str, sources: Sequence[Source], n_ctx: int) -> list[ChatMessage]:
    """The prompt, keeping the best sources that fit in ``n_ctx`` with room for the reply."""
    budget = int((n_ctx - REPLY_TOKENS - PROMPT_MARGIN_TOKENS) * CHARS_PER_TOKEN)
    budget -= len(SYSTEM) + len(question) + 40
    blocks: list[str] = []
    for n, source in enumerate(sources, 1):
        where = source.path.rsplit("/", 1)[-1]
        if source.page:
            where += f", page {source.page}"
        if source.heading:
            where += f", {source.heading}"
        block = f"[{n}] ({where})\n{source.text.strip()}"
        if len(block) + 2 > budget:
            break
        blocks.append(block)
        budget -= len(block) + 2
    user = "Sources:\n\n" + "\n\n".join(blocks) + f"\n\nQuestion: {question}"
    return [ChatMessage("system", SYSTEM), ChatMessage("user", user)]


def cited(answer: str, count: int) -> list[int]:
    """The source numbers an answer cites (1-based, each once, in order), ignoring numbers
    that name no source."""
    seen: dict[int, None] = {}
    for match in _CITATION.finditer(answer):
        n = int(match.group(1))
        if 1 <= n <= count:
            seen[n] = None
    return list(seen)


def answer_question(
    question: str,
    sources: Sequence[Source],
    *,
    model: str | None = None,
    out: TextIO | None = None,
    params: GenerationParams | None = None,
) -> str:
    """Generate the answer on a local engine host (streamed to ``out`` when given). With no
    sources at all, the documents cannot hold the answer: that is said without a model."""
    from engine.local_engine import LocalEngine

    if not sources:
        if out is not None:
            print(NOT_FOUND, file=out)
        return NOT_FOUND
    params = params or GenerationParams(temperature=0.0, max_tokens=REPLY_TOKENS)
    engine = LocalEngine.start()
    try:
        status = engine.client.load(model or "starter")
        messages = build_messages(question, sources, status.n_ctx or 2048)
        parts: list[str] = []
        for chunk in engine.client.chat(messages, params):
            if chunk.text:
                parts.append(chunk.text)
                if out is not None:
                    out.write(chunk.text)
                    out.flush()
            if chunk.is_terminal and chunk.finish_reason == "error":
                from engine.errors import GenerationError

                raise GenerationError(chunk.error or "The model failed while answering.")
        if out is not None:
            print(file=out)
        return "".join(parts).strip()
    finally:
        engine.stop()
        engine.client.close()
