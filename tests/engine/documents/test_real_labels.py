"""The real-document evaluation sets' labels hold: every answerable question's key phrase is on
each page it is labelled with, and each set has the mix it claims (bench/real_docs.py)."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.support.real_docs import (
    HELDOUT,
    TUNING,
    Corpus,
    CorpusError,
    check,
    fetch,
    load_questions,
)

SETS = [pytest.param(TUNING, id="tuning"), pytest.param(HELDOUT, id="heldout")]


@pytest.mark.parametrize(
    ("corpus", "unanswerable"),
    [pytest.param(TUNING, 20, id="tuning"), pytest.param(HELDOUT, 8, id="heldout")],
)
def test_the_question_mix(corpus: Corpus, unanswerable: int) -> None:
    questions = load_questions(corpus)
    kinds = Counter(q["kind"] for q in questions)
    answerable = [q for q in questions if q["answers"]]
    assert len(answerable) >= 80
    assert kinds["unanswerable"] >= unanswerable
    assert kinds["table"] >= 0.2 * len(questions)
    assert kinds["recurring"] >= 0.2 * len(questions)
    assert all(q["key"] for q in answerable)


def test_the_held_out_documents_are_not_the_tuning_ones() -> None:
    # Documents of other kinds than the tuning set's, never the same files.
    assert not {m.name for m in HELDOUT.members} & {m.name for m in TUNING.members}


@pytest.mark.parametrize("corpus", SETS)
def test_every_key_phrase_is_on_its_labelled_page(corpus: Corpus) -> None:
    try:
        folder = fetch(corpus=corpus)
    except CorpusError as exc:
        pytest.skip(f"the {corpus.name} documents cannot be fetched here: {exc}")
    assert check(folder, corpus=corpus) == []
