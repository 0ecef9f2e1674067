"""A catalog vision model end to end against the loopback hub, through real ``cove`` processes:
``cove search`` marks it, ``cove pull`` installs the model and its projector side by side as one
verified install, ``cove models`` lists one vision model (not the projector), ``cove rm`` deletes
both; a projector the hub no longer has fails the pull before any byte, and ``cove pull
owner/repo`` brings the projector a repository ships."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest

from engine.formats.gguf.projector import find_projector
from tests.cove_process import ROOT, run_cove
from tests.engine.vision_files import MODEL, PROJECTOR, REPO, catalog_entry, served
from tests.support.fake_hub import FakeHub

WAIT_S = 240.0  # guards against a hang; nothing here measures time

cove = partial(run_cove, timeout=WAIT_S)


@pytest.fixture
def sources(tmp_path: Path) -> dict[str, bytes]:
    return served(tmp_path / "src", MODEL, PROJECTOR)


@pytest.fixture
def hub(sources: dict[str, bytes]) -> Iterator[FakeHub]:
    with FakeHub() as fake:
        for name, blob in sources.items():
            fake.add(REPO, name, blob)
        yield fake


@pytest.fixture
def env(hub: FakeHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    catalog = tmp_path / "catalog.json"
    catalog.write_text(json.dumps({"schema": 1, "models": [catalog_entry()]}), encoding="utf-8")
    values = {
        "HF_ENDPOINT": hub.endpoint,
        "COVE_DATA_DIR": str(tmp_path / "data"),
        "COVE_MODELS_DIR": str(tmp_path / "models"),
        "COVE_CATALOG": str(catalog),
    }
    for key, value in values.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("HF_TOKEN", raising=False)
    return {**os.environ, **values, "PYTHONPATH": str(ROOT)}


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def test_pull_installs_model_and_projector_as_one_and_rm_deletes_both(
    hub: FakeHub, env: dict[str, str], sources: dict[str, bytes], tmp_path: Path
) -> None:
    found = cove(env, "search", "vision", "--json")
    assert found.returncode == 0, found.stderr
    (item,) = json.loads(found.stdout)["catalog"]
    assert item["id"] == "tiny-vision" and item["vision"] is True
    (option,) = item["options"]
    assert option["vision"] is True and option["projector"] == PROJECTOR
    assert option["size_bytes"] == len(sources[MODEL]) + len(sources[PROJECTOR])

    pulled = cove(env, "pull", "tiny-vision", "--json")
    assert pulled.returncode == 0, pulled.stderr
    result = json.loads(pulled.stdout)
    assert result["status"] == "done" and result["catalog_id"] == "tiny-vision"
    (download,) = result["files"]  # one download: the model, its projector with it
    model, projector = Path(result["path"]), Path(download["projector"])
    assert projector.parent == model.parent and projector.name == PROJECTOR
    assert sha(model.read_bytes()) == sha(sources[MODEL])
    assert sha(projector.read_bytes()) == sha(sources[PROJECTOR])
    assert result["total_bytes"] == len(sources[MODEL]) + len(sources[PROJECTOR])
    assert find_projector(model) == projector  # what the engine loads with it

    listed = json.loads(cove(env, "models", "--json").stdout)
    downloaded = [e for e in listed["installed"] if e["source"] == "folder"]
    assert [(e["path"], e["vision"], e["projector"]) for e in downloaded] == [
        (str(model), True, str(projector))
    ]
    text = cove(env, "models")
    assert "vision: reads images with " + PROJECTOR in text.stdout

    removed = cove(env, "rm", Path(MODEL).stem)
    assert removed.returncode == 0, removed.stderr
    assert "vision projector" in removed.stdout
    assert not model.exists() and not projector.exists()


def test_a_projector_gone_from_the_hub_fails_the_pull_and_says_so(
    hub: FakeHub, env: dict[str, str], tmp_path: Path
) -> None:
    with hub.state.lock:
        del hub.state.files[(REPO, PROJECTOR)]
    pulled = cove(env, "pull", "tiny-vision")
    assert pulled.returncode == 1
    assert "vision projector" in pulled.stderr and PROJECTOR in pulled.stderr
    assert hub.state.bytes_served() == 0
    assert not (tmp_path / "models").exists() or not any((tmp_path / "models").rglob("*.gguf"))


def test_pulling_a_repository_brings_the_projector_it_ships(
    hub: FakeHub, env: dict[str, str], sources: dict[str, bytes]
) -> None:
    pulled = cove(env, "pull", REPO, "--json")
    assert pulled.returncode == 0, pulled.stderr
    result = json.loads(pulled.stdout)
    assert Path(result["path"]).name == MODEL
    assert Path(result["projector"]).name == PROJECTOR
    assert sha(Path(result["projector"]).read_bytes()) == sha(sources[PROJECTOR])
