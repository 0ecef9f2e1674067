"""Serving beyond this computer, on loopback: ``cove serve --lan`` (key, TLS, the fingerprint
pinned on first use and a changed one refused), and one model split across this process and two
``cove worker`` processes (the same temperature-0 text as unsplit; a worker killed mid-reply ends
the reply with an error naming it, and the server stays up and loads the model again)."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import psutil
import pytest

from engine.errors import CertificateChanged, EngineAuthError
from engine.remote.connect import connect
from engine.remote.pins import forget, pinned, trust
from engine.remote.tunnel import WorkerAddress, worker_info
from engine.types import ChatMessage, GenerationParams
from tests.cove_process import run_cove
from tests.orphans import kill_and_expect_ended, listening_ports
from tests.support.remote_process import ROOT, CoveProcess, free_port

pytestmark = pytest.mark.timeout(600)

POEM = (ChatMessage("user", "Write a short poem about the sea."),)
GREEDY = GenerationParams(temperature=0.0, max_tokens=48, speculation="off")


@pytest.fixture
def client_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """This test process's own data folder: where it pins certificates."""
    folder = tmp_path / "client"
    monkeypatch.setenv("COVE_DATA_DIR", str(folder))
    return folder


def _reply(url: str, key: str, model: str | None = None) -> str:
    client = connect(url, key).client
    try:
        parts = []
        for chunk in client.chat(list(POEM), GREEDY):
            assert chunk.error is None, chunk.error
            parts.append(chunk.text)
        return "".join(parts)
    finally:
        client.close()


# -- cove serve --lan -------------------------------------------------------------------------


def test_lan_serve_prints_key_and_fingerprint_and_pins_it(
    tmp_path: Path, client_data: Path
) -> None:
    port = free_port()
    server = CoveProcess(tmp_path / "desk", "serve", "--lan", "--host", "127.0.0.1",
                         "--port", str(port))  # fmt: skip
    try:
        key = server.value("key:")
        fingerprint = server.value("fingerprint:")
        server.wait_for("serving on https://")
        assert server.lines.index(f"key: {key}") < server.lines.index(f"fingerprint: {fingerprint}")
        url = f"https://127.0.0.1:{port}/v1"
        first = connect(url, key)
        assert first.trusted is not None and first.trusted.first_use
        assert first.trusted.fingerprint == fingerprint
        # Nothing is loaded; the installed models are listed, each loaded when a request names it.
        assert "starter" in [m.id for m in first.client.list_models()]
        assert pinned() == {f"127.0.0.1:{port}": fingerprint}
        again = connect(url, key)
        assert again.trusted is not None and not again.trusted.first_use
        with pytest.raises(EngineAuthError):
            connect(url, "cove-not-the-key").client.list_models()
        # Plain HTTP to the TLS port gets nothing useful; the key never travels unencrypted.
        with pytest.raises(httpx.HTTPError):
            httpx.get(f"http://127.0.0.1:{port}/v1/models", timeout=10).raise_for_status()
        # Only the key's digest is kept.
        kept = (tmp_path / "desk" / "tls" / "serve-key.json").read_text()
        assert key not in kept
        assert oct((tmp_path / "desk" / "tls" / "cove.key").stat().st_mode & 0o777) == "0o600"
    finally:
        server.stop()
    # A second start keeps the key: it is not shown again.
    again_server = CoveProcess(tmp_path / "desk", "serve", "--lan", "--host", "127.0.0.1",
                               "--port", str(port))  # fmt: skip
    try:
        assert again_server.value("fingerprint:") == fingerprint
        again_server.wait_for("serving on https://")
        assert not any(line.startswith("key:") for line in again_server.lines)
        listed = connect(f"https://127.0.0.1:{port}/v1", key).client.list_models()
        assert "starter" in [m.id for m in listed]
    finally:
        again_server.stop()


