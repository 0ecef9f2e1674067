"""The ONNX embedding model on the real all-MiniLM-L6-v2: shape, normalisation, semantics,
batching, truncation, and clear errors for damaged folders."""

from __future__ import annotations

import math
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.documents.embeddings import EmbeddingModel, is_embedding_folder
from engine.errors import EngineError, ModelLoadError

MODEL_FOLDER = "all-minilm-l6-v2-onnx"


@pytest.fixture(scope="module")
def folder(shared_models: Path) -> Path:
    path = shared_models / MODEL_FOLDER
    if not path.is_dir():
        pytest.skip(f"embedding test model {path} is absent")
    return path


@pytest.fixture(scope="module")
def model(folder: Path) -> Iterator[EmbeddingModel]:
    m = EmbeddingModel.load(folder)
    yield m
    m.close()


@pytest.fixture
def copy(folder: Path, tmp_path: Path) -> Path:
    """A writable copy of the model folder (the shared one is read-only)."""
    target = tmp_path / MODEL_FOLDER
    target.mkdir()
    for item in folder.iterdir():
        shutil.copyfile(item, target / item.name)
    return target


def cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


def test_properties(model: EmbeddingModel) -> None:
    assert model.name == MODEL_FOLDER
    assert model.dimensions == 384
    assert model.max_tokens == 512
    assert model.providers == ["CPUExecutionProvider"]


def test_vectors_are_unit_length(model: EmbeddingModel) -> None:
    vectors = model.embed(["Hello world.", "Cove runs models on your own computer."])
    assert len(vectors) == 2
    for vector in vectors:
        assert len(vector) == 384
        assert all(isinstance(x, float) for x in vector)
        assert math.isclose(math.sqrt(sum(x * x for x in vector)), 1.0, abs_tol=1e-5)


def test_similar_sentences_score_higher(model: EmbeddingModel) -> None:
    eating, bread, baby = model.embed(
        [
            "A man is eating food.",
            "A man is eating a piece of bread.",
            "The girl is carrying a baby.",
        ]
    )
    assert cosine(eating, bread) > cosine(eating, baby) + 0.3
    assert math.isclose(cosine(eating, eating), 1.0, abs_tol=1e-5)


def test_batch_equals_one_by_one_and_keeps_order(model: EmbeddingModel) -> None:
    texts = [
        "A much longer sentence about the weather, the mountains, and a walk along the river "
        "on a cold morning in early spring, with a dog that will not stop barking.",
        "Short.",
        "",
        "Medium length text about embeddings and search.",
        "x " * 40,
        "Another short one.",
    ]
    together = model.embed(texts, batch_size=4)
    alone = [model.embed([text])[0] for text in texts]
    for got, want in zip(together, alone, strict=True):
        assert max(abs(a - b) for a, b in zip(got, want, strict=True)) < 1e-5
    # Distinct texts give distinct vectors, so equality above also proves the order.
    assert cosine(together[0], together[1]) < 0.99


def test_empty_inputs(model: EmbeddingModel) -> None:
    assert model.embed([]) == []
    (vector,) = model.embed([""])
    assert len(vector) == 384
    assert math.isclose(math.sqrt(sum(x * x for x in vector)), 1.0, abs_tol=1e-5)


def test_long_text_is_truncated(model: EmbeddingModel) -> None:
    head = "The river runs through the old town. "
    long_text = head * 400
    assert model.count_tokens(long_text) > model.max_tokens
    (vector,) = model.embed([long_text])
    assert len(vector) == 384
    # Only the first max_tokens tokens count, so a longer tail changes nothing.
    (longer,) = model.embed([long_text + "Completely different words at the end. " * 50])
    assert max(abs(a - b) for a, b in zip(vector, longer, strict=True)) < 1e-5


def test_count_tokens_includes_special_tokens(model: EmbeddingModel) -> None:
    assert model.count_tokens("") == 2  # [CLS] [SEP]
    assert model.count_tokens("hello world") == 4


