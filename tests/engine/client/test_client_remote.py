"""Cove's client against an OpenAI-compatible server none of us wrote: llama-cpp-python's own
server on the starter model, on loopback. The same code path serves a remote vLLM, llama-server or
Ollama."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from engine.client.http_client import EngineClient
from engine.errors import EngineUnreachable
from engine.launch import guarded_command
from engine.types import ChatMessage, GenerationParams
from tests.conftest import collect

KEY = "remote-test-key"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def llama_server(starter: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    pytest.importorskip("llama_cpp.server", reason="llama-cpp-python[server] is not installed")
    port = free_port()
    log = (tmp_path_factory.mktemp("llama-server") / "server.log").open("wb")
    # Someone else's server, started so that it ends with this test run however the run ends.
    program, arguments = guarded_command(
        sys.executable,
        [
            "-m",
            "llama_cpp.server",
            "--model",
            str(starter),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--n_ctx",
            "2048",
            "--api_key",
            KEY,
            "--n_threads",
            "2",
        ],
    )
    proc = subprocess.Popen(
        [program, *arguments],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline:
            assert proc.poll() is None, "llama_cpp.server exited during start-up"
            try:
                r = httpx.get(f"{url}/models", headers={"Authorization": f"Bearer {KEY}"})
                if r.status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        else:
            pytest.fail("llama_cpp.server did not start within 120 s")
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


def test_chat_stream_from_a_foreign_server(llama_server: str) -> None:
    client = EngineClient(llama_server, KEY)
    models = client.list_models()
    assert models and all(m.id for m in models)
    msgs = [ChatMessage("user", "What is the capital of France?")]
    params = GenerationParams(temperature=0.0, max_tokens=32)
    text, final = collect(client.chat(msgs, params))
    assert final.finish_reason in ("stop", "length")
    # Cove's streamed reply is the server's own greedy answer on this machine, whatever this
    # CPU's arithmetic makes of the question: asked for whole, with the same settings.
    whole = httpx.post(
        f"{llama_server}/chat/completions",
        headers={"Authorization": f"Bearer {KEY}"},
        json={
            "model": models[0].id,
            "messages": [{"role": m.role, "content": m.content} for m in msgs],
            "temperature": 0.0,
            "top_p": params.top_p,
            "top_k": params.top_k,
            "min_p": params.min_p,
            "repeat_penalty": params.repeat_penalty,
            "max_tokens": 32,
        },
        timeout=120,
    ).json()
    assert text and text == whole["choices"][0]["message"]["content"]
    stats = final.stats
    assert stats is not None
    # This server sends none of Cove's timings: the client measured them itself.
    assert stats.ttft_s > 0 and stats.completion_tokens > 0
    client.close()


def test_completion_and_cancel_on_a_foreign_server(llama_server: str) -> None:
    client = EngineClient(llama_server, KEY)
    _text, final = collect(
        client.complete("Once upon a time", GenerationParams(temperature=0.0, max_tokens=8))
    )
    assert final.finish_reason == "length"
    cancel = threading.Event()
    params = GenerationParams(temperature=0.8, seed=2, max_tokens=500)
    chunks = []
    for i, chunk in enumerate(client.chat([ChatMessage("user", "Tell a long story.")], params,
                                          cancel=cancel)):  # fmt: skip
        chunks.append(chunk)
        if i == 2:
            cancel.set()
    assert chunks[-1].finish_reason == "cancelled"
    assert len(chunks) <= 5
    client.close()


def test_wrong_key_and_unknown_server() -> None:
    client = EngineClient(f"http://127.0.0.1:{free_port()}/v1", "k")
    with pytest.raises(EngineUnreachable, match="Cannot reach the engine"):
        client.list_models()
    with pytest.raises(EngineUnreachable):
        list(client.chat([ChatMessage("user", "hi")], GenerationParams(), model="m"))
    client.close()


def test_wrong_key_is_an_error_chunk(llama_server: str) -> None:
    client = EngineClient(llama_server, "wrong")
    _text, final = collect(client.chat([ChatMessage("user", "hi")], GenerationParams(), model="x"))
    assert final.finish_reason == "error" and final.error
    client.close()
