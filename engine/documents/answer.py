"""A grounded answer: the question and the numbered sources in one prompt that fits the model's
context window, an instruction to cite them as [1], [2], and to say so when they do not hold the
answer. The reply streams like any chat reply; its citations resolve to the sources' file, page
and passage.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TextIO

from engine.documents.answerable import off_topic
from engine.types import ChatMessage, GenerationParams

if TYPE_CHECKING:
    from engine.documents.answerable import Verdict
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
# Code in a reply (fenced blocks, inline spans) holds indexes like a[1], never citations.
_CODE = re.compile(r"```[\s\S]*?(?:```|$)|~~~[\s\S]*?(?:~~~|$)|`[^`\n]*`")
_TERM = re.compile(r"\w+(?:[.,]\d+)*")
_FIGURE = re.compile(r"\d+(?:[.,]\d+)*")


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


@dataclass(frozen=True, slots=True)
class Grounding:
    """A question made ready to answer from a collection: the prompt, or None when the
    documents cannot hold the answer (then the answer is ``NOT_FOUND``)."""

    messages: list[ChatMessage] | None
    sources: list[Source]
    partial: bool = False  # asked while the collection was still being indexed
    reason: str | None = None  # why the documents cannot hold the answer, when they cannot

    def meta(self, collection: str) -> dict[str, Any]:
        """What a chat reply records of its sources, to show and open them later."""
        documents: dict[str, Any] = {
            "collection": collection,
            "partial": self.partial,
            "sources": [s.to_dict() for s in self.sources],
        }
        if self.reason:
            documents["not_found"] = self.reason
        return {"documents": documents}


def ground(
    question: str,
    sources: Sequence[Source],
    n_ctx: int,
    *,
    partial: bool = False,
    verdict: Verdict | None = None,
) -> Grounding:
    """The prompt for answering from ``sources``; none (the answer is ``NOT_FOUND``, the
    sources offered as the closest found) when they cannot hold the answer: no source is
    about the question, or ``verdict`` (engine.documents.answerable.judge) says so."""
    if off_topic(sources):
        return Grounding(None, list(sources), partial, "nothing in the documents is about this")
    if verdict is not None and not verdict.answerable:
        return Grounding(None, list(sources), partial, verdict.reason)
    return Grounding(build_messages(question, sources, n_ctx), list(sources), partial)


def said_not_found(answer: str) -> bool:
    """Whether the model's reply is the instructed "Not in your documents." (however quoted or
    emphasised, with or without more after it)."""
    opening = answer.strip().lstrip("\"'*_`> ").lower()
    return opening.startswith(NOT_FOUND.lower().rstrip("."))


def _prose(answer: str) -> list[tuple[bool, str]]:
    """The answer in pieces, each marked True when it is prose (not code)."""
    pieces: list[tuple[bool, str]] = []
    at = 0
    for code in _CODE.finditer(answer):
        pieces += [(True, answer[at : code.start()]), (False, code.group())]
        at = code.end()
    pieces.append((True, answer[at:]))
    return pieces


def cited(answer: str, count: int) -> list[int]:
    """The source numbers an answer cites (1-based, each once, in order of first citation),
    ignoring numbers that name no source and brackets inside code."""
    seen: dict[int, None] = {}
    for prose, piece in _prose(answer):
        for match in _CITATION.finditer(piece) if prose else ():
            n = int(match.group(1))
            if 1 <= n <= count:
                seen[n] = None
    return list(seen)


def shown_numbers(first: Sequence[int], count: int) -> dict[int, int]:
    """How the ``count`` sources are numbered for a person: those in ``first`` (the ones the
    answer cites, in order of first citation) become 1, 2, 3, the rest follow in the order
    they were given to the model. Maps the number the model saw to the number shown."""
    numbers: dict[int, int] = {}
    for n in [*first, *range(1, count + 1)]:
        if 1 <= n <= count and n not in numbers:
            numbers[n] = len(numbers) + 1
    return numbers


def renumber(answer: str, numbers: Mapping[int, int]) -> str:
    """``answer`` with each citation [n] written as [numbers[n]], so that the text agrees with
    the sources as they are shown; a number that names no source, and code, stay as they are."""

    def one(match: re.Match[str]) -> str:
        n = int(match.group(1))
        return f"[{numbers[n]}]" if n in numbers else match.group()

    return "".join(_CITATION.sub(one, piece) if prose else piece for prose, piece in _prose(answer))


def matched(answer: str, texts: Sequence[str]) -> list[int]:
    """For an answer that cites nothing (small models often do not): the sources (1-based) that
    hold its figures, or most of its longer words, best first. Figures decide: a number the
    answer states was taken from a source that has it (the words break ties)."""
    from engine.documents.retrieve import STOPWORDS

    terms = {t.lower() for t in _TERM.findall(answer) if len(t) >= 4 or t[0].isdigit()}
    terms -= STOPWORDS
    numbers = {t for t in terms if _FIGURE.fullmatch(t)}
    words = terms - numbers
    scored: list[tuple[float, int]] = []
    for n, text in enumerate(texts, 1):
        have = {t.lower() for t in _TERM.findall(text)}
        figures = len(numbers & have) / len(numbers) if numbers else 0.0
        share = len(words & have) / len(words) if words else 0.0
        if (numbers and figures > 0) or (not numbers and share >= 0.5):
            scored.append((figures + share / 2, n))
    return [n for _score, n in sorted(scored, key=lambda x: (-x[0], x[1]))]


def answer_question(
    question: str,
    sources: Sequence[Source],
    *,
    model: str | None = None,
    out: TextIO | None = None,
    params: GenerationParams | None = None,
    refuse: str | None = None,
) -> str:
    """Generate the answer on a local engine host (streamed to ``out`` when given). With no
    sources at all, or a reason to ``refuse`` (engine.documents.answerable's verdict), the
    documents cannot hold the answer: that is said without a model."""
    from engine.client.local import LocalEngine

    if off_topic(sources) or refuse:
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
