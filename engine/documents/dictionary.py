"""Whether a word is ordinary English: pyspellchecker's English word list (about 160,000 words
with their frequencies, from subtitles and other everyday text), read once when first asked.

A lower-case word that is neither English nor in any passage of a collection is a name the
documents do not know (``renv``, ``ncread``, ``tiledlayout``): a question about it is not
answered by them. The list knows everyday words and their inflections ("leftover",
"decibels"), which a paraphrase may use while the documents word it otherwise, and lacks
most technical coinages, which is what the check needs.

The list spells the American way. A British spelling ("colour", "initialise", "centred",
"analyse", "licence", "modelling") is English when its American spelling is: the regular
correspondences between the two (as tabulated in, for example, the Oxford and
Merriam-Webster dictionaries' notes on British and American spelling) give that spelling.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

ENGLISH_SHARE = 0.6  # of a question's plain words, for it to be read as English

# British spelling -> American, each a regular correspondence: colour/color, initialise/
# initialize, analyse/analyze, centre/center, licence/license, travelled/traveled,
# catalogue/catalog.
_BRITISH = (
    (re.compile(r"(?<=\w\w)our(?=(s|ed|ing|ful|ite|ites|able|ably|less)?$)"), "or"),
    (re.compile(r"(?<=\w\w)is(?=(e|es|ed|ing|er|ers|ation|ations)$)"), "iz"),
    (re.compile(r"(?<=\w)ys(?=(e|es|ed|ing|er|ers)$)"), "yz"),
    (re.compile(r"(?<=\w\w[^aeiou])re(?=s?$)"), "er"),
    (re.compile(r"(?<=\w\w[^aeiou])red$"), "ered"),
    (re.compile(r"(?<=\w\w)ence(?=s?$)"), "ense"),
    (re.compile(r"(?<=[aeiou])ll(?=(ed|ing|er|ers)$)"), "l"),
    (re.compile(r"(?<=\w\w)ogue(?=s?$)"), "og"),
)


@functools.cache
def _english() -> frozenset[str]:
    from spellchecker import SpellChecker

    checker = SpellChecker(language="en", distance=1)
    return frozenset(checker.word_frequency.keys())


def american(word: str) -> list[str]:
    """The American spellings a British spelling of ``word`` corresponds to (lower-cased;
    empty when no correspondence applies): "colour" gives "color", "centred" "centered"."""
    w = word.lower()
    out = []
    for pattern, replacement in _BRITISH:
        changed = pattern.sub(replacement, w, count=1)
        if changed != w:
            out.append(changed)
    return out


def spelled_otherwise(word: str) -> list[str]:
    """The American spellings of ``word`` when it is not itself in the (American) list and
    one of them is: "colour" gives ["color"], "four" and "renv" give []."""
    english = _english()
    w = word.lower()
    if w in english:
        return []
    return [a for a in american(w) if a in english]


def is_english(word: str) -> bool:
    return word.lower() in _english() or bool(spelled_otherwise(word))


def reads_as_english(words: Iterable[str]) -> bool:
    """Whether most of these words are English, so that one outside the list stands out
    (a question in another language has most of its words outside it)."""
    plain = [w for w in words if w.isalpha() and len(w) >= 3]
    if not plain:
        return False
    known = sum(1 for w in plain if is_english(w))
    return known >= ENGLISH_SHARE * len(plain)
