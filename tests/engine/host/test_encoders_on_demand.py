"""Encoders by name on a real host: an installed sentence encoder named by /v1/embeddings is
loaded then, and an installed cross-encoder serves /v1/rerank (engine/host/models/encoders.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from engine.client.local import LocalEngine
from tests.support.word_reranker import WORD, word_counting_reranker


@pytest.fixture(scope="module")
def host(shared_models: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalEngine]:
    models = tmp_path_factory.mktemp("models")
    encoder = shared_models / "all-minilm-l6-v2-onnx"
    (models / encoder.name).symlink_to(encoder, target_is_directory=True)
    word_counting_reranker(models / "word-reranker", encoder / "tokenizer.json")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("COVE_MODELS_DIR", str(models))
        engine = LocalEngine.start(log_path=tmp_path_factory.mktemp("host") / "engine.log")
    yield engine
    engine.stop()
    engine.client.close()


def post(host: LocalEngine, path: str, body: dict[str, Any]) -> httpx.Response:
    return httpx.post(
        f"http://127.0.0.1:{host.port}{path}",
        json=body,
        headers={"Authorization": f"Bearer {host._token}"},
        timeout=120,
    )


def test_an_installed_encoder_named_by_a_request_is_loaded_for_it(host: LocalEngine) -> None:
    assert host.client.status().embedding_model is None
    r = post(host, "/v1/embeddings", {"model": "all-minilm-l6-v2-onnx", "input": ["a lighthouse"]})
    assert r.status_code == 200, r.text
    assert len(r.json()["data"][0]["embedding"]) == 384
    assert host.client.status().embedding_model is not None
    r = post(host, "/v1/embeddings", {"model": "no-such-encoder", "input": ["x"]})
    assert r.status_code == 404 and "no-such-encoder" in r.text


def test_rerank_orders_documents_by_the_cross_encoder(host: LocalEngine) -> None:
    documents = ["The bakery opens at six.", f"The {WORD} and its {WORD} keeper.", f"A {WORD}."]
    body = {"model": "word-reranker", "query": f"Who keeps the {WORD}?", "documents": documents}
    r = post(host, "/v1/rerank", body)
    assert r.status_code == 200, r.text
    results = r.json()["results"]
    assert [x["index"] for x in results] == [1, 2, 0]
    assert [x["relevance_score"] for x in results] == [2.0, 1.0, 0.0]
    r = post(host, "/rerank", {**body, "top_n": 1, "return_documents": True})
    assert r.json()["results"] == [
        {"index": 1, "relevance_score": 2.0, "document": {"text": documents[1]}}
    ]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"query": "", "documents": ["a"]}, "query"),
        ({"query": "q", "documents": []}, "documents"),
        ({"query": "q", "documents": [1]}, "documents[0]"),
        ({"query": "q", "documents": ["a"], "top_n": 0}, "top_n"),
    ],
)
def test_a_malformed_rerank_request_is_a_400_naming_the_field(
    host: LocalEngine, body: dict[str, Any], field: str
) -> None:
    r = post(host, "/v1/rerank", {"model": "word-reranker", **body})
    assert r.status_code == 400 and field in r.json()["error"]["message"]
