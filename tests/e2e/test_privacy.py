"""Private means private: Cove's real processes, traced, open no connection that leaves the
machine and ask no name server; and they do their work with loopback as the only network.

Each scenario runs from a fresh HOME with every telemetry switch *removed* from the environment
(the test process itself has them set, by importing ``engine``), so what is checked is that Cove
sets them itself, in the processes a user starts.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from engine.privacy import TELEMETRY_OFF
from tests.conftest import CAPITAL_QUESTION, SYSTEM_PROMPT
from tests.e2e import network_trace
from tests.e2e.netns import can_unshare
from tests.support.prerequisites import missing as prerequisite

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT_S = 400
# How long the traced API server keeps serving: past ONNX Runtime's first telemetry upload, which
# looked up its collector about 8-9 s after the server started (measured with strace -tt).
SERVE_LINGER_S = 20

pytestmark = pytest.mark.slow


def scenarios(embedding_model: Path, linger_s: float = 0) -> dict[str, list[str]]:
    cove = [sys.executable, "-m", "app"]
    return {
        "chat": [*cove, "chat", "--temperature", "0", "--max-tokens", "16",
                 "--system", SYSTEM_PROMPT, CAPITAL_QUESTION],
        "serve": [sys.executable, "-m", "tests.e2e.serve_session", str(embedding_model),
                  str(linger_s)],
        "window": [*cove, "--self-test", "--prompt", "What is the capital of France?"],
    }  # fmt: skip


def expected(name: str, out: subprocess.CompletedProcess[str]) -> None:
    """The scenario did its work, not merely exited."""
    assert out.returncode == 0, f"{name} failed:\n{out.stdout}\n{out.stderr[-3000:]}"
    if name == "chat":
        assert "Paris" in out.stdout
    else:
        report = json.loads(out.stdout.strip().splitlines()[-1])
        assert report["ok"] is True, report
        if name == "serve":
            assert report["dimensions"] == 384 and report["reply"]


def clean_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in TELEMETRY_OFF}
    for key in [k for k in env if k.startswith("XDG_")]:
        del env[key]
    env.update(HOME=str(home), QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(ROOT))
    env.pop("COVE_DATA_DIR", None)
    return env


def run(cmd: list[str], home: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        cmd, cwd=ROOT, env=clean_env(home), capture_output=True, text=True, timeout=TIMEOUT_S
    )


def left_behind(home: Path) -> list[str]:
    """Anything a dependency wrote about this machine's use: ONNX Runtime's device identifier and
    event cache live under ~/.cache/Microsoft/DeveloperTools."""
    return [
        str(p.relative_to(home))
        for p in home.rglob("*")
        if "microsoft" in p.name.lower() or "telemetry" in p.name.lower()
    ]


@pytest.fixture(scope="module")
def embedding_model(shared_models: Path, starter: Path) -> Path:
    return shared_models / "all-minilm-l6-v2-onnx"


@pytest.mark.parametrize("name", ["chat", "serve", "window"])
def test_no_connection_leaves_the_machine(name: str, embedding_model: Path, tmp_path: Path) -> None:
    strace = shutil.which("strace")
    if strace is None:
        prerequisite("strace is not installed")
    log = tmp_path / "trace.log"
    home = tmp_path / "home"
    home.mkdir()
    cmd = [strace, "-f", "-qq", "--seccomp-bpf", "-e", f"trace={network_trace.TRACED_CALLS}",
           "-o", str(log), *scenarios(embedding_model, SERVE_LINGER_S)[name]]  # fmt: skip
    out = run(cmd, home)
    expected(name, out)
    connections = network_trace.parse(log.read_text(errors="replace"))
    # The trace saw the process talk to its own engine over loopback: it is really watching.
    assert any(c.family in ("AF_INET", "AF_INET6") for c in connections), "nothing was traced"
    assert network_trace.problems(log) == []
    assert left_behind(home) == []


@pytest.mark.parametrize("name", ["chat", "serve", "window"])
def test_works_with_loopback_as_the_only_network(
    name: str, embedding_model: Path, tmp_path: Path
) -> None:
    reason = can_unshare()
    if reason is not None:
        pytest.skip(reason)
    home = tmp_path / "home"
    home.mkdir()
    cmd = ["unshare", "-n", sys.executable, "-m", "tests.e2e.netns",
           *scenarios(embedding_model)[name]]  # fmt: skip
    expected(name, run(cmd, home))
    assert left_behind(home) == []
