"""The page to cite: where the sentences that answer are, not where the passage begins.

A passage is cut at every page break, so a section that runs on over a page keeps its heading
and first lines on one page and goes on on the next. The words of a question often match the
start (the heading, the sentence that names the topic) while the sentence that answers is
after the break: a third of the misses on a set of manuals nobody here wrote cited the page
before or after the answer. So the passage is read with its neighbours in the same section on
the pages either side, sentence by sentence, each sentence keeping its page; a sentence scores
the inverse document frequency of the question's words it holds (the keyword half of the
ranking, per sentence), and the page of the best sentence is cited when it beats the passage's
own page clearly. Headings and running heads are not sentences here: the reader drops running
heads and footers, and the heading path is not part of a passage's text.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from engine.documents.index_db import StoredChunk

_SENTENCE = re.compile(r"(?<=[.!?:;])\s+|\n+")
_WORD = re.compile(r"[\w][\w.\-]*[\w]|[\w]", re.UNICODE)
# How much more a neighbour's best sentence must score than the passage's own best to move the
# citation there: a move on a tie would trade one page for another on chance.
MARGIN = 1.25


@dataclass(frozen=True, slots=True)
class PageChoice:
    page: int | None
    sentence: str  # the sentence that decided it ("" when nothing matched)
    text: str  # the passage, with its continuation across the page break when it moved


def stem(word: str) -> str:
    """A light suffix strip, so that "arrows" finds "arrow" and "shading" finds "shade"."""
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


def sentences(chunk: StoredChunk) -> list[tuple[str, int | None]]:
    return [(s.strip(), chunk.page) for s in _SENTENCE.split(chunk.text) if len(s.strip()) > 3]


def sentence_score(sentence: str, terms: Mapping[str, float]) -> float:
    words = {stem(w) for w in _WORD.findall(sentence)}
    return sum(weight for term, weight in terms.items() if term in words)


def choose_page(
    chunk: StoredChunk,
    neighbours: Sequence[tuple[int, StoredChunk]],
    terms: Mapping[str, float],
) -> PageChoice:
    """Where ``chunk``'s answer is: its own page, or the page before or after it where its
    section goes on and holds a clearly better sentence."""
    own = [(sentence_score(s, terms), s) for s, _p in sentences(chunk)]
    best_own = max(own, default=(0.0, ""))
    choice = PageChoice(chunk.page, best_own[1] if best_own[0] > 0 else "", chunk.text)
    if chunk.page is None:
        return choice
    best = best_own[0]
    for side, other in neighbours:
        if other.page is None or other.headings != chunk.headings:
            continue
        if other.page != chunk.page + side:  # the same section on the next or previous page
            continue
        for sentence, page in sentences(other):
            score = sentence_score(sentence, terms)
            if score > best * MARGIN and score > best_own[0] * MARGIN:
                best = score
                text = f"{chunk.text}\n{other.text}" if side > 0 else f"{other.text}\n{chunk.text}"
                choice = PageChoice(page, sentence, text)
    return choice
