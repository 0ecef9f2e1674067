"""The engine host as its users meet it: a real process on loopback, the real starter model, driven
by the official ``openai`` package, by raw HTTP, and by Cove's own client."""

from __future__ import annotations

import math
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from engine.client.http_client import EngineClient
from engine.client.local import LocalEngine
from engine.errors import InsufficientMemory, LoadCancelled, ModelLoadError, ModelNotFound
from engine.hardware.report import HardwareReport
from engine.host.http.guards import DEFAULT_MAX_BODY
from engine.types import ChatMessage, GenerationParams
from tests.conftest import CAPITAL, collect

QUESTION: Any = [{"role": m.role, "content": m.content} for m in CAPITAL]
GREEDY = GenerationParams(temperature=0.0, max_tokens=32)


@pytest.fixture(scope="module")
def host(local_engine: LocalEngine) -> LocalEngine:
    return local_engine


def raw(host: LocalEngine, method: str, path: str, **kw: Any) -> httpx.Response:
    headers = {"Authorization": f"Bearer {host._token}", **kw.pop("headers", {})}
    return httpx.request(
        method, f"http://127.0.0.1:{host.port}{path}", headers=headers, timeout=60, **kw
    )


def wait_until(predicate: Any, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return False


# -- the OpenAI package ----------------------------------------------------------------------------


def test_models_lists_chat_and_embedding(oai: openai.OpenAI, model_id: str) -> None:
    ids = [m.id for m in oai.models.list()]
    assert model_id in ids
    assert "SmolLM2" in model_id


def test_chat_non_streaming(oai: openai.OpenAI, model_id: str) -> None:
    out = oai.chat.completions.create(
        model=model_id,
        messages=QUESTION,
        temperature=0,
        max_tokens=32,
    )
    assert "Paris" in (out.choices[0].message.content or "")
    assert out.choices[0].finish_reason in ("stop", "length")
    assert out.usage is not None and out.usage.prompt_tokens > 10
    assert out.usage.completion_tokens > 0
    extras = out.model_extra or {}
    assert extras["cove"]["timings"]["ttft_s"] > 0
    assert extras["cove"]["timings"]["decode_tokens_per_s"] > 0


def test_chat_streaming(oai: openai.OpenAI, model_id: str) -> None:
    # A reply long enough to span several of the host's 30 ms flushes on any CPU (a one-line
    # answer can arrive whole).
    essay: Any = [{"role": "user", "content": "Write a very long essay about the history of Rome."}]
    stream = oai.chat.completions.create(
        model=model_id,
        messages=essay,
        temperature=0,
        max_tokens=64,
        stream=True,
        stream_options={"include_usage": True},
    )
    pieces, finishes, usage = [], [], None
    for chunk in stream:
        for choice in chunk.choices:
            if choice.delta.content:
                pieces.append(choice.delta.content)
            if choice.finish_reason:
                finishes.append(choice.finish_reason)
        usage = chunk.usage or usage
    assert len(pieces) > 3, "the reply arrives in pieces"
    assert len(finishes) == 1
    assert usage is not None and usage.completion_tokens >= len(pieces)


def test_completions(oai: openai.OpenAI, model_id: str) -> None:
    out = oai.completions.create(
        model=model_id, prompt="The capital of France is", max_tokens=8, temperature=0
    )
    assert out.choices[0].text
    stream = oai.completions.create(
        model=model_id, prompt="1, 2, 3,", max_tokens=8, temperature=0, stream=True
    )
    text = "".join(c.choices[0].text for c in stream if c.choices)
    assert text.strip()


def test_logit_bias_and_ignore_eos_through_openai(
    oai: openai.OpenAI, model_id: str, starter: Path
) -> None:
    from engine.formats.gguf import read_gguf

    end = read_gguf(starter).metadata["tokenizer.ggml.eos_token_id"]
    forced = {str(end): 100}
    out = oai.chat.completions.create(
        model=model_id, messages=QUESTION, max_tokens=12, temperature=0.8, logit_bias=forced
    )
    assert out.choices[0].finish_reason == "stop" and not out.choices[0].message.content
    # A load test's request: every reply runs to max_tokens, streamed or not, in both APIs.
    stream = oai.chat.completions.create(
        model=model_id,
        messages=QUESTION,
        max_tokens=12,
        temperature=0.8,
        logit_bias=forced,
        stream=True,
        stream_options={"include_usage": True},
        extra_body={"ignore_eos": True},
    )
    chunks = list(stream)
    usage = chunks[-1].usage
    assert usage is not None and usage.completion_tokens == 12
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "length"
    done = oai.completions.create(
        model=model_id,
        prompt="1, 2,",
        max_tokens=5,
        logit_bias=forced,
        extra_body={"ignore_eos": True},
    )
    assert done.usage is not None and done.usage.completion_tokens == 5
    with pytest.raises(openai.BadRequestError, match="logit_bias"):
        oai.chat.completions.create(
            model=model_id, messages=QUESTION, max_tokens=4, logit_bias={"5": 1000}
        )


def test_embeddings_through_openai(oai: openai.OpenAI, host: LocalEngine) -> None:
    if host.client.status().embedding_model is None:
        pytest.skip("the embedding model folder is absent")
    sentences = ["A man is eating food.", "A man is eating bread.", "The girl holds a baby."]
    out = oai.embeddings.create(model="all-minilm-l6-v2-onnx", input=sentences)
    vecs = [d.embedding for d in out.data]
    assert [len(v) for v in vecs] == [384] * 3
    assert all(abs(math.hypot(*v) - 1.0) < 1e-4 for v in vecs)

    def cos(a: list[float], b: list[float]) -> float:
        return sum(x * y for x, y in zip(a, b, strict=True))

    assert cos(vecs[0], vecs[1]) > cos(vecs[0], vecs[2]) + 0.2
    # Cove's client asks for floats; the openai package asked for base64: the same vectors.
    mine = host.client.embed(sentences)
    assert max(abs(a - b) for a, b in zip(mine[0], vecs[0], strict=True)) < 1e-6


def test_openai_errors(oai: openai.OpenAI, host: LocalEngine, model_id: str) -> None:
    # A name no model here has: what is installed, and how to map the client's name.
    with pytest.raises(openai.NotFoundError, match="not a model of this engine") as unknown:
        oai.chat.completions.create(model="gpt-5", messages=QUESTION)
    assert "'starter'" in str(unknown.value) and "--alias" in str(unknown.value)
    with pytest.raises(openai.BadRequestError, match="temperature"):
        oai.chat.completions.create(
            model=model_id,
            messages=QUESTION,
            temperature=7,
        )
    wrong = openai.OpenAI(base_url=host.base_url, api_key="wrong", max_retries=0)
    with pytest.raises(openai.AuthenticationError):
        wrong.models.list()
    wrong.close()


# -- raw HTTP: status codes for bad input --------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "status", "needle"),
    [
        ({"content": b"{not json", "headers": {"Content-Type": "application/json"}}, 400, "JSON"),
        ({"json": {"model": 5, "messages": QUESTION}}, 400, "model"),
        ({"json": {"model": "x", "messages": [{"role": "user", "content": 1}]}}, 400, "content"),
        ({"json": {"model": "x", "messages": QUESTION, "temperature": "NaN"}}, 400, "temperature"),
        (
            {
                "content": b'{"model": "x", "temperature": NaN}',
                "headers": {"Content-Type": "application/json"},
            },
            400,
            "JSON",
        ),
        ({"content": b'{"model": "x"}', "headers": {"Content-Type": "text/plain"}}, 415, "JSON"),
        (
            {
                "content": b"x" * (DEFAULT_MAX_BODY + 1),
                "headers": {"Content-Type": "application/json"},
            },
            413,
            "limit",
        ),
        ({"json": {"model": "x", "messages": QUESTION, "functions": []}}, 400, "functions"),
    ],
)
def test_bad_requests_get_the_right_status(
    host: LocalEngine, kwargs: dict[str, Any], status: int, needle: str
) -> None:
    r = raw(host, "POST", "/v1/chat/completions", **kwargs)
    assert r.status_code == status, r.text
    error = r.json()["error"]
    assert needle in error["message"]
    assert "Traceback" not in r.text


