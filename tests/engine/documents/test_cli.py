"""``cove index``, ``cove ask`` and ``cove collections`` end to end: real processes on the labelled
corpus's files, the real encoder, and the starter model for a grounded answer."""

from __future__ import annotations

import json
import os
from functools import partial
from pathlib import Path

import pytest

from tests.cove_process import ROOT, run_cove
from tests.support.corpus.build import build_corpus

WAIT_S = 300.0  # a guard against a hang, not a measurement


cove = partial(run_cove, timeout=WAIT_S)


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {
        **os.environ,
        "COVE_DATA_DIR": str(tmp_path / "data"),
        "COVE_MODELS_DIR": str(tmp_path / "models"),
        "PYTHONPATH": str(ROOT),
    }


def test_index_ask_and_collections(
    env: dict[str, str], tmp_path: Path, shared_models: Path
) -> None:
    docs = tmp_path / "docs"
    build_corpus(docs)
    (docs / "broken.pdf").write_bytes(b"%PDF-1.4 not really")
    encoder = str(shared_models / "all-minilm-l6-v2-onnx")
    indexed = cove(env, "index", str(docs), "--collection", "work", "--embedding-model", encoder,
                   "--json")  # fmt: skip
    assert indexed.returncode == 0, indexed.stderr
    report = json.loads(indexed.stdout)
    outcomes = {Path(f["path"]).name: f for f in report["files"]}
    assert outcomes["broken.pdf"]["outcome"] == "skipped" and outcomes["broken.pdf"]["reason"]
    manual = outcomes["aerolux_x200_manual.pdf"]
    assert manual["outcome"] == "indexed" and manual["needs_ocr_pages"] == [6]
    assert report["encoder"] == "all-minilm-l6-v2-onnx:384"

    asked = cove(env, "ask", "How big is the battery in the X200?", "--collection", "work",
                 "--embedding-model", encoder, "--retrieve-only", "--json")  # fmt: skip
    assert asked.returncode == 0, asked.stderr
    data = json.loads(asked.stdout)
    assert (
        set(data) == {"answer", "answerable", "not_found_reason", "unsupported_claims", "sources"}
        and data["answer"] is None
    )
    top = data["sources"][0]
    assert Path(top["path"]).is_absolute()
    assert set(top) == {"path", "page", "heading", "score", "text", "sentence"}
    places = [(Path(s["path"]).name, s["page"]) for s in data["sources"][:3]]
    assert ("aerolux_x200_manual.pdf", 2) in places  # the page that says how big the battery is
    scores = [s["score"] for s in data["sources"]]
    assert scores == sorted(scores, reverse=True)

    other = shared_models / "missing-encoder"
    wrong = cove(env, "ask", "battery?", "--collection", "work", "--embedding-model", str(other))
    assert wrong.returncode == 1 and "Traceback" not in wrong.stderr

    again = cove(env, "index", str(docs), "--collection", "work", "--embedding-model", encoder,
                 "--json")  # fmt: skip
    assert {f["outcome"] for f in json.loads(again.stdout)["files"]} <= {"unchanged", "skipped",
                                                                         "needs_ocr"}  # fmt: skip

    listed = json.loads(cove(env, "collections", "--json").stdout)["collections"]
    assert [c["name"] for c in listed] == ["work"] and listed[0]["files_indexed"] >= 20
    removed = cove(env, "collections", "--remove", "work", "--path", str(docs / "council"))
    assert removed.returncode == 0 and "Removed 3 files" in removed.stdout
    assert cove(env, "collections", "--remove", "work").returncode == 0
    assert json.loads(cove(env, "collections", "--json").stdout)["collections"] == []
    nothing = cove(env, "index", str(tmp_path / "nowhere"), "--collection", "x")
    assert nothing.returncode == 1 and "nothing could be indexed" in nothing.stderr
    assert json.loads(cove(env, "collections", "--json").stdout)["collections"] == []


@pytest.mark.slow
def test_a_grounded_answer_from_the_starter_model_cites_its_sources(
    env: dict[str, str], tmp_path: Path, shared_models: Path
) -> None:
    """A small folder (a two-page PDF and a Markdown note), a question worded unlike the text:
    the answer comes with the PDF's second page as its first source; a question the folder
    knows nothing of is answered "Not in your documents."."""
    from engine.documents.answer import NOT_FOUND
    from tests.engine.documents.harbour import harbour_folder

    docs = harbour_folder(tmp_path)
    encoder = str(shared_models / "all-minilm-l6-v2-onnx")
    indexed = cove(env, "index", str(docs), "--collection", "c", "--embedding-model", encoder,
                   "--json")  # fmt: skip
    assert indexed.returncode == 0, indexed.stderr
    asked = cove(env, "ask", "When does the boat to Gull Island depart?", "--collection", "c",
                 "--embedding-model", encoder, "--json")  # fmt: skip
    assert asked.returncode == 0, asked.stderr
    data = json.loads(asked.stdout)
    assert set(data) == {
        "answer",
        "answerable",
        "not_found_reason",
        "unsupported_claims",
        "sources",
    }
    assert data["answer"] and data["answer"] != NOT_FOUND
    best = data["sources"][0]
    assert best["path"] == str(docs / "harbour_guide.pdf") and best["page"] == 2
    assert "quarter past nine" in best["text"]
    unknown = cove(env, "ask", "Who painted the Mona Lisa?", "--collection", "c",
                   "--embedding-model", encoder, "--json")  # fmt: skip
    assert unknown.returncode == 0, unknown.stderr
    assert json.loads(unknown.stdout)["answer"] == NOT_FOUND