def test_changed_certificate_is_refused_until_forgotten(tmp_path: Path, client_data: Path) -> None:
    port = free_port()
    url = f"https://127.0.0.1:{port}/v1"
    first = CoveProcess(tmp_path / "one", "serve", "--lan", "--host", "127.0.0.1",
                        "--port", str(port), "--api-key", "cove-shared-key")  # fmt: skip
    try:
        first.wait_for("serving on https://")
        connect(url, "cove-shared-key").client.list_models()
    finally:
        first.stop()
    # Another machine (another certificate) answers on the same address.
    impostor = CoveProcess(tmp_path / "two", "serve", "--lan", "--host", "127.0.0.1",
                           "--port", str(port), "--api-key", "cove-shared-key")  # fmt: skip
    try:
        impostor.wait_for("serving on https://")
        with pytest.raises(CertificateChanged) as refused:
            connect(url, "cove-shared-key")
        message = str(refused.value)
        assert "has changed" in message and "cove trust --forget" in message
        # The CLI says the same, in one line, and sends nothing.
        env = dict(os.environ, COVE_DATA_DIR=str(client_data))
        out = run_cove(env, "chat", "--engine", url, "--api-key", "cove-shared-key", "hi",
                       timeout=120)  # fmt: skip
        assert out.returncode == 1 and "has changed" in out.stderr
        assert "Traceback" not in out.stderr
        assert forget(f"127.0.0.1:{port}")
        again = connect(url, "cove-shared-key")
        assert again.trusted is not None and again.trusted.first_use
    finally:
        impostor.stop()


def test_network_host_without_a_key_is_refused(tmp_path: Path) -> None:
    env = dict(os.environ, COVE_DATA_DIR=str(tmp_path))
    out = run_cove(env, "serve", "--host", "0.0.0.0", "--port", str(free_port()), timeout=60)
    assert out.returncode != 0
    assert "--lan" in out.stderr and "without a key" in out.stderr


# -- cove worker and a split model ----------------------------------------------------------------


@pytest.fixture
def workers(tmp_path: Path) -> Iterator[list[tuple[CoveProcess, str]]]:
    started: list[tuple[CoveProcess, str]] = []
    try:
        for name in ("left", "right"):
            port = free_port()
            proc = CoveProcess(tmp_path / name, "worker", "--host", "127.0.0.1",
                               "--port", str(port), "--threads", "1")  # fmt: skip
            key = proc.value("key:")
            proc.wait_for("listening:")
            started.append((proc, f"127.0.0.1:{port}={key}"))
        yield started
    finally:
        for proc, _spec in started:
            proc.stop()


def test_worker_prints_its_key_and_fingerprint_first_and_checks_the_key(
    workers: list[tuple[CoveProcess, str]], client_data: Path
) -> None:
    proc, spec = workers[0]
    assert proc.lines[0].startswith("key: ") and proc.lines[1].startswith("fingerprint: ")
    address = WorkerAddress.parse(spec)
    trusted = trust(address.host, address.port)
    assert trusted.fingerprint == proc.value("fingerprint:")
    info = worker_info(address, trusted)
    assert info["free_memory"] > 0 and info["device"]
    wrong = WorkerAddress(address.host, address.port, "cove-wrong")
    with pytest.raises(EngineAuthError):
        worker_info(wrong, trusted)
    proc.wait_for("wrong key")
    # cove plan shows the split cove serve would make, asking the workers, loading nothing.
    env = dict(os.environ, COVE_DATA_DIR=str(client_data))
    out = run_cove(env, "plan", "starter", "--ctx", "1024", "--worker", workers[0][1],
                   "--worker", workers[1][1], "--json", timeout=120)  # fmt: skip
    assert out.returncode == 0, out.stderr
    plan = json.loads(out.stdout)
    assert plan["verdict"] == "fits" and plan["device"].endswith("+ 2 workers")
    assert len(plan["tensor_split"]) == 2 and sum(plan["tensor_split"]) == plan["gpu_layers"]
    assert [b["device"].split(" (")[0] for b in plan["budgets"][1:]] == [
        f"worker {spec.split('=')[0]}" for _proc, spec in workers
    ]
    # The key given once is kept for the next time.
    without_key = workers[0][1].split("=")[0]
    text = run_cove(env, "plan", "starter", "--worker", without_key, timeout=120)
    assert "Layers split by free memory" in text.stdout, text.stderr


def test_a_killed_worker_takes_its_rpc_server_with_it(
    workers: list[tuple[CoveProcess, str]],
) -> None:
    """``cove worker`` ended as a user or the system ends it (SIGKILL of that one process, not
    its group): llama.cpp's RPC server, which answers anyone on its loopback port, ends with it."""
    proc, _spec = workers[0]
    worker = psutil.Process(proc.proc.pid)
    (rpc,) = worker.children()
    ports = listening_ports(rpc)
    assert ports
    kill_and_expect_ended(proc.proc, [rpc], ports, timeout=30)