def test_auth_host_header_and_routing(host: LocalEngine) -> None:
    url = f"http://127.0.0.1:{host.port}/v1/models"
    assert httpx.get(url).status_code == 401
    assert httpx.get(url, headers={"Authorization": "Bearer nope"}).status_code == 401
    assert raw(host, "GET", "/v1/models").status_code == 200
    # A page on another origin that resolves to 127.0.0.1 (DNS rebinding) is refused.
    r = raw(host, "GET", "/v1/models", headers={"Host": "evil.example:80"})
    assert r.status_code == 400 and "localhost" in r.json()["error"]["message"]
    assert raw(host, "GET", "/v1/chat/completions").status_code == 405
    assert raw(host, "GET", "/v1/nothing").status_code == 404
    # An unknown path answers in the shape of the protocol it belongs to.
    assert raw(host, "GET", "/v1/nothing").json()["error"]["type"] == "not_found_error"
    ollama = raw(host, "GET", "/api/nothing")
    assert ollama.status_code == 404 and "/api/nothing" in ollama.json()["error"]
    anthropic = raw(host, "POST", "/v1/messages/nothing")
    assert anthropic.status_code == 404
    assert anthropic.json()["type"] == "error"
    assert anthropic.json()["error"]["type"] == "not_found_error"
    assert "access-control-allow-origin" not in raw(host, "GET", "/v1/models").headers


