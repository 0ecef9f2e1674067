"""``cove pull``, ``cove models``, ``cove rm`` and fit-before-download, end to end against a
loopback hub: real processes, a real SIGKILL, real files."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest

from engine.advice.remote_gguf import plan_remote, read_remote_gguf
from engine.errors import ModelInUse, ModelLoadError
from engine.formats.gguf import read_gguf
from engine.hub.api import Hub, HubConfig
from engine.library.installed import remove_model, scan_models
from engine.library.layout import state_path, target_path
from engine.library.names import resolve_model
from engine.library.partial import PartialState, list_partials
from engine.planner.gguf import make_plan
from engine.planner.plan import Device, Resources
from tests.cove_process import ROOT, run_cove
from tests.support.fake_hub import FakeHub, random_bytes
from tests.support.gguf_bytes import synthetic

REPO = "acme/Tiny-GGUF"
MIB = 1 << 20
WAIT_S = 120.0  # guards against a hang; nothing here measures time
RESOURCES = Resources(cpu=Device("CPU RAM", "cpu", 8 << 30, 16 << 30), gpus=(), threads=2)


def gguf_blob(size: int, seed: int) -> bytes:
    head = synthetic()  # a valid header; trailing bytes after the tensors are allowed
    return head + random_bytes(size - len(head), seed)


@pytest.fixture
def hub() -> Iterator[FakeHub]:
    with FakeHub() as fake:
        fake.add(REPO, "tiny-Q8_0.gguf", gguf_blob(3 * MIB, 1))
        fake.add(REPO, "tiny-Q4_K_M.gguf", gguf_blob(6 * MIB, 2))
        fake.add(REPO, "README.md", b"# tiny\n", lfs=False)
        yield fake


@pytest.fixture
def env(hub: FakeHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    values = {
        "HF_ENDPOINT": hub.endpoint,
        "COVE_DATA_DIR": str(tmp_path / "data"),
        "COVE_MODELS_DIR": str(tmp_path / "models"),
    }
    for key, value in values.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("HF_TOKEN", raising=False)
    return {**os.environ, **values, "PYTHONPATH": str(ROOT)}


cove = partial(run_cove, timeout=WAIT_S)


def test_pull_picks_q4_k_m_installs_it_and_every_command_finds_it_by_name(
    hub: FakeHub, env: dict[str, str], tmp_path: Path
) -> None:
    pulled = cove(env, "pull", REPO, "--json")
    assert pulled.returncode == 0, pulled.stderr
    result = json.loads(pulled.stdout)
    assert result["status"] == "done" and result["model"] == f"{REPO}/tiny-Q4_K_M.gguf"
    path = Path(result["path"])
    assert path == target_path(tmp_path / "models", REPO, "tiny-Q4_K_M.gguf")
    assert (
        hashlib.sha256(path.read_bytes()).hexdigest()
        == hub.state.files[(REPO, "tiny-Q4_K_M.gguf")].sha256
    )

    listed = json.loads(cove(env, "models", "--json").stdout)
    entry = next(e for e in listed["installed"] if e["path"] == str(path))
    assert entry["repo"] == REPO and entry["format"] == "GGUF" and entry["size_bytes"] == 6 * MIB
    for name in (f"{REPO}/tiny-Q4_K_M.gguf", "tiny-Q4_K_M", "tiny-Q4_K_M.gguf", REPO):
        assert resolve_model(name) == path
    planned = cove(env, "plan", "tiny-Q4_K_M", "--json")
    assert planned.returncode == 0, planned.stderr
    assert json.loads(planned.stdout)["model"] == str(path)

    again = cove(env, "pull", f"{REPO}/tiny-Q4_K_M.gguf", "--json")  # installed: no bytes
    assert again.returncode == 0 and hub.state.bytes_served() == 6 * MIB

    removed = cove(env, "rm", "tiny-Q4_K_M", "--json")
    assert removed.returncode == 0, removed.stderr
    assert json.loads(removed.stdout)["freed_bytes"] >= 6 * MIB - 4096
    assert not path.exists() and not path.parent.exists()


def test_pull_with_quant_and_errors_that_say_what_to_do(env: dict[str, str]) -> None:
    pulled = cove(env, "pull", REPO, "--quant", "q8_0")
    assert pulled.returncode == 0, pulled.stderr
    assert "tiny-Q8_0.gguf" in pulled.stdout and "cove chat --model" in pulled.stdout
    missing = cove(env, "pull", REPO, "--quant", "Q2_K")
    assert missing.returncode == 1 and "Q4_K_M, Q8_0" in missing.stderr
    unknown = cove(env, "pull", "llama3")
    assert unknown.returncode == 1 and "owner/repo" in unknown.stderr
    assert "Traceback" not in missing.stderr + unknown.stderr


def test_a_killed_pull_resumes_without_fetching_its_finished_parts_again(
    hub: FakeHub, env: dict[str, str], tmp_path: Path
) -> None:
    file = "tiny-Q4_K_M.gguf"
    target = target_path(tmp_path / "models", REPO, file)
    hub.state.hold_from = 3 * MIB  # the first three 1 MiB parts arrive, the rest wait
    proc = subprocess.Popen(
        [sys.executable, "-m", "engine.cli", "pull", f"{REPO}/{file}"],
        env=env,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        saved = _wait_for_saved_parts(state_path(target), 3, proc)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(WAIT_S)
    done = [(p.start, p.end) for p in saved.parts if p.complete]
    assert len(done) >= 3
    hub.state.hold_from = None
    hub.state.release.set()
    first_run = len(hub.state.served)

    resumed = cove(env, "pull", f"{REPO}/{file}", "--json")
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout)["resumed_bytes"] >= sum(e - s for s, e in done)
    again = hub.state.served[first_run:]
    assert again, "the resumed pull fetched nothing"
    for request in again:  # no byte of a finished part is asked for again
        assert all(request.end <= s or request.start >= e for s, e in done), request
    data = hub.state.files[(REPO, file)]
    assert hashlib.sha256(target.read_bytes()).hexdigest() == data.sha256


def _wait_for_saved_parts(path: Path, count: int, proc: subprocess.Popen[bytes]) -> PartialState:
    """Poll the download's own progress file until it records ``count`` finished parts."""
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            state = PartialState.from_json(json.loads(path.read_text()))
        except (OSError, ValueError):
            state = None
        if state is not None and sum(p.complete for p in state.parts) >= count:
            return state
        time.sleep(0.05)
    raise AssertionError(f"the pull never saved {count} finished parts (exit {proc.poll()})")


