"""The reranking stage: a cross-encoder folder is loaded on ONNX Runtime, reads the question and
each passage as one pair, and reorders what retrieval found; ``cove ask --reranker`` uses it.

No trained cross-encoder can be had without a model hub, so the model here is a small ONNX graph
with the same inputs and output as one (``input_ids``, ``attention_mask``, ``token_type_ids`` in;
``logits [batch, 1]`` out): it scores a pair by how often the passage's half holds one word. It
checks the plumbing (pairs, segments, batching, order), not ranking quality, which
bench/eval_retrieval.py measures on real documents with a real reranker.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from engine.documents.index_db import IndexDB
from engine.documents.indexer import Indexer
from engine.documents.rerank import (
    BATCH,
    DEFAULT_RERANKER_ID,
    CrossEncoder,
    default_reranker_folder,
    is_reranker_folder,
)
from engine.documents.retrieve import Retriever
from engine.errors import ModelLoadError
from tests.support.word_reranker import WORD, word_counting_reranker

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def reranker_folder(tmp_path: Path, shared_models: Path) -> Path:
    tokenizer = shared_models / "all-minilm-l6-v2-onnx" / "tokenizer.json"
    return word_counting_reranker(tmp_path / "reranker", tokenizer)


def test_pairs_are_scored_by_the_passage_segment_in_batches(reranker_folder: Path) -> None:
    reranker = CrossEncoder.load(reranker_folder)
    try:
        question = f"Who keeps the {WORD}?"  # the question's own word is segment 0: not counted
        passages = [f"The {WORD} and the {WORD} keeper.", "The bakery opens at six.", WORD]
        assert reranker.score(question, passages) == [2.0, 0.0, 1.0]
        many = [f"{WORD} " * (i % 4) + "text" for i in range(BATCH * 2 + 3)]
        assert reranker.score(question, many) == [float(i % 4) for i in range(len(many))]
        assert reranker.score(question, []) == []
    finally:
        reranker.close()


def test_an_embedding_model_or_an_empty_folder_is_not_a_reranker(
    tmp_path: Path, shared_models: Path
) -> None:
    assert not is_reranker_folder(shared_models / "all-minilm-l6-v2-onnx")
    with pytest.raises(ModelLoadError, match="not a reranker folder"):
        CrossEncoder.load(shared_models / "all-minilm-l6-v2-onnx")
    with pytest.raises(ModelLoadError, match="not a reranker folder"):
        CrossEncoder.load(tmp_path)
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "model.onnx").write_bytes(b"not a model")
    shutil.copyfile(
        shared_models / "all-minilm-l6-v2-onnx" / "tokenizer.json", broken / "tokenizer.json"
    )
    with pytest.raises(ModelLoadError, match="cannot load the reranker"):
        CrossEncoder.load(broken)


def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    # Keyword search ranks the harbour notes first (they say "harbour" and "keeper" more often);
    # only the last file names the word the reranker looks for.
    (folder / "a.txt").write_text("Harbour keeper notes. The harbour keeper keeps the harbour.\n")
    (folder / "b.txt").write_text("Harbour keeper rota for the harbour.\n")
    (folder / "c.txt").write_text(f"The {WORD} keeper lives by the harbour.\n")
    return folder


def test_the_retriever_reorders_what_it_found_by_the_reranker(
    tmp_path: Path, reranker_folder: Path
) -> None:
    db = IndexDB(tmp_path / "index.sqlite3")
    collection = db.collection("notes", create=True)
    assert collection is not None
    Indexer(db, collection, None).add([docs(tmp_path)])
    question = "Who is the harbour keeper?"
    plain = [Path(s.path).name for s in Retriever(db, collection).search(question, 3)]
    assert plain[0] != "c.txt" and set(plain) == {"a.txt", "b.txt", "c.txt"}
    reranker = CrossEncoder.load(reranker_folder)
    try:
        reranked = Retriever(db, collection, None, reranker).search(question, 2)
        assert Path(reranked[0].path).name == "c.txt" and len(reranked) == 2
        keyword = Retriever(db, collection, None, reranker).search(question, 3, mode="keyword")
        assert [Path(s.path).name for s in keyword] == plain  # only the hybrid search reranks
    finally:
        reranker.close()
        db.close()


def cli(tmp_path: Path) -> Callable[..., subprocess.CompletedProcess[str]]:
    env = {
        **os.environ,
        "COVE_DATA_DIR": str(tmp_path / "data"),
        "COVE_MODELS_DIR": str(tmp_path / "models"),
        "PYTHONPATH": str(ROOT),
    }

    def cove(*args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "engine.cli", *args]
        return subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)

    return cove


def test_cove_ask_reranks_with_the_folder_given_and_not_with_no_rerank(
    tmp_path: Path, reranker_folder: Path
) -> None:
    cove = cli(tmp_path)

    indexed = cove("index", str(docs(tmp_path)), "--collection", "notes", "--json")
    assert indexed.returncode == 0, indexed.stderr
    ask = ("ask", "Who is the harbour keeper?", "--collection", "notes", "--retrieve-only")
    reranked = cove(*ask, "--json", "--reranker", str(reranker_folder))
    assert reranked.returncode == 0, reranked.stderr
    assert Path(json.loads(reranked.stdout)["sources"][0]["path"]).name == "c.txt"
    plain = cove(*ask, "--json", "--reranker", str(reranker_folder), "--no-rerank")
    assert Path(json.loads(plain.stdout)["sources"][0]["path"]).name != "c.txt"
    missing = cove(*ask, "--reranker", str(tmp_path / "nowhere"))
    assert missing.returncode != 0 and "not a reranker folder" in missing.stderr


def test_the_librarys_reranker_is_used_once_installed(
    tmp_path: Path, reranker_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from engine.library.builds import install_path
    from engine.library.catalog import load_catalog

    cove = cli(tmp_path)
    ask = (
        "ask",
        "Who is the harbour keeper?",
        "--collection",
        "notes",
        "--retrieve-only",
        "--json",
    )
    assert cove("index", str(docs(tmp_path)), "--collection", "notes").returncode == 0
    before = json.loads(cove(*ask).stdout)["sources"][0]["path"]
    assert Path(before).name != "c.txt"
    entry = load_catalog().get(DEFAULT_RERANKER_ID)
    assert entry is not None and entry.kind == "reranker"
    # Installed as `cove pull` lays a catalog encoder out: its files side by side.
    monkeypatch.setenv("COVE_MODELS_DIR", str(tmp_path / "models"))
    installed = install_path(tmp_path / "models", entry.variants[0])
    shutil.copytree(reranker_folder, installed)
    (installed / "config.json").write_text("{}")
    assert default_reranker_folder() == installed
    after = json.loads(cove(*ask).stdout)["sources"][0]["path"]
    assert Path(after).name == "c.txt"
