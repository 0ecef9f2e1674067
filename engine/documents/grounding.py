"""Whether an answer's sentences are in the passages it was given.

A sentence is a claim when it states something checkable: figures, names, or at least two
content words. It is supported when one passage holds every figure it states and most of its
content words (a word counts when the passage has it or a word starting with its stem, so
"installs" is found by "install"). Citations, the "not in your documents" reply and sentences
with nothing to check are not claims. Small models paraphrase, so the check is lenient on
words and strict on figures: a number or identifier found in no passage was invented.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from engine.documents.retrieve import STOPWORDS

_SENTENCE = re.compile(r"[^.!?\n]+(?:[.!?]+(?=\s|$)|\n|$)")
_WORD = re.compile(r"[A-Za-z_][\w]*(?:[.\-][\w]+)*|\d+(?:[.,]\d+)*")
_CITATION = re.compile(r"\[\d+\]")
WORD_SHARE = 0.6  # of a claim's content words one passage must hold
_FILLER_TEXT = """according answer based document documents given information mentioned
    mentions passage passages provided says source sources state states stated text"""
_FILLER = frozenset(_FILLER_TEXT.split())


@dataclass(frozen=True, slots=True)
class Claim:
    start: int  # character offsets in the answer
    end: int
    text: str
    supported: bool
    source: int | None  # the passage (1-based) that holds it, when one does


def claims(answer: str, passages: Sequence[str]) -> list[Claim]:
    """The answer's checkable sentences, each with whether a passage holds it."""
    haystacks = [_words(p.lower()) for p in passages]
    out: list[Claim] = []
    for match in _SENTENCE.finditer(answer):
        text = match.group().strip()
        if not text:
            continue
        figures, words = _content(_CITATION.sub(" ", text))
        if not figures and len(words) < 2:
            continue
        found = None
        for n, have in enumerate(haystacks, 1):
            if all(f in have.exact for f in figures) and _share(words, have) >= WORD_SHARE:
                found = n
                break
        start = match.start() + (len(match.group()) - len(match.group().lstrip()))
        out.append(Claim(start, start + len(text), text, found is not None, found))
    return out


def unsupported_share(found: Sequence[Claim]) -> float:
    """The share of claims no passage holds (0 when there are none)."""
    return sum(not c.supported for c in found) / len(found) if found else 0.0


@dataclass(frozen=True, slots=True)
class _Haystack:
    exact: frozenset[str]
    stems: frozenset[str]


def _words(text: str) -> _Haystack:
    exact = {w.lower().rstrip(".,") for w in _WORD.findall(text)}
    return _Haystack(frozenset(exact), frozenset(_stem(w) for w in exact))


def _content(text: str) -> tuple[list[str], list[str]]:
    figures: list[str] = []
    words: list[str] = []
    for raw in _WORD.findall(text):
        word = raw.lower().rstrip(".,")
        if any(c.isdigit() for c in word) or "_" in word or "." in word:
            figures.append(word)
        elif len(word) >= 4 and word not in STOPWORDS and word not in _FILLER:
            words.append(word)
    return figures, words


def _share(words: Sequence[str], have: _Haystack) -> float:
    if not words:
        return 1.0
    return sum(w in have.exact or _stem(w) in have.stems for w in words) / len(words)


def _stem(word: str) -> str:
    return word[: max(4, len(word) - 3)]