def test_partial_downloads_are_listed_and_discarded(
    hub: FakeHub, env: dict[str, str], tmp_path: Path
) -> None:
    hub.state.hold_from = 2 * MIB
    proc = subprocess.Popen(
        [sys.executable, "-m", "engine.cli", "pull", f"{REPO}/tiny-Q4_K_M.gguf"],
        env=env,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    target = target_path(tmp_path / "models", REPO, "tiny-Q4_K_M.gguf")
    try:
        _wait_for_saved_parts(state_path(target), 2, proc)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(WAIT_S)
    listed = json.loads(cove(env, "models", "--json").stdout)
    assert [p["model"] for p in listed["partial"]] == [f"{REPO}/tiny-Q4_K_M.gguf"]
    assert listed["partial"][0]["downloaded_bytes"] >= 2 * MIB
    discarded = cove(env, "rm", f"{REPO}/tiny-Q4_K_M.gguf", "--json")
    assert discarded.returncode == 0 and json.loads(discarded.stdout)["partial"] is True
    assert list_partials(tmp_path / "models") == []


def test_a_loaded_model_is_not_deleted(env: dict[str, str], tmp_path: Path) -> None:
    assert cove(env, "pull", REPO).returncode == 0
    path = target_path(tmp_path / "models", REPO, "tiny-Q4_K_M.gguf")
    # The runtime maps a loaded model's file; another process mapping it is "loaded" to Cove.
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import mmap, sys; f = open(sys.argv[1], 'rb'); "
            "m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ); print('mapped', flush=True); "
            "sys.stdin.read()",
            str(path),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "mapped"
        with pytest.raises(ModelInUse) as refused:
            remove_model("tiny-Q4_K_M", tmp_path / "models")
        assert str(holder.pid) in str(refused.value)
        assert path.exists()
    finally:
        holder.communicate("", timeout=WAIT_S)
    assert remove_model("tiny-Q4_K_M", tmp_path / "models").freed_bytes > 0
    assert not any(e.path == path for e in scan_models(tmp_path / "models"))


def test_fit_before_download_reads_only_the_header_and_plans_like_a_local_file(
    starter: Path, tmp_path: Path
) -> None:
    with FakeHub() as fake:
        fake.add("acme/SmolLM2", "smol.Q4_1.gguf", starter)
        fake.add("acme/SmolLM2", "broken.gguf", b"GGUF" + random_bytes(4 * MIB)[4:])
        with Hub(HubConfig(endpoint=fake.endpoint)) as hub:
            header, plan = plan_remote(hub, "acme/SmolLM2", "smol.Q4_1.gguf", resources=RESOURCES)
            assert header.size == starter.stat().st_size
            assert header.fetched_bytes < header.size // 10  # a few MB, never the weights
            local = make_plan(read_gguf(starter), RESOURCES)
            assert (plan.verdict, plan.n_ctx, plan.total_bytes) == (
                local.verdict,
                local.n_ctx,
                local.total_bytes,
            )
            assert header.info.summary() == read_gguf(starter).summary()
            with pytest.raises(ModelLoadError) as bad:
                read_remote_gguf(hub, "acme/SmolLM2", "broken.gguf")
            assert "acme/SmolLM2/broken.gguf" in str(bad.value)
    assert plan.model.endswith("smol.Q4_1.gguf")


def test_cove_plan_on_a_hub_file_shows_the_verdict(env: dict[str, str], hub: FakeHub) -> None:
    planned = cove(env, "plan", f"{REPO}/tiny-Q8_0.gguf")
    assert planned.returncode == 0, planned.stderr
    assert "Verdict" in planned.stdout and "nothing was downloaded" in planned.stdout
    assert hub.state.bytes_served() < 3 * MIB


def test_no_network_is_a_clear_error_and_local_commands_still_work(
    env: dict[str, str], tmp_path: Path
) -> None:
    with FakeHub() as gone:
        endpoint = gone.endpoint  # nothing listens there any more
    offline = {**env, "HF_ENDPOINT": endpoint}
    pulled = cove(offline, "pull", REPO)
    assert pulled.returncode == 1
    assert "Cannot reach" in pulled.stderr and "Traceback" not in pulled.stderr
    listed = cove(offline, "models", "--json")
    assert listed.returncode == 0 and json.loads(listed.stdout)["partial"] == []