def test_bad_arguments(model: EmbeddingModel) -> None:
    with pytest.raises(TypeError, match="sequence of texts"):
        model.embed("not a list")
    with pytest.raises(ValueError, match="batch_size"):
        model.embed(["a"], batch_size=0)


def test_explicit_threads_and_close(folder: Path) -> None:
    with EmbeddingModel.load(folder, threads=1) as m:
        assert len(m.embed(["one thread"])[0]) == 384
    with pytest.raises(EngineError, match="was closed"):
        m.embed(["after close"])


def test_recognises_folders(folder: Path, shared_models: Path, tmp_path: Path) -> None:
    assert is_embedding_folder(folder)
    assert not is_embedding_folder(tmp_path)
    assert not is_embedding_folder(folder / "model.onnx")
    chat = shared_models / "smollm2-135m-instruct-onnx-int4-cpu"
    if chat.is_dir():
        assert not is_embedding_folder(chat)
        with pytest.raises(ModelLoadError, match="chat model"):
            EmbeddingModel.load(chat)


def test_missing_folder(tmp_path: Path) -> None:
    with pytest.raises(ModelLoadError, match="No embedding model folder"):
        EmbeddingModel.load(tmp_path / "nowhere")


@pytest.mark.parametrize("name", ["model.onnx", "tokenizer.json", "pooling_config.json"])
def test_missing_file(copy: Path, name: str) -> None:
    (copy / name).unlink()
    assert not is_embedding_folder(copy)
    with pytest.raises(ModelLoadError, match=rf"missing {name}.*download the model again"):
        EmbeddingModel.load(copy)


def test_random_bytes_model(copy: Path) -> None:
    (copy / "model.onnx").write_bytes(bytes(range(256)) * 64)
    with pytest.raises(ModelLoadError, match=r"cannot load .*download the model again"):
        EmbeddingModel.load(copy)


def test_truncated_model(copy: Path) -> None:
    path = copy / "model.onnx"
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 3])
    with pytest.raises(ModelLoadError, match="download the model again"):
        EmbeddingModel.load(copy)


def test_empty_model_file(copy: Path) -> None:
    (copy / "model.onnx").write_bytes(b"")
    with pytest.raises(ModelLoadError):
        EmbeddingModel.load(copy)


def test_corrupt_tokenizer(copy: Path) -> None:
    path = copy / "tokenizer.json"
    path.write_text(path.read_text(encoding="utf-8")[:5000], encoding="utf-8")
    with pytest.raises(ModelLoadError, match=r"tokenizer .* cannot be read"):
        EmbeddingModel.load(copy)


def test_tokenizer_that_is_not_a_tokenizer(copy: Path) -> None:
    (copy / "tokenizer.json").write_text('{"hello": "world"}', encoding="utf-8")
    with pytest.raises(ModelLoadError, match=r"tokenizer .* cannot be read"):
        EmbeddingModel.load(copy)


def test_corrupt_settings(copy: Path) -> None:
    (copy / "tokenizer_config.json").write_bytes(b"\x00\xff garbage")
    with pytest.raises(ModelLoadError, match="damaged"):
        EmbeddingModel.load(copy)


def test_unsupported_pooling(copy: Path) -> None:
    (copy / "pooling_config.json").write_text(
        '{"pooling_mode_max_tokens": true, "pooling_mode_mean_tokens": false}', encoding="utf-8"
    )
    with pytest.raises(ModelLoadError, match="max pooling"):
        EmbeddingModel.load(copy)


def test_importing_embeddings_loads_no_runtime() -> None:
    import subprocess
    import sys

    code = (
        "import sys, engine.documents.embeddings; "
        "bad = [m for m in ('onnxruntime', 'tokenizers', 'numpy') if m in sys.modules]; "
        "print(bad); sys.exit(1 if bad else 0)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
