"""Any installed model by name, several resident (engine/host/models/residents.py), against a real
host with the starter loaded and the Qwen test model installed beside it, driven by the official
openai, anthropic and ollama clients."""

from __future__ import annotations

import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anthropic
import httpx
import ollama
import openai
import pytest

from engine.client.local import LocalEngine

QWEN = "qwen2.5-coder-0.5b-instruct-q4_k_m"


@pytest.fixture(scope="module")
def models_dir(tool_model: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("models")
    (folder / tool_model.name).symlink_to(tool_model)
    return folder


@pytest.fixture(scope="module")
def host(models_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalEngine]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("COVE_MODELS_DIR", str(models_dir))
        engine = LocalEngine.start(
            log_path=tmp_path_factory.mktemp("host") / "engine.log",
            extra_args=("--parallel", "2"),
        )
    engine.client.load("starter", ctx=2048)
    yield engine
    engine.stop()
    engine.client.close()


def get(host: LocalEngine, path: str) -> Any:
    r = httpx.get(
        f"http://127.0.0.1:{host.port}{path}",
        headers={"Authorization": f"Bearer {host._token}"},
        timeout=60,
    )
    r.raise_for_status()
    return r.json()


def resident_names(host: LocalEngine) -> list[str]:
    return [m["name"] for m in get(host, "/api/ps")["models"]]


def unload(host: LocalEngine, name: str) -> None:
    r = httpx.post(
        f"http://127.0.0.1:{host.port}/cove/v1/unload",
        json={"model": name},
        headers={"Authorization": f"Bearer {host._token}"},
        timeout=120,
    )
    r.raise_for_status()


def loads_of(host: LocalEngine, model: str) -> int:
    text = host.log_path.read_text(errors="replace")
    return text.count(f"INFO loaded {model} ")


def oai(host: LocalEngine) -> openai.OpenAI:
    return openai.OpenAI(base_url=host.base_url, api_key=host._token, max_retries=0)


def test_every_installed_model_is_listed_with_whether_it_is_loaded(host: LocalEngine) -> None:
    cards = {m["id"]: m for m in get(host, "/v1/models")["data"]}
    loaded = host.client.status().model
    assert loaded is not None and cards[loaded]["loaded"] is True
    assert QWEN in cards
    tags = [m["name"] for m in get(host, "/api/tags")["models"]]
    assert any(QWEN in name for name in tags)


def test_a_request_naming_another_installed_model_is_answered_by_it(host: LocalEngine) -> None:
    with oai(host) as client:
        reply = client.chat.completions.create(
            model=QWEN, messages=[{"role": "user", "content": "Say hi."}], max_tokens=8
        )
    assert reply.model == QWEN
    assert reply.choices[0].finish_reason in ("stop", "length")
    names = resident_names(host)
    assert QWEN in names and host.client.status().model in names
    status = get(host, "/cove/v1/status")
    entry = next(r for r in status["residents"] if r["model"] == QWEN)
    assert entry["on_demand"] is True and entry["keep_alive_s"] == 600.0
    ps = {m["name"]: m for m in get(host, "/api/ps")["models"]}
    assert ps[QWEN]["context_length"] > 0 and ps[QWEN]["size"] > 0
    assert not ps[QWEN]["expires_at"].startswith("9999")  # on demand: unloaded when idle
    assert ps[host.client.status().model or ""]["expires_at"].startswith("9999")


def test_the_same_model_asked_twice_at_once_loads_once(host: LocalEngine) -> None:
    unload(host, QWEN)
    assert QWEN not in resident_names(host)
    before = loads_of(host, QWEN)
    replies: list[Any] = []

    def ask() -> None:
        with oai(host) as client:
            replies.append(
                client.chat.completions.create(
                    model=QWEN, messages=[{"role": "user", "content": "Hi"}], max_tokens=4
                )
            )

    threads = [threading.Thread(target=ask) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(300)
    assert len(replies) == 2 and all(r.model == QWEN for r in replies)
    assert loads_of(host, QWEN) == before + 1


def test_keep_alive_zero_unloads_and_a_short_ttl_unloads_when_idle(host: LocalEngine) -> None:
    client = ollama.Client(host=f"http://127.0.0.1:{host.port}",
                           headers={"Authorization": f"Bearer {host._token}"})  # fmt: skip
    client.generate(model=QWEN, prompt="")  # Ollama's way to load
    assert QWEN in resident_names(host)
    done = client.generate(model=QWEN, prompt="", keep_alive=0)
    assert done.done_reason == "unload"
    assert QWEN not in resident_names(host)
    assert host.client.status().model in resident_names(host)  # the default model stays
    with oai(host) as openai_client:
        openai_client.chat.completions.create(
            model=QWEN,
            messages=[{"role": "user", "content": "Hi"}],
            max_tokens=4,
            extra_body={"ttl": 1},
        )
    deadline = time.monotonic() + 60
    while QWEN in resident_names(host) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert QWEN not in resident_names(host)


def test_show_reads_an_installed_model_without_loading_it(host: LocalEngine) -> None:
    """Front ends ask /api/show of every model they list: one not in memory stays out of it."""
    unload(host, QWEN)
    r = httpx.post(
        f"http://127.0.0.1:{host.port}/api/show",
        json={"model": f"{QWEN}:latest"},
        headers={"Authorization": f"Bearer {host._token}"},
        timeout=60,
    )
    assert r.status_code == 200, r.text
    assert r.json()["model_info"]["general.context_length"] > 0
    assert QWEN not in resident_names(host)


def test_openai_anthropic_and_ollama_clients_stream_at_once(host: LocalEngine) -> None:
    model = host.client.status().model
    assert model is not None
    results: dict[str, str] = {}
    errors: list[BaseException] = []
    go = threading.Barrier(3)

    def with_openai() -> None:
        with oai(host) as client:
            go.wait()
            stream = client.chat.completions.create(
                model=model,
                messages=[{"role": "user", "content": "Tell a story about a boat."}],
                max_tokens=24,
                stream=True,
            )
            finish = [c.choices[0].finish_reason for c in stream if c.choices]
            results["openai"] = str(finish[-1])

    def with_anthropic() -> None:
        client = anthropic.Anthropic(base_url=f"http://127.0.0.1:{host.port}",
                                     api_key=host._token, max_retries=0)  # fmt: skip
        go.wait()
        with client.messages.stream(
            model=model,
            max_tokens=24,
            messages=[{"role": "user", "content": "Tell a story about a cat."}],
        ) as stream:
            final = stream.get_final_message()
        results["anthropic"] = str(final.stop_reason)

    def with_ollama() -> None:
        client = ollama.Client(host=f"http://127.0.0.1:{host.port}",
                               headers={"Authorization": f"Bearer {host._token}"})  # fmt: skip
        go.wait()
        last = None
        for part in client.chat(
            model=model,
            messages=[{"role": "user", "content": "Tell a story about a dog."}],
            stream=True,
            options={"num_predict": 24},
        ):
            last = part
        assert last is not None
        results["ollama"] = str(last.done_reason)

    def run(fn: Any) -> None:
        try:
            fn()
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(f,)) for f in (with_openai, with_anthropic,
                                                                  with_ollama)]  # fmt: skip
    for t in threads:
        t.start()
    for t in threads:
        t.join(300)
    assert not errors, errors
    assert results["openai"] in ("stop", "length")
    assert results["anthropic"] in ("end_turn", "max_tokens")
    assert results["ollama"] in ("stop", "length")


