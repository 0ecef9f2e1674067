"""No network at all (a network namespace with only loopback, the real hub's address): the library's
commands say so in words, the catalog still answers, and local commands are unaffected."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine.library.catalog import load_catalog
from tests.e2e.netns import ROOT, can_unshare

WAIT_S = 120.0  # a guard against a hang, not a measurement


def offline(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COVE_DATA_DIR": str(tmp_path / "data"), "PYTHONPATH": str(ROOT)}
    for key in ("HF_ENDPOINT", "HF_TOKEN", "COVE_CATALOG", "COVE_MODELS_DIR"):
        env.pop(key, None)
    cmd = ["unshare", "-n", sys.executable, "-m", "tests.e2e.netns"]
    cmd += [sys.executable, "-m", "engine.cli", *args]
    return subprocess.run(cmd, env=env, cwd=ROOT, capture_output=True, text=True, timeout=WAIT_S)


def test_library_commands_without_any_network(tmp_path: Path) -> None:
    reason = can_unshare()
    if reason is not None:
        pytest.skip(reason)
    chat = next(m for m in load_catalog().models if m.kind == "chat")
    word = chat.name.split()[0]

    found = offline(tmp_path, "search", word, "--json")
    assert found.returncode == 0, found.stderr
    data = json.loads(found.stdout)
    assert data["hub_error_code"] == "network_unavailable"
    assert "Cannot reach" in data["hub_error"] and "offline" in data["hub_error"]
    ids = [item["id"] for item in data["catalog"]]
    assert chat.id in ids
    item = data["catalog"][ids.index(chat.id)]
    assert item["reason"]  # a recommendation from estimated sizes, said to be one
    assert all(not o["size_exact"] for o in item["options"])

    nothing = offline(tmp_path, "search", "no-such-model-anywhere")
    assert nothing.returncode == 1 and "Cannot reach" in nothing.stderr
    assert "Retrying" not in nothing.stderr

    pulled = offline(tmp_path, "pull", chat.id)
    assert pulled.returncode == 1
    assert "Cannot reach" in pulled.stderr and "Traceback" not in pulled.stderr
    file_pull = offline(tmp_path, "pull", "acme/model-GGUF/model-Q4_K_M.gguf")
    assert file_pull.returncode == 1 and "Cannot reach" in file_pull.stderr

    listed = offline(tmp_path, "models", "--json")
    assert listed.returncode == 0, listed.stderr
    assert json.loads(listed.stdout)["partial"] == []
