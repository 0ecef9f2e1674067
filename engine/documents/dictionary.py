"""Whether a word is ordinary English: pyspellchecker's English word list (about 160,000 words
with their frequencies, from subtitles and other everyday text), read once when first asked.

A lower-case word that is neither English nor in any passage of a collection is a name the
documents do not know (``renv``, ``ncread``, ``tiledlayout``): a question about it is not
answered by them. The list knows everyday words and their inflections ("leftover",
"decibels"), which a paraphrase may use while the documents word it otherwise, and lacks
most technical coinages, which is what the check needs.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

ENGLISH_SHARE = 0.6  # of a question's plain words, for it to be read as English


@functools.cache
def _english() -> frozenset[str]:
    from spellchecker import SpellChecker

    checker = SpellChecker(language="en", distance=1)
    return frozenset(checker.word_frequency.keys())


def is_english(word: str) -> bool:
    return word.lower() in _english()


def reads_as_english(words: Iterable[str]) -> bool:
    """Whether most of these words are English, so that one outside the list stands out
    (a question in another language has most of its words outside it)."""
    plain = [w for w in words if w.isalpha() and len(w) >= 3]
    if not plain:
        return False
    known = sum(1 for w in plain if is_english(w))
    return known >= ENGLISH_SHARE * len(plain)
