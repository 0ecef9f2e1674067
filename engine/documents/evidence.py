"""The sentence of a cited passage that answers: shown with the page (in the window and in
``cove ask --json``), so that the reader sees why that page was cited.

A sentence is scored as passages are ranked: the inverse document frequency of the question's
words it holds (scaled to the passage's best sentence) and, with an encoder, the cosine of its
vector and the question's, fused with the same weight.

Tried and not kept: moving the citation to the page before or after when a sentence of the
same section there scored clearly better (a passage ends at every page break, so a section
that runs on over a page is two passages). On the held-out set it fixed one question and broke
one to two, on the tuning set it fixed up to two and broke as many, at every margin tried
(docs/DOCUMENTS.md); each passage keeps its own page.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence

_SENTENCE = re.compile(r"(?<=[.!?:;])\s+|\n+")
WORD = re.compile(r"[\w][\w.\-]*[\w]|[\w]", re.UNICODE)  # a word, or a name with dots and dashes

# Cosines of sentences with the question, for the sentences given (None: no encoder).
Similarity = Callable[[Sequence[str]], Sequence[float]] | None


def stem(word: str) -> str:
    """A light suffix strip that meets itself: "takes", "take" and "taken" give "tak";
    "charging", "charged" and "charge" give "charg"; "batteries" and "battery" give "battery"."""
    w = word.lower().strip(".-")
    if len(w) > 4 and w.endswith("ies"):
        return w[:-3] + "y"
    for suffix in ("ing", "ed", "en", "es", "s"):
        if len(w) > len(suffix) + 2 and w.endswith(suffix):
            w = w[: -len(suffix)]
            break
    if len(w) > 3 and w.endswith("e"):
        w = w[:-1]
    return w


def weights(terms: Sequence[str], counts: Mapping[str, int], total: int) -> dict[str, float]:
    """Each question term's inverse document frequency over the collection's passages."""
    return {
        stem(t): math.log(1.0 + (total - counts.get(t, 0) + 0.5) / (counts.get(t, 0) + 0.5))
        for t in terms
    }


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text) if len(s.strip()) > 3]


def sentence_score(sentence: str, terms: Mapping[str, float]) -> float:
    words = {stem(w) for w in WORD.findall(sentence)}
    return sum(weight for term, weight in terms.items() if term in words)


def best_sentence(
    text: str,
    terms: Mapping[str, float],
    similarity: Similarity = None,
    vector_weight: float = 0.6,
) -> str:
    """The sentence of ``text`` that matches the question best ("" when none shares a word with
    it and there is no encoder)."""
    found = sentences(text)
    if not found:
        return ""
    keyword = [sentence_score(s, terms) for s in found]
    top = max(keyword)
    scores = [k / top if top > 0 else 0.0 for k in keyword]
    if similarity is not None:
        cosines = similarity(found)
        scores = [
            (1 - vector_weight) * k + vector_weight * c
            for k, c in zip(scores, cosines, strict=True)
        ]
    elif top <= 0:
        return ""
    return found[max(range(len(found)), key=scores.__getitem__)]
