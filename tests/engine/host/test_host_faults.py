"""Faults around the engine host: a host killed mid-reply, a full queue, a host whose app died.
Each test runs its own host process so that killing it harms no other test. How long noticing a
crash and restarting take is measured in bench/bench_faults.py, not asserted here."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from engine.client.local import LocalEngine
from engine.errors import EngineBusy, EngineCrashed
from engine.types import ChatMessage, GenerationParams
from tests.conftest import collect

LONG = GenerationParams(temperature=0.8, seed=3, max_tokens=2000, repeat_penalty=1.0)
STORY = [ChatMessage("user", "Write a very long story about a lighthouse keeper.")]


@pytest.fixture
def engine(starter: Path, tmp_path: Path) -> Iterator[LocalEngine]:
    host = LocalEngine.start(
        log_path=tmp_path / "engine.log", extra_args=("--max-queue", "1", "--parallel", "1")
    )
    host.client.load("starter", ctx=2048)
    yield host
    host.stop()
    host.client.close()


def test_sigkill_mid_stream_raises_engine_crashed_and_restart_recovers(
    engine: LocalEngine,
) -> None:
    pid = engine.pid
    assert pid is not None
    received = 0
    with pytest.raises(EngineCrashed) as info:
        for chunk in engine.client.chat(STORY, LONG):
            received += 1
            if received == 3:
                os.kill(pid, signal.SIGKILL)
            assert not chunk.is_terminal, "the stream must not end normally"
    message = str(info.value)
    # Plain words first; the signal is in the log lines after them.
    head, _sep, log_lines = message.partition(" Its last log lines: ")
    assert head.startswith("The engine stopped unexpectedly") and "out of memory" in head
    assert "SIGKILL" not in head and "SIGKILL" in log_lines
    log = (engine.log_path).read_text(encoding="utf-8")
    assert log.count(f"(pid {pid}) was stopped by SIGKILL") == 1  # once, however often asked
    assert not engine.alive()

    engine.restart()
    assert engine.alive() and engine.pid != pid
    status = engine.client.status()
    assert status.model is not None and status.n_ctx == 2048, "the model was loaded again"
    text, final = collect(engine.client.chat([ChatMessage("user", "Hi!")], LONG.__class__()))
    assert final.finish_reason in ("stop", "length") and text


def test_restart_loads_the_chat_model_and_the_embedding_model_beside_it(
    engine: LocalEngine, shared_models: Path
) -> None:
    """Document search loads an encoder into the host's embedding slot after the chat model;
    a restart brings both back, not just the one loaded last."""
    encoder = shared_models / "all-minilm-l6-v2-onnx"
    status = engine.client.load(str(encoder))
    chat_model = status.model
    assert status.embedding_model == encoder.name and chat_model is not None
    pid = engine.pid
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    engine.restart()
    status = engine.client.status()
    assert (status.model, status.embedding_model) == (chat_model, encoder.name)
    assert len(engine.client.embed(["a lighthouse"], model=encoder.name)[0]) == 384
    text, final = collect(engine.client.chat([ChatMessage("user", "Hi!")], GenerationParams()))
    assert final.finish_reason in ("stop", "length") and text


def test_requests_after_a_crash_say_the_engine_crashed(engine: LocalEngine) -> None:
    pid = engine.pid
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    with pytest.raises(EngineCrashed, match="SIGKILL"):
        engine.client.status()


def test_a_full_queue_answers_429_with_retry_after(engine: LocalEngine) -> None:
    """With --max-queue 1 and one reply at a time: one request generating, one waiting, the
    next is refused."""
    url = f"{engine.base_url}/chat/completions"
    headers = {"Authorization": f"Bearer {engine._token}"}
    model = engine.client.status().model
    body = {
        "model": model,
        "messages": [{"role": "user", "content": "Write a long story."}],
        "max_tokens": 400,
        "stream": True,
    }
    first_token = threading.Event()
    release = threading.Event()

    def hold(signal_first: bool) -> None:
        with httpx.stream("POST", url, json=body, headers=headers, timeout=60) as r:
            for line in r.iter_lines():
                if line.startswith("data:") and signal_first:
                    first_token.set()
                if release.is_set():
                    return

    holders = [threading.Thread(target=hold, args=(True,))]
    holders[0].start()
    assert first_token.wait(60)
    holders.append(threading.Thread(target=hold, args=(False,)))
    holders[1].start()
    deadline = time.monotonic() + 10
    while engine.client.status().queued < 1 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert engine.client.status().queued == 1
    r = httpx.post(url, json={**body, "stream": False}, headers=headers, timeout=30)
    release.set()
    for t in holders:
        t.join(60)
    assert r.status_code == 429
    assert r.headers["Retry-After"].isdigit()
    assert "busy" in r.json()["error"]["message"]
    assert r.json()["error"]["code"] == EngineBusy.code


def test_a_private_host_stops_when_its_app_dies(starter: Path, tmp_path: Path) -> None:
    """The app is SIGKILLed: its private host notices and exits by itself (no orphan holding
    the model's memory)."""
    script = (
        "import sys, time\n"
        "from pathlib import Path\n"
        "from engine.client.local import LocalEngine\n"
        f"e = LocalEngine.start(log_path=Path({str(tmp_path / 'e.log')!r}))\n"
        "print(e.pid, flush=True)\n"
        "time.sleep(120)\n"
    )
    app = subprocess.Popen(
        [sys.executable, "-c", script],
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).resolve().parents[3],
    )
    try:
        assert app.stdout is not None
        host_pid = int(app.stdout.readline())
        app.kill()
        app.wait()
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and _running(host_pid):
            time.sleep(0.1)
        assert not _running(host_pid), "the host outlived its app"
    finally:
        if app.poll() is None:
            app.kill()


def _running(pid: int) -> bool:
    import psutil

    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False
