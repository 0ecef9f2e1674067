"""A cited passage comes with the sentence that answers (engine/documents/evidence.py): real PDFs
(reportlab), the real reader, index and retrieval, by keywords and with the real encoder."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.documents.embeddings import EmbeddingModel
from engine.documents.evidence import best_sentence
from engine.documents.index_db import IndexDB
from engine.documents.indexer import Indexer
from engine.documents.retrieve import Retriever
from tests.support.pdf_files import write_pdf

FILLER = [
    "Volunteers meet in the boathouse on Saturday mornings before the first launch.",
    "The committee publishes the rota for the season at the start of every spring.",
    "Members should sign the visitor book when they bring a guest onto the pontoon.",
    "Lockers are assigned in order of joining and cannot be transferred to others.",
    "The clubhouse kitchen is cleaned by whoever used it last on that same evening.",
    "Sails must be dried before they are folded and returned to the loft shelves.",
]


def manual(path: Path) -> None:
    """A section about the winch whose heading and first lines are at the foot of page 2 and
    whose answer (the maximum load) is at the top of page 3."""
    intro = ["Club Handbook", *FILLER, *FILLER]
    page2 = [
        "Boat Storage",
        *FILLER,
        *FILLER,
        *FILLER,
        "Using the Slipway Winch",
        "The slipway winch pulls dinghies and small keelboats up from the water.",
        "Only members who have been shown how to use the slipway winch may operate it.",
    ]
    page3 = [
        "The winch cable is rated for a maximum load of 900 kilograms per haul.",
        "Heavier boats must be recovered by the crane on the north quay instead.",
        *FILLER,
        "Moorings",
        "Swinging moorings are inspected by a diver every other October.",
        *FILLER,
    ]
    write_pdf(path, [intro, page2, page3])


@contextlib.contextmanager
def handbook(tmp_path: Path, encoder: EmbeddingModel | None = None) -> Iterator[Retriever]:
    """The handbook indexed (with ``encoder``'s vectors, when given), and its retriever."""
    folder = tmp_path / "docs"
    folder.mkdir()
    manual(folder / "handbook.pdf")
    db = IndexDB(tmp_path / "index.sqlite3")
    collection = db.collection("c", create=True)
    assert collection is not None
    Indexer(db, collection, encoder).add([folder])
    try:
        yield Retriever(db, collection, encoder)
    finally:
        db.close()


def test_the_cited_page_comes_with_the_sentence_that_decided_it(tmp_path: Path) -> None:
    with handbook(tmp_path) as retriever:
        best = retriever.search("What is the maximum load the slipway winch takes in one haul?", 3)[
            0
        ]
    assert best.page == 3
    assert "900 kilograms" in best.sentence
    assert best.to_dict()["sentence"] == best.sentence


@pytest.fixture
def encoder(shared_models: Path) -> Iterator[EmbeddingModel]:
    with EmbeddingModel.load(shared_models / "all-minilm-l6-v2-onnx") as model:
        yield model


TERMS = {"winch": 1.0, "load": 2.0, "maximum": 2.0}


def test_the_sentence_holding_the_rarest_words_of_the_question() -> None:
    text = "Using the winch. Only trained members use the winch. The maximum load is 900 kg."
    assert best_sentence(text, TERMS) == "The maximum load is 900 kg."
    assert best_sentence("Nothing here matches.", TERMS) == ""


def test_with_the_encoder_a_paraphrase_finds_its_sentence(
    tmp_path: Path, encoder: EmbeddingModel
) -> None:
    with handbook(tmp_path, encoder) as retriever:
        found = retriever.search("What weight can the winch cable take?", 3)
    assert any("900 kilograms" in s.sentence for s in found)


def test_word_forms_meet() -> None:
    from engine.documents.evidence import stem

    assert stem("takes") == stem("take") == stem("taken")
    assert stem("charging") == stem("charged") == stem("charge") == stem("charges")
    assert stem("batteries") == stem("battery")
    assert stem("boxes") == stem("box")


def test_pages_close_in_score_are_ordered_by_their_best_sentence(
    tmp_path: Path, encoder: EmbeddingModel
) -> None:
    from dataclasses import replace

    from engine.documents.retrieve import Source

    question = "How heavy a boat can the slipway winch pull up?"
    blank = Source(0, "handbook.pdf", 1, None, (), 0.0, "")
    sources = [
        # Best by the fused score, its words spread over sentences about other things.
        replace(blank, chunk_id=1, page=2, score=1.0, text=" ".join(FILLER[:3]) + " Boats."),
        # Just behind it, with one sentence that answers.
        replace(
            blank,
            chunk_id=2,
            page=3,
            score=0.98,
            text=f"{FILLER[3]} The slipway winch pulls up boats of at most 900 kilograms.",
        ),
        replace(blank, chunk_id=3, page=4, score=0.1, text=" ".join(FILLER[4:])),
    ]
    with handbook(tmp_path, encoder) as retriever:
        asked = retriever._embed(question)
        ordered, cosines = retriever._by_sentences(sources, asked)
    assert [s.page for s in ordered] == [3, 2, 4]
    assert set(cosines) >= {"The slipway winch pulls up boats of at most 900 kilograms."}
