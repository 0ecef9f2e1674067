"""``cove search`` and ``cove pull CATALOG_ID`` end to end against the loopback hub: a catalog
whose builds live there (a GGUF repository and an onnxruntime-genai repository with per-device
folders), real processes, real files, and the real runtimes on what was downloaded."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest

from engine.errors import DownloadError
from engine.hub.api import Hub, HubConfig
from engine.hub.small_file import fetch_git_file
from engine.library.builds import install_path
from engine.library.catalog import load_catalog
from engine.library.names import resolve_model
from tests.conftest import CAPITAL_QUESTION, SYSTEM_PROMPT
from tests.cove_process import ROOT, run_cove
from tests.support.catalog_hub import GGUF_REPO, MIB, ONNX_REPO, entry, hub_with_builds
from tests.support.fake_hub import FakeHub

WAIT_S = 240.0  # guards against a hang; nothing here measures time


@pytest.fixture
def hub() -> Iterator[FakeHub]:
    with hub_with_builds() as fake:
        yield fake


@pytest.fixture
def env(hub: FakeHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    catalog = tmp_path / "catalog.json"
    files = {"Q4_K_M": "tiny-chat-Q4_K_M.gguf", "Q8_0": "tiny-chat-Q8_0.gguf"}
    models = [entry("tiny-chat", GGUF_REPO, ONNX_REPO, files)]
    catalog.write_text(json.dumps({"schema": 1, "models": models}), encoding="utf-8")
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


cove = partial(run_cove, timeout=WAIT_S)


def test_search_lists_the_catalog_with_a_choice_and_the_hubs_files_with_fit(
    hub: FakeHub, env: dict[str, str]
) -> None:
    found = cove(env, "search", "tiny", "chat", "--json")
    assert found.returncode == 0, found.stderr
    data = json.loads(found.stdout)
    (item,) = data["catalog"]
    assert item["id"] == "tiny-chat"
    # This machine has no GPU and no NPU: the best GGUF that fits, on the CPU, sizes from the hub.
    assert item["recommended"] == f"{GGUF_REPO}/tiny-chat-Q8_0.gguf"
    # With the speed this machine's probe measured: the predicted speed, then the fit.
    assert re.match(r"Q8_0 on the CPU: about [\d,]+(\.\d)? tokens/s here, in ", item["reason"])
    q8 = next(o for o in item["options"] if o["label"] == "Q8_0")
    assert q8["predicted_decode_tps"] > 0 and q8["predicted_prompt_tps"] > 0
    sizes = {o["label"]: (o["size_bytes"], o["size_exact"]) for o in item["options"]}
    assert sizes["Q8_0"] == (3 * MIB, True)
    onnx_size = MIB + 2 * MIB + len(b'{"model": {}}') + len(b'{"version": "1.0"}')
    assert sizes["ONNX cpu-int4"] == (onnx_size, True)
    qnn = next(o for o in item["options"] if o["target"] == "qnn-npu")
    assert qnn["why_not"] and "QNN" in qnn["why_not"]
    repos = {h["repo"]: h for h in data["hub"]}
    assert set(repos) == {GGUF_REPO, ONNX_REPO}
    builds = [(f["file"], f["size_bytes"]) for f in repos[ONNX_REPO]["files"]]
    assert builds == [("cpu_and_mobile/cpu-int4", onnx_size), ("npu/qnn", MIB + 2)]
    gguf = repos[GGUF_REPO]
    assert [(f["quant"], f["size_bytes"], f["fit"]) for f in gguf["files"]] == [
        ("Q4_K_M", 2 * MIB, "fits"),
        ("Q8_0", 3 * MIB, "fits"),
    ]
    assert data["hub_error"] is None
    # The text form says the same in words.
    text = cove(env, "search", "tiny")
    assert text.returncode == 0, text.stderr
    assert "tiny-chat" in text.stdout and "Q8_0 on the CPU" in text.stdout
    assert "Q4_K_M" in text.stdout and "fits" in text.stdout


def test_search_works_offline_from_the_cache_and_says_the_hub_is_unreachable(
    hub: FakeHub, env: dict[str, str]
) -> None:
    assert cove(env, "search", "tiny").returncode == 0  # online once: listings cached
    with FakeHub() as gone:
        endpoint = gone.endpoint
    offline = {**env, "HF_ENDPOINT": endpoint}
    found = cove(offline, "search", "tiny", "--json")
    assert found.returncode == 0, found.stderr
    data = json.loads(found.stdout)
    assert data["hub_error_code"] == "network_unavailable"
    assert "Cannot reach" in data["hub_error"]
    (item,) = data["catalog"]
    assert all(o["size_exact"] for o in item["options"] if o["format"] != "onnx" or o["fits"])
    nothing = cove(offline, "search", "no-such-model")
    assert nothing.returncode == 1 and "Cannot reach" in nothing.stderr
    assert "Traceback" not in nothing.stderr


def test_pull_by_catalog_id_installs_the_recommended_build_and_chat_finds_it_by_id(
    hub: FakeHub, env: dict[str, str], tmp_path: Path
) -> None:
    pulled = cove(env, "pull", "tiny-chat", "--json")
    assert pulled.returncode == 0, pulled.stderr
    result = json.loads(pulled.stdout)
    assert result["catalog_id"] == "tiny-chat" and result["status"] == "done"
    assert result["variant"] == f"{GGUF_REPO}/tiny-chat-Q8_0.gguf"
    assert result["reason"].startswith("Q8_0 on the CPU")
    path = Path(result["path"])
    expected = hub.state.files[(GGUF_REPO, "tiny-chat-Q8_0.gguf")].sha256
    assert hashlib.sha256(path.read_bytes()).hexdigest() == expected
    assert resolve_model("tiny-chat") == path
    planned = cove(env, "plan", "tiny-chat", "--json")
    assert planned.returncode == 0, planned.stderr
    assert json.loads(planned.stdout)["model"] == str(path)


def test_pull_an_onnx_folder_build_verifies_every_file_and_installs_a_model_folder(
    hub: FakeHub, env: dict[str, str], tmp_path: Path
) -> None:
    pulled = cove(env, "pull", "tiny-chat", "--quant", "cpu-int4", "--json")
    assert pulled.returncode == 0, pulled.stderr
    result = json.loads(pulled.stdout)
    folder = Path(result["path"])
    variant = load_catalog().get("tiny-chat").variant("cpu-int4")  # type: ignore[union-attr]
    assert variant is not None and folder == install_path(tmp_path / "models", variant)
    assert sorted(p.name for p in folder.iterdir()) == [
        "genai_config.json",
        "model.onnx",
        "model.onnx.data",
        "tokenizer.json",
    ]
    # genai_config.json, which makes the folder a model, was installed last.
    assert [f["model"].rsplit("/", 1)[-1] for f in result["files"]][-1] == "genai_config.json"
    for name in ("model.onnx", "model.onnx.data", "genai_config.json"):
        served = hub.state.files[(ONNX_REPO, f"cpu_and_mobile/cpu-int4/{name}")]
        assert hashlib.sha256((folder / name).read_bytes()).hexdigest() == served.sha256
    listed = json.loads(cove(env, "models", "--json").stdout)
    onnx = next(e for e in listed["installed"] if e["path"] == str(folder))
    assert onnx["format"] == "ONNX" and onnx["repo"] == ONNX_REPO
    assert resolve_model(onnx["model"]) == folder
    missing = cove(env, "pull", "tiny-chat", "--quant", "Q2_K")
    assert missing.returncode == 1 and "has no Q2_K build" in missing.stderr
    removed = cove(env, "rm", onnx["model"], "--json")
    assert removed.returncode == 0, removed.stderr
    assert not folder.exists()


def test_pull_an_onnx_build_outside_the_catalog_by_its_folder(
    hub: FakeHub, env: dict[str, str], tmp_path: Path
) -> None:
    models = tmp_path / "models"
    pulled = cove(env, "pull", f"{ONNX_REPO}/npu/qnn", "--json")
    assert pulled.returncode == 0, pulled.stderr
    folder = Path(json.loads(pulled.stdout)["path"])
    assert folder == models / "acme__Tiny-Chat-onnx" / "npu__qnn"
    assert sorted(p.name for p in folder.iterdir()) == ["genai_config.json", "model.onnx"]
    root = cove(env, "pull", "acme/Root-onnx", "--json")
    assert root.returncode == 0, root.stderr
    assert Path(json.loads(root.stdout)["path"]) == models / "acme__Root-onnx" / "model"
    which = cove(env, "pull", ONNX_REPO)
    assert which.returncode == 1
    assert f"{ONNX_REPO}/cpu_and_mobile/cpu-int4, {ONNX_REPO}/npu/qnn" in which.stderr


def test_a_small_git_file_that_arrives_damaged_is_not_installed(
    hub: FakeHub, tmp_path: Path
) -> None:
    path = "cpu_and_mobile/cpu-int4/genai_config.json"
    with Hub(HubConfig(endpoint=hub.endpoint)) as client:
        (item,) = [f for f in client.list_files(ONNX_REPO) if f.path == path]
        assert item.sha256 is None and item.blob_oid is not None
        target = tmp_path / "out" / "genai_config.json"
        assert item.blob_oid is not None
        where = (client, ONNX_REPO, path, "main", item.blob_oid, target)
        assert fetch_git_file(*where) == item.size
        target.unlink()
        hub.state.files[(ONNX_REPO, path)].source = b'{"model": {"evil": 1}}'
        with pytest.raises(DownloadError, match="damaged"):
            fetch_git_file(*where)
    assert not target.exists() and list(target.parent.iterdir()) == []


def test_a_gated_catalog_build_says_it_needs_a_token_and_works_with_one(
    hub: FakeHub, env: dict[str, str]
) -> None:
    hub.state.gated.add(GGUF_REPO)
    refused = cove(env, "pull", "tiny-chat", "--quant", "Q4_K_M")
    assert refused.returncode == 1
    assert "token" in refused.stderr and "HF_TOKEN" in refused.stderr
    allowed = cove({**env, "HF_TOKEN": hub.state.token}, "pull", "tiny-chat", "--quant", "Q4_K_M")
    assert allowed.returncode == 0, allowed.stderr


@pytest.mark.slow
def test_pulled_real_models_chat_by_catalog_id(
    starter: Path, shared_models: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The real starter GGUF and the real ONNX build, served by the hub and pulled by catalog id,
    answer through llama.cpp and onnxruntime-genai."""
    onnx_src = shared_models / "smollm2-135m-instruct-onnx-int4-cpu"
    with FakeHub() as fake:
        fake.add("acme/SmolLM2-GGUF", "smollm2-135m-instruct-Q4_1.gguf", starter)
        for f in sorted(onnx_src.iterdir()):
            small = f.suffix in (".json", ".jinja")
            fake.add(
                "acme/SmolLM2-onnx", f"cpu/{f.name}", f.read_bytes() if small else f, lfs=not small
            )
        raw = entry("smollm2-real", "acme/SmolLM2-GGUF", "acme/SmolLM2-onnx", {})
        raw["variants"] = [
            {
                "format": "gguf",
                "repo": "acme/SmolLM2-GGUF",
                "file": "smollm2-135m-instruct-Q4_1.gguf",
                "quant": "Q4_1",
            },
            {"format": "onnx", "repo": "acme/SmolLM2-onnx", "folder": "cpu"}
            | {"target": "cpu-int4", "provider": "cpu"},
        ]
        raw["arch"] = {"layers": 30, "heads": 9, "kv_heads": 3, "head_dim": 64}
        raw["arch"] |= {"embedding": 576, "ffn": 1536, "vocab": 49152}
        catalog = tmp_path / "catalog.json"
        catalog.write_text(json.dumps({"schema": 1, "models": [raw]}), encoding="utf-8")
        env = {
            **os.environ,
            "HF_ENDPOINT": fake.endpoint,
            "COVE_DATA_DIR": str(tmp_path / "data"),
            "COVE_MODELS_DIR": str(tmp_path / "models"),
            "COVE_CATALOG": str(catalog),
            "PYTHONPATH": str(ROOT),
        }
        env.pop("HF_TOKEN", None)
        for quant in ("Q4_1", "cpu-int4"):
            pulled = cove(env, "pull", "smollm2-real", "--quant", quant, "--json")
            assert pulled.returncode == 0, pulled.stderr
    prompt = ("--system", SYSTEM_PROMPT, CAPITAL_QUESTION)
    args = ("--temperature", "0", "--max-tokens", "12")
    by_id = cove(env, "chat", "--model", "smollm2-real", *args, *prompt)
    assert by_id.returncode == 0, by_id.stderr
    assert "paris" in by_id.stdout.lower()
    folder = tmp_path / "models" / "acme__SmolLM2-onnx" / "cpu"
    by_folder = cove(env, "chat", "--model", "acme/SmolLM2-onnx/cpu", *args, *prompt)
    assert by_folder.returncode == 0, by_folder.stderr
    assert "paris" in by_folder.stdout.lower()
    shutil.rmtree(folder)


