"""The ``cove`` command as a user runs it: a real process, real model, real exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine.launch import child_env
from tests.conftest import CAPITAL_QUESTION, SYSTEM_PROMPT
from tests.cove_process import ROOT, cove


def test_probe_json_describes_this_machine() -> None:
    out = cove("probe", "--json")
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["cpu"]["physical_cores"] >= 1
    assert report["memory"]["available_bytes"] > 0
    assert "CPU" in report["best_device"]


def test_probe_human_lists_what_is_absent_and_why() -> None:
    out = cove("probe")
    assert out.returncode == 0
    assert "Not found:" in out.stdout and "RAM:" in out.stdout


def test_inspect_starter(starter: Path) -> None:
    out = cove("inspect", "starter", "--json")
    assert out.returncode == 0, out.stderr
    info = json.loads(out.stdout)
    assert info["architecture"] == "llama"
    assert info["layers"] == 30
    assert info["chat_template"]["name"] == "chatml"
    assert info["chat_template"]["origin"] == "model"


def test_plan_breakdown_and_verdict(starter: Path) -> None:
    out = cove("plan", "starter", "--ctx", "4096", "--json")
    assert out.returncode == 0, out.stderr
    plan = json.loads(out.stdout)
    assert plan["verdict"] == "fits" and plan["n_ctx"] == 4096
    (budget,) = plan["budgets"]
    assert budget["kv_cache"] == 90 * 2**20
    human = cove("plan", "starter")
    assert "Verdict   fits" in human.stdout and "KV cache" in human.stdout


def test_chat_one_shot_streams_and_reports_stats(starter: Path) -> None:
    out = cove(
        "chat", "--temperature", "0", "--max-tokens", "40", "--stats", "json",
        "--system", SYSTEM_PROMPT, CAPITAL_QUESTION,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "Paris" in out.stdout
    stats = json.loads(out.stderr.strip().splitlines()[-1])
    for key in ("prompt_tokens", "completion_tokens", "ttft_s", "decode_tokens_per_s"):
        assert key in stats
    assert stats["finish_reason"] in ("stop", "length")
    assert stats["completion_tokens"] > 0
    assert 0 <= stats["accepted_tokens"] <= stats["draft_tokens"]


def test_chat_reports_the_guesses_speculation_checked(starter: Path) -> None:
    """A reply that copies its prompt: with speculation off nothing is guessed; the reply is
    the same with it on (auto), and the stats say how many guesses were sent and kept."""
    text = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu"
    prompt = f"Repeat these words exactly: {text}"
    runs = {}
    for mode in ("off", "auto"):
        out = cove(
            "chat", "--temperature", "0", "--max-tokens", "40", "--stats", "json",
            "--speculation", mode, prompt,
        )  # fmt: skip
        assert out.returncode == 0, out.stderr
        runs[mode] = (out.stdout, json.loads(out.stderr.strip().splitlines()[-1]))
    assert runs["off"][1]["draft_tokens"] == 0
    assert runs["auto"][0] == runs["off"][0]
    assert 0 <= runs["auto"][1]["accepted_tokens"] <= runs["auto"][1]["draft_tokens"]


def test_interactive_chat_keeps_the_conversation(starter: Path) -> None:
    out = cove(
        "chat", "--temperature", "0", "--max-tokens", "24", "--stats", "json",
        stdin="Hello!\nWhat is the capital of France?\n",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    stats = [json.loads(line) for line in out.stderr.splitlines() if line.startswith("{")]
    assert len(stats) == 2
    # The second turn reused the first turn's KV cache.
    assert stats[1]["cached_tokens"] > 0


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("inspect", "/nonexistent/model.gguf"), "No model at"),
        (("chat", "--model", "/nonexistent/model.gguf", "hi"), "No model at"),
        (("plan", "starter", "--ctx", "0"), "positive integer"),
        (("chat", "--temperature", "9", "hi"), "temperature"),
    ],
)
def test_errors_are_one_line_without_traceback(args: tuple[str, ...], needle: str) -> None:
    out = cove(*args)
    assert out.returncode != 0
    assert needle in out.stderr
    assert "Traceback" not in out.stderr


def test_corrupt_model_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "broken.gguf"
    bad.write_bytes(b"GGUF\x03\x00\x00\x00" + b"\xff" * 40)
    out = cove("chat", "--model", str(bad), "hi")
    assert out.returncode == 1
    assert out.stderr.startswith("cove: error:") and str(bad) in out.stderr
    assert "Traceback" not in out.stderr


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_serve_is_an_openai_server_and_chat_engine_uses_it(starter: Path) -> None:
    import time

    import httpx

    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "engine.cli", "serve", "--model", "starter", "--ctx", "2048",
         "--port", str(port), "--api-key", "sekrit"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT, env=child_env(),
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert server.poll() is None, server.stderr.read() if server.stderr else ""
            try:
                if httpx.get(
                    f"{url}/models", headers={"Authorization": "Bearer sekrit"}
                ).is_success:
                    break
            except httpx.HTTPError:
                time.sleep(0.2)
        out = cove(
            "chat", "--engine", url, "--api-key", "sekrit", "--temperature", "0",
            "--max-tokens", "32", "--stats", "json", "--system", SYSTEM_PROMPT,
            CAPITAL_QUESTION,
        )  # fmt: skip
        assert out.returncode == 0, out.stderr
        assert "Paris" in out.stdout
        stats = json.loads(out.stderr.strip().splitlines()[-1])
        assert stats["completion_tokens"] > 0 and stats["ttft_s"] > 0
        wrong = cove("chat", "--engine", url, "--api-key", "nope", "hi")
        assert wrong.returncode == 1 and "API key" in wrong.stderr
    finally:
        server.terminate()
        _out, err = server.communicate(timeout=20)
    # Prompts never reach the log unless asked for.
    assert "capital of France" not in err
    assert "POST /v1/chat/completions 200" in err


def test_serve_warns_when_exposed_to_the_network(starter: Path) -> None:
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "engine.cli", "serve", "--host", "0.0.0.0", "--port", str(port),
         "--api-key", "cove-test-key"],
        stderr=subprocess.PIPE, text=True, cwd=ROOT, env=child_env(),
    )  # fmt: skip
    try:
        assert server.stderr is not None
        first = server.stderr.readline()
    finally:
        server.terminate()
        server.communicate(timeout=20)
    assert "other machines on the network can reach this engine (with the key)" in first
    assert "not encrypted (--lan encrypts it)" in first


def test_chat_with_unreachable_engine_is_one_line() -> None:
    out = cove("chat", "--engine", f"http://127.0.0.1:{_free_port()}/v1", "hi")
    assert out.returncode == 1
    assert out.stderr.startswith("cove: error: Cannot reach the engine")
    assert "Traceback" not in out.stderr