def test_status_reports_the_plan(host: LocalEngine) -> None:
    status = host.client.status()
    assert status.n_ctx == 2048 and status.backend == "llama.cpp"
    assert status.plan is not None and status.plan.verdict == "fits"
    assert status.pid == host.pid


def test_a_long_prompts_reading_speed_is_in_usage_and_in_the_status(
    host: LocalEngine, model_id: str
) -> None:
    """A prompt of over 1,000 tokens read (none of them from the cache): its tokens, seconds
    and speed in ``usage.cove``, and remembered as the status's last long prompt."""
    facts = " ".join(f"Berth {i} holds {i % 7} boats." for i in range(150))
    body = {
        "model": model_id,
        "messages": [{"role": "user", "content": f"{facts} Which berth holds the most?"}],
        "max_tokens": 2,
        "temperature": 0,
    }
    usage = raw(host, "POST", "/v1/chat/completions", json=body).json()["usage"]
    cove = usage["cove"]
    read = usage["prompt_tokens"] - usage["prompt_tokens_details"]["cached_tokens"]
    assert cove["prompt_read_tokens"] == read >= 1000
    assert cove["prompt_tokens_per_s"] > 0
    assert cove["prompt_read_s"] == pytest.approx(read / cove["prompt_tokens_per_s"], rel=0.01)
    last = host.client.status().last_long_prompt
    assert last is not None
    assert last.model == model_id and last.tokens == read
    assert last.tokens_per_s == cove["prompt_tokens_per_s"]
    # A short follow-up read after it leaves the long one as the last long prompt.
    short = {**body, "messages": [{"role": "user", "content": "Hello there."}]}
    assert raw(host, "POST", "/v1/chat/completions", json=short).status_code == 200
    assert host.client.status().last_long_prompt == last


# -- Cove's client --------------------------------------------------------------------------------


def test_client_stream_matches_the_engine_contract(host: LocalEngine) -> None:
    msgs = list(CAPITAL)
    text, final = collect(host.client.chat(msgs, GREEDY))
    assert "Paris" in text
    assert final.finish_reason in ("stop", "length")
    assert final.stats is not None and final.stats.completion_tokens > 0
    assert final.stats.ttft_s > 0 and final.stats.prompt_tokens > 10
    # A follow-up reuses the host's KV cache.
    follow = [*msgs, ChatMessage("assistant", text), ChatMessage("user", "And of Italy?")]
    _text, final2 = collect(host.client.chat(follow, GREEDY))
    assert final2.stats is not None and final2.stats.cached_tokens > 10


def test_client_cancel_stops_the_host_generation(host: LocalEngine) -> None:
    before = host.client.status().generations_cancelled
    cancel = threading.Event()
    params = GenerationParams(temperature=0.8, seed=1, max_tokens=1000, repeat_penalty=1.0)
    msgs = [ChatMessage("user", "Write a very long story about the sea.")]
    chunks = []
    for seen, chunk in enumerate(host.client.chat(msgs, params, cancel=cancel), start=1):
        chunks.append(chunk)
        if seen == 1:  # at the first token: the host is certainly still generating
            cancel.set()
    assert chunks[-1].finish_reason == "cancelled"
    ok = wait_until(lambda: host.client.status().generations_cancelled == before + 1)
    assert ok, (before, host.client.status(), host.log_tail(30))
    assert not host.client.status().generating


def test_disconnect_mid_stream_stops_generation(host: LocalEngine, model_id: str) -> None:
    before = host.client.status().generations_cancelled
    body = {
        "model": model_id,
        "messages": [{"role": "user", "content": "Write a very long story about the sea."}],
        "max_tokens": 1500,
        "temperature": 0.8,
        "seed": 1,
        "repeat_penalty": 1.0,
        "stream": True,
    }
    headers = {"Authorization": f"Bearer {host._token}"}
    url = f"{host.base_url}/chat/completions"
    with httpx.stream("POST", url, json=body, headers=headers, timeout=60) as r:
        lines = 0
        for line in r.iter_lines():
            lines += line.startswith("data:")
            if lines >= 1:  # the first token: the host is certainly still generating
                break
    # The very next request waits for that generation to stop instead of finding the model busy.
    _text, after = collect(host.client.chat([ChatMessage("user", "Hi")], GREEDY))
    assert after.finish_reason in ("stop", "length"), after.error
    # The connection is closed: the host notices and stops well before 1,500 tokens.
    assert wait_until(lambda: host.client.status().generations_cancelled == before + 1, 15)
    status = host.client.status()
    assert not status.generating


