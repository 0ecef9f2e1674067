"""Whether a collection can answer a question, decided before the model is asked.

A similarity floor never fires on real manuals (every question resembles some passage
of a 2,000-page manual), so the check looks at the question's own words instead. A question
about something the documents never name (a function, a tool, a format: ``gpuArray``,
``install_github``, WebP) has a term that no passage holds, or that none of the best passages
holds although the term is rare in the collection; an answerable question, however it is
worded, shares its distinctive terms with the passage that answers it. A name typed in lower
case (``renv``, ``ncread``) is told from a paraphrase's plain word by an English word list
(``engine.documents.dictionary``), and code in backticks (`` `set colormap` ``) must be in
some passage as written.

An answer's own sentences are checked against its passages afterwards, by
``engine.documents.grounding``; that marks claims, it does not withdraw the answer.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from engine.documents.dictionary import is_english, reads_as_english, spelled_otherwise
from engine.documents.retrieve import STOPWORDS

if TYPE_CHECKING:
    from engine.documents.retrieve import Retriever, Source

# Words a question uses to ask, not to name its subject: they say nothing of whether the
# documents hold the answer.
_ASKING_TEXT = """able ask change default difference does doing done example find get give go happen
    happens instead kind let like long make makes many mean means much need needs possible put
    rather say see set show something tell thing things turn type use used using value values
    want way ways work works write"""
_ASKING = frozenset(_ASKING_TEXT.split())
# The placeholder names of programming examples (RFC 3092, "Etymology of 'Foo'", and the
# Jargon File's "metasyntactic variable"): ``foo.cron`` is a name the asker made up to show
# the shape of one, not a subject the documents must hold. "bar" (also a plain word, as in
# ``status_bar``) is one only beside another.
_PLACEHOLDER_TEXT = "foo baz qux quux corge grault garply waldo plugh xyzzy thud"
PLACEHOLDERS = frozenset(_PLACEHOLDER_TEXT.split())
_TERM = re.compile(r"[A-Za-z_][\w]*(?:[.\-][\w]+)*|\d+(?:\.\d+)*")
# Passages less similar to the question than this are about something else: the answer is
# "not in your documents" without asking the model. The lowest best-source similarity of an
# answerable question in the labelled set is 0.29 (bench/eval_retrieval.py); questions on the
# documents' own topics that they do not answer score as high as answerable ones, so for those
# the model's instruction (``engine.documents.answer``) decides.
MIN_SIMILARITY = 0.25
BEST_PASSAGES = 5  # the passages a term must be found in, when it is rare in the collection
RARE_SHARE = 0.002  # a term in fewer passages than this share of the collection is distinctive


@dataclass(frozen=True, slots=True)
class Verdict:
    answerable: bool
    reason: str
    missing: tuple[str, ...] = ()  # the question's terms no passage of the collection holds
    uncovered: tuple[str, ...] = ()  # rare terms of the question none of the best passages holds
    similarity: float | None = None
    counts: dict[str, int] = field(default_factory=dict)


def off_topic(sources: Sequence[Source]) -> bool:
    """No source at all, or every one measurably about something else."""
    similarities = [s.similarity for s in sources if s.similarity is not None]
    if not sources:
        return True
    return len(similarities) == len(sources) and max(similarities) < MIN_SIMILARITY


def question_terms(question: str) -> list[str]:
    """The question's content terms, lower-cased, each once: identifiers whole (``path.resolve``,
    ``--with-x`` as ``with-x``), stop words and asking words left out."""
    return list(dict.fromkeys(term for term, _name in _terms(question)))


def names(question: str) -> list[str]:
    """The terms of the question that name something (lower-cased): an identifier
    (``install_github``, ``path.matchesGlob``, ``--max-vsize``, ``ode113``), a word in
    capitals inside the sentence (WebP, Parquet, TLSA) or one in backticks or quotes. A plain
    word a paraphrase chose ("evacuated") may be missing from the documents while the answer
    is there; a name the documents never use means they do not cover its subject."""
    return list(dict.fromkeys(term for term, name in _terms(question) if name))


def code_phrases(question: str) -> list[str]:
    """Code of two or more words in backticks (`` `git gc --auto` ``), lower-cased, as the
    index's phrase of those words: it is found only where the documents write it so."""
    phrases = []
    for code in re.findall(r"`([^`]+)`", question):
        words = [w.lower() for w in _TERM.findall(code)]
        if len(words) >= 2:
            phrases.append(" ".join(words))
    return list(dict.fromkeys(phrases))