def test_the_least_recently_used_idle_model_makes_room(
    models_dir: Path, starter: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With room for two models (--max-models 2): the default one stays, and a third model
    asked for takes the place of the idle one loaded on demand."""
    folder = tmp_path / "models"
    shutil.copytree(models_dir, folder, symlinks=True)
    shutil.copy(starter, folder / "second-starter.gguf")
    monkeypatch.setenv("COVE_MODELS_DIR", str(folder))
    engine = LocalEngine.start(log_path=tmp_path / "engine.log",
                               extra_args=("--parallel", "1", "--max-models", "2"))  # fmt: skip
    try:
        engine.client.load("starter", ctx=2048)
        default = engine.client.status().model
        assert default is not None
        with oai(engine) as client:
            for name in (QWEN, "second-starter"):
                reply = client.chat.completions.create(
                    model=name, messages=[{"role": "user", "content": "Hi"}], max_tokens=4
                )
                assert reply.model == name
        names = resident_names(engine)
        assert sorted(names) == sorted([default, "second-starter"])
        assert "to make room for second-starter.gguf" in engine.log_path.read_text()
    finally:
        engine.stop()
        engine.client.close()


def test_a_resident_model_s_mapped_weights_are_not_free_memory(starter: Path) -> None:
    """A plan beside a resident llama.cpp model counts that model's weights as used, though the
    system reports the pages of its mapped file as available."""
    from engine.formats.gguf import read_gguf
    from engine.hardware import probe_hardware
    from engine.host.models.on_demand import without_mapped_weights
    from engine.planner.gguf import make_plan
    from engine.planner.plan import resources_from

    report = probe_hardware()
    plan = make_plan(read_gguf(starter), resources_from(report), requested_ctx=2048)
    weights = sum(b.weights for b in plan.budgets if b.device == resources_from(report).cpu.name)
    assert weights > 50 * 2**20
    beside = without_mapped_weights(report, [("llama.cpp", plan), ("llama.cpp", plan)])
    assert beside.memory.available_bytes == max(0, report.memory.available_bytes - 2 * weights)
    assert beside.memory.total_bytes == report.memory.total_bytes
    # Another runtime's weights are its own memory, already not available.
    assert without_mapped_weights(report, [("onnxruntime-genai", plan)]) == report
    assert without_mapped_weights(report, []) is report