def test_requests_queue_in_turn(host: LocalEngine) -> None:
    msgs = [ChatMessage("user", "Say hello.")]
    params = GenerationParams(temperature=0.0, max_tokens=16)
    results: list[str] = []

    def ask() -> None:
        client = EngineClient(host.base_url, host._token)
        _text, final = collect(client.chat(msgs, params))
        results.append(final.finish_reason or "")
        client.close()

    threads = [threading.Thread(target=ask) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert sorted(results) == ["length"] * 3 or set(results) <= {"stop", "length"}
    assert len(results) == 3


def test_load_errors_leave_the_host_serving(host: LocalEngine, tmp_path: Path) -> None:
    bad = tmp_path / "broken.gguf"
    bad.write_bytes(b"GGUF\x03\x00\x00\x00" + b"\xff" * 64)
    with pytest.raises(ModelLoadError, match=r"broken\.gguf"):
        host.client.load(str(bad))
    with pytest.raises(ModelNotFound):
        host.client.load(str(tmp_path / "missing.gguf"))
    # The resident model was never unloaded: a bad file is rejected before anything changes.
    assert host.client.status().model is not None
    _text, final = collect(host.client.chat([ChatMessage("user", "Hi")], GREEDY))
    assert final.finish_reason in ("stop", "length")


def test_load_reports_progress_and_can_be_cancelled(host: LocalEngine, starter: Path) -> None:
    seen: list[float] = []
    status = host.client.load(str(starter), ctx=1024, progress=seen.append)
    assert status.n_ctx == 1024
    assert seen and seen[-1] == 1.0 and seen == sorted(seen)

    cancel = threading.Event()

    def on_progress(fraction: float) -> None:
        if fraction > 0:
            cancel.set()

    with pytest.raises(LoadCancelled):
        host.client.load("starter", ctx=4096, progress=on_progress, cancel=cancel)
    # Put the shared host back as the other tests expect it.
    status = host.client.load("starter", ctx=2048)
    assert status.n_ctx == 2048 and not status.loading


def test_a_model_that_does_not_fit_is_507(host: LocalEngine, tmp_path: Path) -> None:
    from tests.support.gguf_bytes import huge_sparse_model

    path = huge_sparse_model(tmp_path)
    with pytest.raises(InsufficientMemory) as info:
        host.client.load(str(path))
    assert info.value.plan is not None and info.value.plan.verdict == "does_not_fit"
    r = raw(host, "POST", "/cove/v1/load", json={"model": str(path)})
    assert r.status_code == 507
    assert host.client.status().model is not None


def test_unload_returns_the_memory_and_reload_works(host: LocalEngine) -> None:
    import psutil

    proc = psutil.Process(host.pid)
    host.client.load("starter", ctx=8192)
    # Fill the KV cache a little so that its pages are resident, as in real use.
    collect(host.client.chat([ChatMessage("user", "Hello " * 300)], GREEDY))
    loaded_rss = proc.memory_info().rss
    host.client.unload()
    assert host.client.status().model is None
    unloaded_rss = proc.memory_info().rss
    assert loaded_rss - unloaded_rss > 80 * 2**20, (loaded_rss, unloaded_rss)
    assert host.client.plan("starter").verdict == "fits"  # planning needs no resident model
    _text, final = collect(host.client.chat([ChatMessage("user", "Hi")], GREEDY, model="x"))
    assert final.finish_reason == "error" and "No chat model is loaded" in (final.error or "")
    assert final.code == ModelNotFound.code
    status = host.client.load("starter", ctx=2048)
    assert status.n_ctx == 2048


def test_hardware_report_comes_from_the_host(host: LocalEngine) -> None:
    report = host.client.hardware()
    assert report.cpu.physical_cores >= 1
    assert "CPU" in report.best_device()
    assert any(line.startswith("RAM:") for line in report.summary_lines())
    data = raw(host, "GET", "/cove/v1/hardware").json()  # the JSON fields stay as documented
    assert data["best_device"] == HardwareReport.from_dict(data).best_device()
    assert data["summary"] == HardwareReport.from_dict(data).summary_lines()


def test_loading_an_embedding_folder_fills_the_embedding_slot(
    host: LocalEngine, shared_models: Path
) -> None:
    folder = shared_models / "all-minilm-l6-v2-onnx"
    chat_model = host.client.status().model
    status = host.client.load(str(folder))
    assert status.embedding_model == folder.name
    assert status.model == chat_model, "the chat model stays resident"
    (vector,) = host.client.embed(["hello"])
    assert len(vector) == 384
