"""The page to cite: where the sentences that answer are, not where the passage begins.

A passage is cut at every page break, so a section that runs on over a page keeps its heading
and first lines on one page and goes on on the next. The words of a question often match the
start (the sentence that names the topic) while the sentence that answers is after the break:
on a set of manuals nobody here wrote, a third of the misses cited the page before or after
the answer. So a passage is read with the rest of its section on the pages either side (the
passages of the same heading path a few places away), sentence by sentence, each sentence
keeping its page. A sentence is scored as passages are ranked: the inverse document frequency
of the question's words it holds (scaled to the best sentence) and, with an encoder, the cosine
of its vector and the question's, fused with the same weights. The page of the best sentence
is cited when it beats the passage's own best by ``MARGIN``. Running heads and footers are not
in a passage's text (the reader drops them), nor is the heading path.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from engine.documents.index_db import StoredChunk

_SENTENCE = re.compile(r"(?<=[.!?:;])\s+|\n+")
_WORD = re.compile(r"[\w][\w.\-]*[\w]|[\w]", re.UNICODE)
# How much better (on the fused score, 0..1) a sentence on the next or previous page must be
# than the passage's own best to move the citation: a move on a near tie trades pages on chance.
MARGIN = 0.05
MARGIN_KEYWORDS = 0.25  # with keywords alone (no encoder), which tell paraphrases apart less
NEAR = 4  # passages either side that may continue the section on the next or previous page

# Cosines of sentences with the question, for sentences given (None: no encoder).
Similarity = Callable[[Sequence[str]], Sequence[float]] | None


@dataclass(frozen=True, slots=True)
class PageChoice:
    page: int | None
    sentence: str  # the sentence that decided it ("" when nothing matched)
    text: str  # the passage, with the rest of its section across the page break when it moved


def stem(word: str) -> str:
    """A light suffix strip, so that "arrows" finds "arrow" and "shading" finds "shad"."""
    w = word.lower().strip(".-")
    for suffix in ("ing", "ies", "es", "ed", "s"):
        if len(w) > len(suffix) + 2 and w.endswith(suffix):
            return w[: -len(suffix)]
    return w


def weights(terms: Sequence[str], counts: Mapping[str, int], total: int) -> dict[str, float]:
    """Each question term's inverse document frequency over the collection's passages."""
    return {
        stem(t): math.log(1.0 + (total - counts.get(t, 0) + 0.5) / (counts.get(t, 0) + 0.5))
        for t in terms
    }


def sentences(chunk: StoredChunk) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(chunk.text) if len(s.strip()) > 3]


def sentence_score(sentence: str, terms: Mapping[str, float]) -> float:
    words = {stem(w) for w in _WORD.findall(sentence)}
    return sum(weight for term, weight in terms.items() if term in words)


def section_beside(
    chunk: StoredChunk, near: Sequence[tuple[int, StoredChunk]]
) -> list[tuple[int, StoredChunk]]:
    """The passages (with their distance in the file) of ``chunk``'s section on the page just
    before or after its own."""
    if chunk.page is None:
        return []
    return [
        (d, c)
        for d, c in near
        if c.page is not None and abs(c.page - chunk.page) == 1 and c.headings == chunk.headings
    ]


def choose_page(
    chunk: StoredChunk,
    near: Sequence[tuple[int, StoredChunk]],
    terms: Mapping[str, float],
    similarity: Similarity = None,
    vector_weight: float = 0.6,
) -> PageChoice:
    """Where ``chunk``'s answer is: its own page, or the page before or after it where its
    section goes on and holds a clearly better sentence."""
    own = sentences(chunk)
    beside = sorted(section_beside(chunk, near), key=lambda found: found[0])
    lines = [(s, chunk.page) for s in own]
    lines += [(s, other.page) for _d, other in beside for s in sentences(other)]
    if not lines:
        return PageChoice(chunk.page, "", chunk.text)
    keyword = [sentence_score(s, terms) for s, _page in lines]
    top = max(keyword)
    scores = [k / top if top > 0 else 0.0 for k in keyword]
    margin = MARGIN_KEYWORDS
    if similarity is not None and beside:
        cosines = similarity([s for s, _page in lines])
        scores = [
            (1 - vector_weight) * k + vector_weight * c
            for k, c in zip(scores, cosines, strict=True)
        ]
        margin = MARGIN
    n = len(own)
    own_best = max(scores[:n], default=0.0)
    best = max(range(len(lines)), key=scores.__getitem__)
    if best >= n and scores[best] > own_best + margin:
        sentence, page = lines[best]
        before = [c.text for d, c in beside if d < 0 and c.page == page]
        after = [c.text for d, c in beside if d > 0 and c.page == page]
        return PageChoice(page, sentence, "\n".join([*before, chunk.text, *after]))
    if not n or own_best <= 0:
        return PageChoice(chunk.page, "", chunk.text)
    return PageChoice(chunk.page, own[scores.index(own_best)], chunk.text)