def coined_candidates(question: str) -> list[str]:
    """The question's plain lower-case words of four letters or more that are not English
    (``renv``, ``tiledlayout``), when the question otherwise reads as English; a contraction's
    stem ("didn" of "didn't") is not a word of its own."""
    plain: list[str] = []
    for match in _TERM.finditer(question):
        raw = match.group()
        if question[match.end() : match.end() + 1] in ("'", "\u2019"):
            continue
        plain.append(raw)
    if not reads_as_english(plain):
        return []
    named = set(names(question))
    return list(
        dict.fromkeys(
            w
            for w in plain
            if w.isalpha()
            and w.islower()
            and len(w) >= 4
            and w not in STOPWORDS
            and w not in _ASKING
            and w not in named
            and not is_english(w)
        )
    )


def _terms(question: str) -> list[tuple[str, bool]]:
    quoted = {
        t.lower().strip("._-")
        for m in re.findall(r"[`'\"]([^`'\"]+)[`'\"]", question)
        for t in _TERM.findall(m)
    }
    out: list[tuple[str, bool]] = []
    for match in _TERM.finditer(question):
        raw = match.group()
        term = raw.lower().strip("._-")
        if len(term) < 2 or term in STOPWORDS or term in _ASKING:
            continue
        start = match.start()
        sentence_start = start == 0 or question[:start].rstrip().endswith((".", "?", "!", ":"))
        option = question[max(0, start - 2) : start] == "--"
        name = (
            option
            or any(c.isdigit() for c in raw)
            or any(c in raw for c in "_.")
            or (any(c.isupper() for c in raw[1:]))
            or (raw[0].isupper() and not sentence_start and raw.lower() != "i")
            or term in quoted
        )
        if option:
            term = "--" + term  # found only whole
        out.append((term, name))
    return out


def judge(retriever: Retriever, question: str, sources: Sequence[Source] | None = None) -> Verdict:
    """The retrieval-side verdict: answerable unless a distinctive term of the question is in
    no passage of the collection, or is rare and in none of the best passages."""
    if sources is None:
        sources = retriever.search(question, BEST_PASSAGES)
    if not sources:
        return Verdict(False, "nothing in the collection matches the question")
    similarities = [s.similarity for s in sources if s.similarity is not None]
    best = max(similarities) if similarities else None
    if off_topic(sources):
        return Verdict(False, "the closest passages are about something else", similarity=best)
    terms = question_terms(question)
    phrases = code_phrases(question)
    coined = coined_candidates(question)
    wanted = list(dict.fromkeys(terms + phrases + coined))
    counts = retriever.db.term_counts(retriever.collection, wanted)
    named = names(question)
    missing = tuple(t for t in named if not _found(t, counts, retriever))
    missing += tuple(p for p in phrases if counts.get(p, 0) == 0 and p not in missing)
    missing += tuple(w for w in coined if counts.get(w, 0) == 0 and w not in missing)
    total = max(retriever.db.count_chunks(retriever.collection), 1)
    rare_below = max(2, math.ceil(total * RARE_SHARE))
    texts = " ".join(s.text.lower() for s in sources[:BEST_PASSAGES])
    uncovered = tuple(
        t for t in terms if 0 < counts.get(t, 0) <= rare_below and not _holds(texts, t)
    )
    if missing:
        return Verdict(
            False,
            f"the documents never mention {', '.join(missing)}",
            missing,
            uncovered,
            best,
            counts,
        )
    rare_names = tuple(t for t in uncovered if t in named)
    if rare_names:
        reason = f"the passages about this question never mention {', '.join(rare_names)}"
        return Verdict(False, reason, (), uncovered, best, counts)
    return Verdict(
        True, "the best passages share the question's terms", (), uncovered, best, counts
    )


def _found(term: str, counts: dict[str, int], retriever: Retriever) -> bool:
    """Whether the collection holds ``term``; a hyphenated compound ("pdflib-based") counts
    when each of its words is there, an option (``--max-vsize``) only whole. A British
    spelling counts when the American one is there ("colour", "color"), and a name made up
    with a placeholder (``foo.cron``, ``bar_baz``) when its other parts are."""
    if counts.get(term, 0) > 0:
        return True
    if term.startswith("-"):
        return False
    pieces = [p for p in re.split(r"[-._]", term) if p]
    made_up = any(p in PLACEHOLDERS for p in pieces)
    if made_up:
        parts = [p for p in pieces if p not in PLACEHOLDERS and p != "bar"]
    else:
        parts = [p for p in term.split("-") if p]
        if len(parts) < 2:
            parts = []
    variants = spelled_otherwise(term)
    wanted = variants + parts
    found = retriever.db.term_counts(retriever.collection, wanted, cap=1) if wanted else {}
    if any(found.get(v, 0) > 0 for v in variants):
        return True
    if not parts:
        return made_up
    return all(found.get(p, 0) > 0 for p in parts)


def _holds(text: str, term: str) -> bool:
    """Whether ``text`` has ``term`` as a word or a word's start (stems: "masks" for "mask")."""
    return re.search(r"(?<![\w])" + re.escape(term[: max(4, len(term) - 2)]), text) is not None