@pytest.mark.slow
def test_the_catalogs_embedding_model_installs_as_a_folder_the_encoder_loads(
    shared_models: Path, tmp_path: Path
) -> None:
    """all-MiniLM-L6-v2 by its catalog id, laid out on the hub as sentence-transformers keeps it
    (the graph in onnx/, the pooling settings in 1_Pooling/config.json), embeds like the copy
    the tests use."""
    from engine.documents.embeddings import EmbeddingModel

    source = shared_models / "all-minilm-l6-v2-onnx"
    repo = "sentence-transformers/all-MiniLM-L6-v2"
    with FakeHub() as fake:
        fake.add(repo, "onnx/model.onnx", source / "model.onnx")
        fake.add(repo, "tokenizer.json", (source / "tokenizer.json").read_bytes())
        fake.add(repo, "tokenizer_config.json", (source / "tokenizer_config.json").read_bytes())
        fake.add(repo, "config.json", b'{"model_type": "bert"}', lfs=False)
        pooling = (source / "pooling_config.json").read_bytes()
        fake.add(repo, "1_Pooling/config.json", pooling, lfs=False)
        env = {
            **os.environ,
            "HF_ENDPOINT": fake.endpoint,
            "COVE_DATA_DIR": str(tmp_path / "data"),
            "COVE_MODELS_DIR": str(tmp_path / "models"),
            "PYTHONPATH": str(ROOT),
        }
        for key in ("HF_TOKEN", "COVE_CATALOG"):
            env.pop(key, None)
        pulled = cove(env, "pull", "all-minilm-l6-v2", "--json")
    assert pulled.returncode == 0, pulled.stderr
    folder = Path(json.loads(pulled.stdout)["path"])
    assert (folder / "pooling_config.json").read_bytes() == pooling
    sentence = ["Where is the lighthouse keeper's logbook?"]
    with EmbeddingModel.load(folder) as pulled_model, EmbeddingModel.load(source) as reference:
        got, want = pulled_model.embed(sentence)[0], reference.embed(sentence)[0]
    assert max(abs(a - b) for a, b in zip(got, want, strict=True)) < 1e-6
