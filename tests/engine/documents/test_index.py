"""Indexing and retrieval on real files with the real encoder: incremental by content hash,
deleted files leave the index, bad files skipped with their reason, the encoder remembered,
indexing resumed where it stopped, and the right file and heading found for a paraphrase."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from engine.documents.embeddings import EmbeddingModel
from engine.documents.index_db import IndexDB
from engine.documents.indexer import Indexer
from engine.documents.retrieve import Retriever, keyword_query
from engine.errors import EngineError

LIGHTHOUSE = """# Lighthouse keeping

## The lamp

The keeper lights the lamp half an hour before sunset and puts it out at sunrise.
The lens is cleaned every morning with a soft linen cloth.

## Supplies

Paraffin is delivered by boat on the first Monday of each month. The store room holds
twelve barrels, enough for nine weeks in winter.
"""
BAKERY = """# The bakery

## Opening hours

The shop opens at six in the morning and closes at two in the afternoon, except on Sundays.

## Sourdough

The starter is fed twice a day with rye flour and water at room temperature.
"""


@pytest.fixture
def encoder(shared_models: Path) -> Iterator[EmbeddingModel]:
    with EmbeddingModel.load(shared_models / "all-minilm-l6-v2-onnx") as model:
        yield model


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    (docs / "work").mkdir(parents=True)
    (docs / "work" / "lighthouse.md").write_text(LIGHTHOUSE, encoding="utf-8")
    (docs / "bakery.txt").write_text(BAKERY.replace("#", ""), encoding="utf-8")
    (docs / "notes.bin.txt").write_bytes(b"\x00\x01\x02binary\x00" * 50)
    return docs


def test_index_then_find_a_paraphrase_with_its_heading(
    folder: Path, tmp_path: Path, encoder: EmbeddingModel
) -> None:
    db = IndexDB(tmp_path / "index.sqlite3")
    collection = db.collection("mine", create=True)
    assert collection is not None
    outcomes = {Path(o.path).name: o for o in Indexer(db, collection, encoder).add([folder])}
    assert outcomes["lighthouse.md"].outcome == "indexed"
    assert outcomes["bakery.txt"].outcome == "indexed"
    assert outcomes["notes.bin.txt"].outcome == "skipped"
    assert outcomes["notes.bin.txt"].reason
    collection = db.collection("mine")
    assert collection is not None and collection.encoder is not None
    sources = Retriever(db, collection, encoder).search("How often does the fuel arrive?", 3)
    assert Path(sources[0].path).name == "lighthouse.md"
    assert sources[0].heading == "Supplies"
    keyword_only = Retriever(db, collection).search("When is paraffin delivered?", 3)
    assert keyword_only[0].heading == "Supplies"
    db.close()


def test_only_changed_files_are_read_again_and_deleted_ones_leave(
    folder: Path, tmp_path: Path, encoder: EmbeddingModel
) -> None:
    db = IndexDB(tmp_path / "index.sqlite3")
    collection = db.collection("mine", create=True)
    assert collection is not None
    Indexer(db, collection, encoder).add([folder])
    (folder / "bakery.txt").write_text(BAKERY.replace("six", "seven"), encoding="utf-8")
    (folder / "work" / "lighthouse.md").unlink()
    again = {Path(o.path).name: o.outcome for o in Indexer(db, collection, encoder).add([folder])}
    assert again == {
        "bakery.txt": "indexed",
        "lighthouse.md": "removed",
        "notes.bin.txt": "skipped",
    }
    unchanged = Indexer(db, collection, encoder).add([folder])
    assert {o.outcome for o in unchanged if o.path.endswith("bakery.txt")} == {"unchanged"}
    assert {Path(f.path).name for f in db.files(collection) if f.status == "indexed"} == {
        "bakery.txt"
    }
    db.close()


def test_files_read_by_an_older_reader_are_read_again(
    folder: Path, tmp_path: Path, encoder: EmbeddingModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    from engine.documents import indexer as indexer_module

    db = IndexDB(tmp_path / "index.sqlite3")
    collection = db.collection("mine", create=True)
    assert collection is not None
    Indexer(db, collection, encoder).add([folder])
    unchanged = {
        Path(o.path).name: o.outcome for o in Indexer(db, collection, encoder).add([folder])
    }
    assert unchanged["lighthouse.md"] == "unchanged"
    monkeypatch.setattr(indexer_module, "READING", indexer_module.READING + 1)
    again = {Path(o.path).name: o.outcome for o in Indexer(db, collection, encoder).add([folder])}
    assert again["lighthouse.md"] == again["bakery.txt"] == "indexed"
    db.close()


def test_a_collection_remembers_its_encoder(folder: Path, tmp_path: Path) -> None:
    class Other:
        name = "other-encoder"
        dimensions = 8

    db = IndexDB(tmp_path / "index.sqlite3")
    collection = db.collection("mine", create=True)
    assert collection is not None
    db.set_encoder(collection, "all-minilm-l6-v2-onnx:384", 384)
    collection = db.collection("mine")
    assert collection is not None
    with pytest.raises(EngineError, match="was built with the embedding model"):
        Indexer(db, collection, Other())  # type: ignore[arg-type]
    db.close()


def test_cancelled_indexing_resumes_where_it_stopped(
    folder: Path, tmp_path: Path, encoder: EmbeddingModel
) -> None:
    sections = [f"## Section {n}\n\nFact number {n} about the harbour.\n" for n in range(150)]
    (folder / "long.md").write_text("# Long\n\n" + "\n".join(sections), encoding="utf-8")
    db = IndexDB(tmp_path / "index.sqlite3")
    collection = db.collection("mine", create=True)
    assert collection is not None
    cancel = threading.Event()

    def stop_when_embedding(progress: object) -> None:
        if getattr(progress, "phase", "") == "embedding":
            cancel.set()

    Indexer(db, collection, encoder, progress=stop_when_embedding, cancel=cancel).add([folder])
    collection = db.collection("mine")
    assert collection is not None
    left = db.count_unembedded(collection)
    assert left > 0  # the first batch was stored, the rest waits
    resumed = Indexer(db, collection, encoder)
    assert resumed.embed_pending() == left
    assert db.count_unembedded(collection) == 0
    db.close()


def test_keyword_queries_are_safe_from_fts_syntax() -> None:
    assert keyword_query('what is "NEAR(x) OR y* -z') == '"near" OR "x" OR "y" OR "z"'
    assert keyword_query("the") == '"the"'


def test_a_folder_under_a_hidden_folder_is_indexed(tmp_path: Path) -> None:
    """Documents the user keeps under a hidden folder (~/.local/share, a synced ~/.Dropbox)
    are indexed when that folder is added; hidden folders below it are still passed over."""
    kept = tmp_path / ".local" / "share" / "manuals"
    (kept / ".git").mkdir(parents=True)
    (kept / "lighthouse.md").write_text(LIGHTHOUSE, encoding="utf-8")
    (kept / ".git" / "notes.md").write_text(BAKERY, encoding="utf-8")
    db = IndexDB(tmp_path / "index.sqlite3")
    collection = db.collection("hidden", create=True)
    assert collection is not None
    outcomes = Indexer(db, collection).add([kept])
    assert [(Path(o.path).name, o.outcome) for o in outcomes] == [("lighthouse.md", "indexed")]
    db.close()


class _Counting:
    """The real encoder, counting the texts it is asked to embed."""

    def __init__(self, model: EmbeddingModel) -> None:
        self.model = model
        self.texts: list[str] = []

    @property
    def name(self) -> str:
        return self.model.name

    @property
    def dimensions(self) -> int:
        return self.model.dimensions

    def embed(self, texts: Sequence[str], *, batch_size: int = 32) -> list[list[float]]:
        self.texts += texts
        return self.model.embed(texts, batch_size=batch_size)


def test_a_text_is_embedded_once_and_unchanged_passages_keep_their_vectors(
    tmp_path: Path, encoder: EmbeddingModel
) -> None:
    docs = tmp_path / "docs"
    for copy in ("2023", "2024"):  # one file kept twice: the same passages
        (docs / copy).mkdir(parents=True)
        (docs / copy / "lighthouse.md").write_text(LIGHTHOUSE, encoding="utf-8")
    db = IndexDB(tmp_path / "index.sqlite3")
    collection = db.collection("mine", create=True)
    assert collection is not None
    counting = _Counting(encoder)
    Indexer(db, collection, counting).add([docs])
    stored = db.count_chunks(collection)
    assert stored > 0 and db.count_unembedded(collection) == 0
    assert len(counting.texts) == len(set(counting.texts)) == stored // 2

    # One paragraph changed: only its passage is embedded again.
    (docs / "2024" / "lighthouse.md").write_text(
        LIGHTHOUSE.replace("twelve barrels", "fourteen barrels"), encoding="utf-8"
    )
    counting.texts.clear()
    Indexer(db, collection, counting).add([docs])
    assert db.count_unembedded(collection) == 0
    assert len(counting.texts) == 1 and "fourteen barrels" in counting.texts[0]
    db.close()
