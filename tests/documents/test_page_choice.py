"""The cited page is where the answering sentence is: a section that runs on over a page break
is read with its continuation, and the page of the sentence that matches the question best is
cited, with that sentence (engine/documents/page_choice.py). Real PDFs (reportlab), the real
reader, index and keyword retrieval."""

from __future__ import annotations

from pathlib import Path

from engine.documents.index_db import IndexDB, StoredChunk
from engine.documents.indexer import Indexer
from engine.documents.page_choice import choose_page
from engine.documents.retrieve import Retriever
from tests.documents.test_readers import write_pdf

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


def test_the_cited_page_comes_with_the_sentence_that_decided_it(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    manual(folder / "handbook.pdf")
    db = IndexDB(tmp_path / "index.sqlite3")
    collection = db.collection("c", create=True)
    assert collection is not None
    Indexer(db, collection).add([folder])
    best = Retriever(db, collection).search(
        "What is the maximum load the slipway winch takes in one haul?", 3
    )[0]
    assert best.page == 3
    assert "900 kilograms" in best.sentence
    assert best.to_dict()["sentence"] == best.sentence
    db.close()


def chunk(page: int | None, text: str, headings: tuple[str, ...] = ("Winch",)) -> StoredChunk:
    return StoredChunk(1, "handbook.pdf", page, headings, text)


TERMS = {"winch": 1.0, "load": 2.0, "maximum": 2.0}


def test_a_clearly_better_sentence_on_the_next_page_moves_the_citation() -> None:
    here = chunk(2, "Using the winch. Only trained members use the winch.")
    after = chunk(3, "The maximum load of the winch is 900 kg.")
    choice = choose_page(here, [(1, after)], TERMS)
    assert choice.page == 3 and choice.sentence == "The maximum load of the winch is 900 kg."


def test_the_own_page_stays_on_a_tie_another_section_or_a_page_apart() -> None:
    here = chunk(2, "The maximum load of the winch is 900 kg.")
    after = chunk(3, "The winch has a maximum load of 900 kg.")
    assert choose_page(here, [(1, after)], TERMS).page == 2  # no better sentence there
    weak = chunk(2, "Using the winch.")
    other_section = chunk(3, "The maximum load is 900 kg.", ("Crane",))
    assert choose_page(weak, [(1, other_section)], TERMS).page == 2
    far = chunk(4, "The maximum load of the winch is 900 kg.")
    assert choose_page(weak, [(1, far)], TERMS).page == 2
    before = chunk(1, "The maximum load of the winch is 900 kg.")
    assert choose_page(weak, [(-1, before)], TERMS).page == 1  # the page before, too