def test_a_killed_split_server_takes_its_engine_host_with_it(
    tmp_path: Path, workers: list[tuple[CoveProcess, str]], client_data: Path
) -> None:
    """``cove serve --worker`` runs the model in an engine host child: SIGKILL of the serve
    process alone ends the host too (it watches its parent), and nothing is left listening."""
    port = free_port()
    serve = CoveProcess(tmp_path / "split", "serve", "--model", "starter", "--ctx", "1024",
                        "--port", str(port), "--worker", workers[0][1])  # fmt: skip
    try:
        serve.wait_for("serving on http://")
        serve.wait_for("Layers split by free memory")
        front = psutil.Process(serve.proc.pid)
        (host,) = [p for p in front.children() if "engine.host" in " ".join(p.cmdline())]
        listening = listening_ports(host)
        assert listening
        kill_and_expect_ended(serve.proc, [host], (port, *listening))
    finally:
        serve.stop()


# The window's "Let other computers use this engine": cove serve --lan, told to end with it, as
# app/remote/lan_share.py starts it; this stand-in window waits until it is killed.
_WINDOW = """
import os, subprocess, sys, time
subprocess.Popen([sys.executable, "-m", "engine.cli", "serve", "--lan", "--model", "starter",
                  "--ctx", "1024", "--port", sys.argv[1], "--host", "127.0.0.1",
                  "--exit-with-parent", str(os.getpid())])
time.sleep(300)
"""


