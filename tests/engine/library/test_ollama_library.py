"""Ollama's ``/api/pull`` and ``/api/delete`` on Cove's own library, against the loopback hub:
a pull streams Ollama's progress lines and installs a verified file that ``/api/tags`` then
lists; the ``ollama`` client's pull and delete work unmodified; unknown names are 404s."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import ollama
import pytest

from engine.client.local import LocalEngine
from tests.support.fake_hub import FakeHub, random_bytes
from tests.support.gguf_bytes import synthetic

REPO = "acme/Tiny-Chat-GGUF"
FILE = "tiny-chat-Q4_K_M.gguf"
MIB = 1 << 20


@pytest.fixture
def host(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[LocalEngine, FakeHub]]:
    with FakeHub() as hub:
        head = synthetic()
        hub.add(REPO, FILE, head + random_bytes(2 * MIB - len(head), 7))
        monkeypatch.setenv("HF_ENDPOINT", hub.endpoint)
        monkeypatch.setenv("COVE_DATA_DIR", str(tmp_path / "data"))
        monkeypatch.setenv("COVE_MODELS_DIR", str(tmp_path / "models"))
        monkeypatch.delenv("HF_TOKEN", raising=False)
        engine = LocalEngine.start(log_path=tmp_path / "engine.log")
        try:
            yield engine, hub
        finally:
            engine.stop()
            engine.client.close()


def test_pull_streams_progress_and_installs_a_verified_file(
    host: tuple[LocalEngine, FakeHub],
) -> None:
    engine, hub = host
    root = engine.base_url[: -len("/v1")]
    headers = {"Authorization": f"Bearer {engine._token}"}
    with httpx.stream("POST", f"{root}/api/pull", json={"model": REPO}, headers=headers,
                      timeout=300) as r:  # fmt: skip
        assert r.status_code == 200
        lines = [json.loads(line) for line in r.iter_lines() if line.strip()]
    assert lines[0] == {"status": "pulling manifest"} and lines[-1] == {"status": "success"}
    progress = [line for line in lines if "completed" in line]
    assert progress and progress[-1]["completed"] == progress[-1]["total"] == 2 * MIB
    client = ollama.Client(host=root, headers=headers)
    listed = [m.model for m in client.list().models]
    assert FILE in listed
    installed = next(Path(engine_dir) for engine_dir in _model_files(FILE))
    assert (
        hashlib.sha256(installed.read_bytes()).hexdigest() == hub.state.files[(REPO, FILE)].sha256
    )

    # The client's own pull (not streamed) of what is there, then delete.
    assert client.pull(REPO, stream=False).status == "success"
    client.delete(FILE)
    assert FILE not in [m.model for m in client.list().models]
    with pytest.raises(ollama.ResponseError) as gone:
        client.delete(FILE)
    assert gone.value.status_code == 404
    with pytest.raises(ollama.ResponseError) as missing:
        client.pull("acme/No-Such-GGUF", stream=False)
    assert missing.value.status_code == 404


def _model_files(name: str) -> Iterator[Path]:
    import os

    yield from Path(os.environ["COVE_MODELS_DIR"]).rglob(name)
