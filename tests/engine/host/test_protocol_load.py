"""Every protocol under load, on the starter: 16 concurrent streams against a host that queues
at most 4 each finish with their protocol's own last event or get a clean 429 in their
protocol's shape. The server stays up, and no stream that was accepted ends half-written.
``cove serve --ollama`` also answers on Ollama's port."""

from __future__ import annotations

import contextlib
import json
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from engine.client.local import LocalEngine
from engine.launch import child_env

CONCURRENT = 16


@pytest.fixture(scope="module")
def host(starter: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalEngine]:
    log = tmp_path_factory.mktemp("host") / "engine.log"
    engine = LocalEngine.start(log_path=log, extra_args=("--max-queue", "4"))
    engine.client.load("starter", ctx=2048)
    yield engine
    engine.stop()
    engine.client.close()


def _bodies(model: str) -> dict[str, tuple[str, dict[str, Any], Callable[[str], bool]]]:
    """Per protocol: the path, a streamed request, and how its last line looks."""
    ask = [{"role": "user", "content": "Write a short story about a lighthouse."}]
    return {
        "openai": ("/v1/chat/completions",
                   {"model": model, "messages": ask, "max_tokens": 24, "stream": True},
                   lambda last: last == "data: [DONE]"),
        "responses": ("/v1/responses",
                      {"model": model, "input": ask[0]["content"], "max_output_tokens": 24,
                       "stream": True},
                      lambda last: '"response.completed"' in last
                      or '"response.incomplete"' in last),
        "anthropic": ("/v1/messages",
                      {"model": model, "messages": ask, "max_tokens": 24, "stream": True},
                      lambda last: '"type":"message_stop"' in last),
        "ollama": ("/api/chat",
                   {"model": model, "messages": ask, "options": {"num_predict": 24}},
                   lambda last: json.loads(last).get("done") is True),
    }  # fmt: skip


def _error_shape(protocol: str, body: Any) -> bool:
    if protocol == "anthropic":
        return bool(body["type"] == "error" and body["error"]["type"] == "rate_limit_error")
    if protocol == "ollama":
        return isinstance(body["error"], str) and "busy" in body["error"]
    return bool(body["error"]["code"] == "engine_busy")


@pytest.mark.parametrize("protocol", ["openai", "responses", "anthropic", "ollama"])
def test_sixteen_streams_finish_or_get_a_clean_429(host: LocalEngine, protocol: str) -> None:
    model = host.client.status().model
    assert model is not None
    path, body, ends = _bodies(model)[protocol]
    url = host.base_url[: -len("/v1")] + path
    headers = {"Authorization": f"Bearer {host._token}"}
    outcomes: list[tuple[int, Any]] = []
    lock = threading.Lock()

    def one() -> None:
        with httpx.stream("POST", url, json=body, headers=headers, timeout=300) as r:
            if r.status_code != 200:
                r.read()
                result: tuple[int, Any] = (r.status_code, (r.headers, r.json()))
            else:
                lines = [line for line in r.iter_lines() if line.strip()]
                result = (200, lines[-1] if lines else "")
        with lock:
            outcomes.append(result)

    threads = [threading.Thread(target=one) for _ in range(CONCURRENT)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(300)
    assert len(outcomes) == CONCURRENT
    finished = [last for status, last in outcomes if status == 200]
    refused = [info for status, info in outcomes if status == 429]
    assert len(finished) + len(refused) == CONCURRENT, [s for s, _ in outcomes]
    assert finished and all(ends(last) for last in finished)
    for response_headers, error in refused:
        assert response_headers["retry-after"].isdigit() and _error_shape(protocol, error)
    assert host.alive() and host.client.status().model == model


def _free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def test_serve_ollama_listens_on_ollamas_port(starter: Path, tmp_path: Path) -> None:
    if not _free(11434):
        pytest.skip("port 11434 is taken on this machine (an Ollama running?)")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "engine.cli", "serve", "--model", "starter", "--port", str(port),
         "--ollama"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=child_env(),
    )  # fmt: skip
    try:
        tags = None
        for _ in range(1200):  # until it answers (bounded: the test fails after)
            if server.poll() is not None:
                pytest.fail(f"cove serve exited: {server.stderr.read() if server.stderr else ''}")
            try:
                tags = httpx.get("http://127.0.0.1:11434/api/tags", timeout=1).json()
                break
            except httpx.HTTPError:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    server.wait(timeout=0.1)
        assert tags is not None and tags["models"][0]["name"]
        main = httpx.get(f"http://127.0.0.1:{port}/api/version", timeout=5)
        assert main.status_code == 200 and main.json()["version"]
    finally:
        server.terminate()
        server.wait(timeout=30)