def test_a_killed_window_takes_its_lan_share_with_it(tmp_path: Path) -> None:
    port = free_port()
    env = dict(os.environ, COVE_DATA_DIR=str(tmp_path / "data"), PYTHONUNBUFFERED="1")
    window = subprocess.Popen(
        [sys.executable, "-c", _WINDOW, str(port)], cwd=ROOT, env=env,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    try:
        assert window.stdout is not None
        for raw in window.stdout:  # until the share serves (or the stand-in ends)
            if b"serving on" in raw:
                break
        (serve,) = psutil.Process(window.pid).children()
        kill_and_expect_ended(window, [serve], [port])
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(window.pid, signal.SIGKILL)
        window.wait(30)


def test_a_worker_s_rpc_server_lost_mid_reply_is_reported_as_the_worker_lost(
    tmp_path: Path, workers: list[tuple[CoveProcess, str]], client_data: Path
) -> None:
    """However a worker is lost, the reply says the same: here only its RPC server dies (the
    worker process lives on and starts another); the reply so far, then the error naming it."""
    port = free_port()
    serve = CoveProcess(tmp_path / "split", "serve", "--model", "starter", "--ctx", "1024",
                        "--api-key", "cove-test-key", "--port", str(port),
                        "--worker", workers[0][1])  # fmt: skip
    try:
        serve.wait_for("serving on http://")
        serve.wait_for("Layers split by free memory")
        client = connect(f"http://127.0.0.1:{port}/v1", "cove-test-key").client
        stream = client.chat(
            [ChatMessage("user", "Tell me a very long story about a dragon.")],
            GenerationParams(temperature=0.0, max_tokens=4000, speculation="off"),
        )
        assert next(stream).text
        (rpc,) = psutil.Process(workers[0][0].proc.pid).children()
        rpc.kill()
        final = list(stream)[-1]
        address = workers[0][1].split("=")[0]
        assert final.finish_reason == "error" and final.error is not None
        assert address in final.error and "mid-reply" in final.error
        serve.wait_for("loading it again when every worker answers")
        client.close()
    finally:
        serve.stop()


def test_split_model_gives_the_unsplit_text_and_survives_a_lost_worker(
    tmp_path: Path, workers: list[tuple[CoveProcess, str]], client_data: Path, starter: Path
) -> None:
    plain_port, split_port = free_port(), free_port()
    common = ("--model", "starter", "--ctx", "1024", "--api-key", "cove-test-key")
    plain = CoveProcess(tmp_path / "plain", "serve", *common, "--port", str(plain_port))
    split = CoveProcess(
        tmp_path / "split", "serve", *common, "--port", str(split_port),
        "--worker", workers[0][1], "--worker", workers[1][1],
    )  # fmt: skip
    try:
        split.wait_for("serving on http://")
        plain.wait_for("serving on http://")
        shown = split.wait_for("Layers split by free memory")
        assert "on 127.0.0.1:" in shown
        # The layers really are on the workers: each served an RPC session.
        for proc, _spec in workers:
            proc.wait_for("uses this machine's")
        # A second Cove is told the worker is busy, instead of waiting unseen behind the first.
        busy = CoveProcess(
            tmp_path / "other", "serve", *common, "--port", str(free_port()),
            "--worker", workers[0][1],
        )  # fmt: skip
        try:
            busy.wait_for("is in use by another Cove (at 127.0.0.1)")
            assert busy.proc.wait(60) == 1
        finally:
            busy.stop()
        expected = _reply(f"http://127.0.0.1:{plain_port}/v1", "cove-test-key")
        assert expected.strip()
        assert _reply(f"http://127.0.0.1:{split_port}/v1", "cove-test-key") == expected

        # A worker killed mid-reply: the reply so far, then an error naming it.
        client = connect(f"http://127.0.0.1:{split_port}/v1", "cove-test-key").client
        stream = client.chat(
            [ChatMessage("user", "Tell me a very long story about a dragon.")],
            GenerationParams(temperature=0.0, max_tokens=4000, speculation="off"),
        )
        first = next(stream)
        assert first.text
        lost_proc, lost_spec = workers[1]
        # As a user or the system ends it: that one process (its RPC server goes with it).
        os.kill(lost_proc.proc.pid, signal.SIGKILL)
        lost_proc.proc.wait(30)
        chunks = list(stream)
        final = chunks[-1]
        assert final.finish_reason == "error"
        lost_address = lost_spec.split("=")[0]
        assert final.error is not None and lost_address in final.error
        assert "mid-reply" in final.error
        # The server stays up and says why the model is unavailable.
        with pytest.raises(Exception) as down:
            client.list_models()
        assert lost_address in str(down.value)
        split.wait_for("loading it again when every worker answers")

        # The worker comes back (same data folder: same key and certificate): the model loads.
        back = CoveProcess(tmp_path / "right", "worker", "--host", "127.0.0.1",
                           "--port", lost_address.split(":")[1], "--threads", "1")  # fmt: skip
        workers.append((back, lost_spec))
        back.wait_for("listening:")
        split.wait_for("the model is loaded again")
        assert _reply(f"http://127.0.0.1:{split_port}/v1", "cove-test-key") == expected
        client.close()
    finally:
        split.stop()
        plain.stop()


def test_split_that_does_not_fit_is_refused_with_the_numbers(starter: Path) -> None:
    """A machine with 300 MiB free and a worker with 64 MiB cannot hold the starter at 8192
    tokens of context (its KV cache alone is 180 MiB)."""
    from engine.backends.loader import current_resources
    from engine.remote.split import WorkerShare, plan_with_workers

    tiny = WorkerShare("127.0.0.1:1", "tiny:50052", free_memory=64 * 2**20, total_memory=2**30)
    resources = current_resources()
    starved = dataclasses.replace(
        resources, cpu=dataclasses.replace(resources.cpu, free_bytes=300 * 2**20), gpus=()
    )
    plan = plan_with_workers("starter", 8192, starved, [tiny])
    assert plan.verdict == "does_not_fit"
    assert any("can hold" in reason for reason in plan.reasons)


def test_unreachable_worker_is_one_clear_line(tmp_path: Path, client_data: Path) -> None:
    env = dict(os.environ, COVE_DATA_DIR=str(client_data))
    out = run_cove(env, "serve", "--model", "starter", "--port", str(free_port()),
                   "--worker", f"127.0.0.1:{free_port()}=cove-some-key", timeout=120)  # fmt: skip
    assert out.returncode == 1
    assert "Cannot reach" in out.stderr and "Traceback" not in out.stderr


def test_worker_needs_its_key(tmp_path: Path) -> None:
    env = dict(os.environ, COVE_DATA_DIR=str(tmp_path))
    out = run_cove(env, "serve", "--model", "starter", "--worker", "127.0.0.1:50052", timeout=60)
    assert out.returncode == 2 and "add the key" in out.stderr


def test_a_worker_with_another_certificate_is_refused(tmp_path: Path, client_data: Path) -> None:
    port = free_port()
    env = dict(os.environ, COVE_DATA_DIR=str(client_data))
    spec = f"127.0.0.1:{port}=cove-worker-key"
    first = CoveProcess(tmp_path / "first", "worker", "--host", "127.0.0.1", "--port", str(port),
                        "--key", "cove-worker-key", "--threads", "1")  # fmt: skip
    try:
        first.wait_for("listening:")
        assert run_cove(env, "plan", "starter", "--worker", spec, timeout=120).returncode == 0
    finally:
        first.stop()
    other = CoveProcess(tmp_path / "other", "worker", "--host", "127.0.0.1", "--port", str(port),
                        "--key", "cove-worker-key", "--threads", "1")  # fmt: skip
    try:
        other.wait_for("listening:")
        for command in (("plan", "starter"), ("serve", "--model", "starter", "--port",
                                              str(free_port()))):  # fmt: skip
            out = run_cove(env, *command, "--worker", spec, timeout=120)
            assert out.returncode == 1
            assert "has changed" in out.stderr and "cove trust --forget" in out.stderr
        assert not any("uses this machine" in line for line in other.lines)
    finally:
        other.stop()
