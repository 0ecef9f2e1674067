"""'Not in your documents' before the model (a name the collection never holds) and after it
(an answer's sentences checked against the passages it was given)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.documents.answerable import code_phrases, coined_candidates, judge, names
from engine.documents.dictionary import spelled_otherwise
from engine.documents.embeddings import EmbeddingModel
from engine.documents.grounding import claims, unsupported_share
from engine.documents.index_db import IndexDB
from engine.documents.indexer import Indexer
from engine.documents.retrieve import Retriever

GUIDE = """# Plotting guide

## Line styles

Use `set style line 3 dashtype 2` to draw the third line dashed. The option `--with-x`
builds the X11 terminal.

## Output

The pngcairo terminal writes PNG files; its default size is 640 by 480 pixels.

## Colors

Lines are drawn in the color of their style; the background color is white.
"""


@pytest.fixture
def retriever(shared_models: Path, tmp_path: Path) -> Iterator[Retriever]:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "guide.md").write_text(GUIDE, encoding="utf-8")
    with EmbeddingModel.load(shared_models / "all-minilm-l6-v2-onnx") as encoder:
        db = IndexDB(tmp_path / "index.sqlite3")
        collection = db.collection("guide", create=True)
        assert collection is not None
        indexer = Indexer(db, collection, encoder)
        indexer.add([docs])
        yield Retriever(db, indexer.collection, encoder)
        db.close()


def test_names_are_identifiers_capitalised_words_and_quoted_terms() -> None:
    assert names("How do I read Parquet files with `read_parquet` in R?") == [
        "parquet",
        "read_parquet",
    ]
    assert names("What is the highest value for the --max-ppsize option?") == ["--max-ppsize"]
    assert names("Where should we gather when the building is evacuated?") == []


def test_a_name_the_documents_never_use_is_not_in_them(retriever: Retriever) -> None:
    verdict = judge(retriever, "How do I save the plot as an animated WebP file?")
    assert not verdict.answerable
    assert verdict.missing == ("webp",)
    assert "webp" in verdict.reason


def test_a_paraphrase_with_new_plain_words_is_answerable(retriever: Retriever) -> None:
    assert judge(retriever, "How big are the pictures the pngcairo terminal makes?").answerable
    assert judge(retriever, "Which configure switch gives me the --with-x terminal?").answerable


def test_an_option_counts_only_whole(retriever: Retriever) -> None:
    """--with-y is not --with-x, though "with" and "y" are both in the guide."""
    verdict = judge(retriever, "What does the --with-y option build?")
    assert not verdict.answerable and verdict.missing == ("--with-y",)


def test_lower_case_words_outside_english_are_candidate_names() -> None:
    assert coined_candidates("How do I snapshot my project's packages with renv?") == ["renv"]
    # Everyday words a paraphrase may choose, inflections and contractions are not names.
    assert coined_candidates("Why didn't the leftover decibels fade?") == []
    # A question in another language is left alone: most of its words are not English.
    assert coined_candidates("Wie lange hält der Akku des Staubsaugers durch?") == []


def test_a_lower_case_name_the_documents_never_use_is_not_in_them(retriever: Retriever) -> None:
    verdict = judge(retriever, "Which line style does tiledlayout draw dashed in the PNG terminal?")
    assert not verdict.answerable and verdict.missing == ("tiledlayout",)
    # The guide's own lower-case name is found, and so is an English word it lacks.
    assert judge(retriever, "What size are pictures from pngcairo?").answerable
    assert judge(retriever, "How do I draw the third line in dashes?").answerable


def test_a_british_spelling_is_an_english_word_and_finds_the_american_one(
    retriever: Retriever,
) -> None:
    assert coined_candidates("Which colour is the background, and is it centred?") == []
    assert spelled_otherwise("colour") == ["color"]
    assert spelled_otherwise("four") == [] and spelled_otherwise("renv") == []
    assert judge(retriever, "What background colour do the pictures get?").answerable
    # Named in quotes, the British spelling is found through the American one.
    assert judge(retriever, "What does the guide say about 'colour'?").answerable
    found = retriever.search("colour", 1, mode="keyword")
    assert found and "background color" in found[0].text


def test_a_name_made_up_with_a_placeholder_is_judged_by_its_other_parts(
    retriever: Retriever,
) -> None:
    """``foo.png`` shows the shape of a file name; ``frob.png`` is a name the guide lacks."""
    assert judge(retriever, "Can the pngcairo terminal write a file like foo.png?").answerable
    verdict = judge(retriever, "Can the pngcairo terminal write a file like frob.png?")
    assert not verdict.answerable and verdict.missing == ("frob.png",)


def test_code_in_backticks_must_be_in_the_documents_as_written(retriever: Retriever) -> None:
    assert code_phrases("What does `set style line` do, and `x`?") == ["set style line"]
    assert judge(retriever, "What does `set style line` change?").answerable
    verdict = judge(retriever, "What does `set line style` change?")
    assert not verdict.answerable and verdict.missing == ("set line style",)


def test_claims_are_checked_against_the_passages() -> None:
    passages = ["The pngcairo terminal writes PNG files; its default size is 640 by 480 pixels."]
    found = claims(
        "The default size is 640 by 480 pixels [1]. It also writes JPEG files at 90 % quality.",
        passages,
    )
    assert [(c.supported, c.source) for c in found] == [(True, 1), (False, None)]
    assert unsupported_share(found) == 0.5
    # A figure the passages do not hold is invented, however many words match.
    assert not claims("The default size is 800 by 600 pixels.", passages)[0].supported
    # Nothing checkable: not a claim.
    assert claims("Not in your documents.", passages) == []
