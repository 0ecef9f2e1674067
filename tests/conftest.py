"""Shared fixtures: the real starter model, and a loaded engine model shared per session."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# Every test starts from a fresh data folder, so every engine host would measure the starter's
# ways to run on its first load; the measuring itself is tested in tests/engine/tuning/.
os.environ.setdefault("COVE_NO_TUNING", "1")
# Nor would every fresh data folder run the starter to calibrate the speed predictions (the
# bandwidth probe still runs; the calibration is tested in tests/engine/speed/).
os.environ.setdefault("COVE_NO_SPEED_CALIBRATION", "1")
# Engine hosts started by tests keep conversations' state in a folder of this run, never in the
# user's data folder (where a later run would find it).
os.environ.setdefault("COVE_STATE_DIR", tempfile.mkdtemp(prefix="cove-state-"))
# Keys the tests keep go to the test's data folder (a 0600 file), never the user's keyring.
os.environ.setdefault("COVE_NO_KEYRING", "1")

from engine.errors import ModelNotFound
from engine.types import ChatMessage, Chunk

SHARED_MODELS = Path(__file__).resolve().parents[2] / "shared" / "models"

# The one question whose answer tests may name. With this system prompt the starter's greedy
# reply says Paris with llama.cpp built for AVX-512 and for AVX2, loaded as the tests load it
# (the planner's way: flash attention on), and with its ONNX build. Without one, its first
# tokens sit on a knife edge that another CPU's SIMD rounding flips ("L'Étoile, la Cité ...");
# flash attention off on AVX2 flips even this one. A test that needs no knowledge checks the
# contract instead.
SYSTEM_PROMPT = "You are a helpful assistant."
CAPITAL_QUESTION = "What is the capital of France?"
CAPITAL = (ChatMessage("system", SYSTEM_PROMPT), ChatMessage("user", CAPITAL_QUESTION))


@pytest.fixture(scope="session")
def starter() -> Path:
    from engine.library.names import starter_path

    try:
        return starter_path()
    except ModelNotFound as exc:
        pytest.skip(str(exc))


@pytest.fixture(scope="session")
def shared_models() -> Path:
    if not SHARED_MODELS.is_dir():
        pytest.skip(f"test models folder {SHARED_MODELS} is absent")
    return SHARED_MODELS


def collect(chunks: Iterable[Chunk]) -> tuple[str, Chunk]:
    """Drain a stream, checking the contract: text chunks, then exactly one terminal chunk."""
    parts: list[str] = []
    final: Chunk | None = None
    for chunk in chunks:
        assert final is None, "a chunk arrived after the terminal chunk"
        if chunk.is_terminal:
            final = chunk
        else:
            assert chunk.text, "non-terminal chunks carry text"
            parts.append(chunk.text)
    assert final is not None, "the stream ended without a terminal chunk"
    return "".join(parts), final


@pytest.fixture
def drain() -> Iterator[object]:
    yield collect


@pytest.fixture(scope="session")
def local_engine(starter: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    """One engine host process for the session, with the starter model (2k context) and, when the
    test models are present, the embedding model loaded."""
    from engine.client.local import LocalEngine

    embedder = SHARED_MODELS / "all-minilm-l6-v2-onnx"
    log = tmp_path_factory.mktemp("host") / "engine.log"
    engine = LocalEngine.start(
        embedding_model=embedder if embedder.is_dir() else None, log_path=log
    )
    engine.client.load("starter", ctx=2048)
    yield engine
    engine.stop()
    engine.client.close()


FETCH_TEST_MODELS = SHARED_MODELS.parent / "tools" / "fetch-test-models.sh"
TOOL_MODEL = "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"


@pytest.fixture(scope="session")
def tool_model() -> Path:
    """Qwen2.5-Coder-0.5B-Instruct (Q4_K_M): a real tool-trained model whose template renders
    tools, assembled by the shared fetch script (cached after the first run)."""
    import subprocess
    import sys

    if not FETCH_TEST_MODELS.is_file():
        pytest.skip(f"{FETCH_TEST_MODELS} is absent: the tool-calling model cannot be assembled")
    done = subprocess.run(
        ["bash", str(FETCH_TEST_MODELS), sys.executable],
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    for line in done.stdout.splitlines():
        name, _, path = line.partition("\t")
        if name == TOOL_MODEL and Path(path).is_file():
            return Path(path)
    pytest.skip(f"{TOOL_MODEL} could not be assembled: {done.stderr.strip()[-300:]}")
