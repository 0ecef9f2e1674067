"""ONNX chat models on onnxruntime-genai, on the real int4 SmolLM2 folder: answers, the streaming
contract, KV reuse across turns, cancellation, overflow, malformed folders, the memory plan, and the
same model through the engine host."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.backends import backend_for
from engine.backends.ort_genai import OrtGenaiModel
from engine.errors import ModelLoadError
from engine.formats.onnx import read_onnx_model
from engine.planner.onnx import plan_onnx
from engine.planner.plan import Device, Plan, Resources
from engine.types import ChatMessage, GenerationParams
from tests.conftest import CAPITAL, collect

GREEDY = GenerationParams(temperature=0.0, max_tokens=32)
RESOURCES = Resources(cpu=Device("CPU RAM", "cpu", 16 * 2**30, 24 * 2**30), threads=2)
QUESTION = list(CAPITAL)


@pytest.fixture(scope="module")
def folder(shared_models: Path) -> Path:
    path = shared_models / "smollm2-135m-instruct-onnx-int4-cpu"
    if not path.is_dir():
        pytest.skip(f"{path} is absent")
    return path


def plan_for(folder: Path, ctx: int) -> Plan:
    return plan_onnx(read_onnx_model(folder), RESOURCES, requested_ctx=ctx)


@pytest.fixture(scope="module")
def model(folder: Path) -> Iterator[OrtGenaiModel]:
    m = OrtGenaiModel(folder, plan_for(folder, 2048))
    yield m
    m.close()


def test_the_registry_routes_folders_to_onnxruntime_genai(folder: Path) -> None:
    assert backend_for(folder).name == "onnxruntime-genai"


def test_overflow_keeps_the_system_prompt_and_says_so(folder: Path) -> None:
    with OrtGenaiModel(folder, plan_for(folder, 512)) as small:
        history = [ChatMessage("system", "You are terse.")]
        for i in range(12):
            history += [
                ChatMessage("user", f"Question {i}: " + "tell me about the sea " * 10),
                ChatMessage("assistant", "The sea is large. " * 8),
            ]
        history.append(ChatMessage("user", "What is the capital of France?"))
        _text, final = collect(small.chat(history, GenerationParams(temperature=0, max_tokens=16)))
    assert final.finish_reason in ("stop", "length")
    assert final.truncation is not None and final.truncation.dropped_messages > 0
    assert "system prompt was kept" in final.truncation.describe()


@pytest.mark.parametrize(
    ("damage", "needle"),
    [
        (lambda d: (d / "genai_config.json").write_text("{not json"), "not valid JSON"),
        (lambda d: (d / "genai_config.json").write_text('{"model": 3}'), "'model' must be"),
        (lambda d: (d / "tokenizer.json").unlink(), "tokenizer.json"),
        (lambda d: (d / "model.onnx").unlink(), "missing its model graph"),
        (lambda d: (d / "model.onnx").write_bytes(b"\x00garbage" * 100), "could not load"),
        (
            lambda d: (d / "model.onnx.data").write_bytes(b"\x01" * 1000),
            "could not load",
        ),
    ],
)
def test_malformed_folders_are_clear_errors(folder: Path, tmp_path: Path, damage, needle) -> None:  # type: ignore[no-untyped-def]
    copy = tmp_path / "model"
    shutil.copytree(folder, copy)
    damage(copy)
    with pytest.raises(ModelLoadError, match=needle):
        OrtGenaiModel(copy, plan_for(folder, 1024))


def test_config_with_hostile_values_is_rejected(folder: Path, tmp_path: Path) -> None:
    copy = tmp_path / "model"
    shutil.copytree(folder, copy)
    config = json.loads((copy / "genai_config.json").read_text())
    config["model"]["decoder"]["filename"] = "../../etc/passwd"
    (copy / "genai_config.json").write_text(json.dumps(config))
    with pytest.raises(ModelLoadError, match="file in the folder"):
        read_onnx_model(copy)
    config["model"]["decoder"]["filename"] = "model.onnx"
    config["model"]["decoder"]["num_hidden_layers"] = 10**9
    (copy / "genai_config.json").write_text(json.dumps(config))
    with pytest.raises(ModelLoadError, match="num_hidden_layers"):
        read_onnx_model(copy)


def test_plan_reduces_context_or_refuses(folder: Path) -> None:
    info = read_onnx_model(folder)
    roomy = plan_onnx(info, RESOURCES, requested_ctx=8192)
    assert roomy.verdict == "fits" and roomy.n_ctx == 8192
    tight = Resources(cpu=Device("CPU RAM", "cpu", 800 * 2**20, 24 * 2**30), threads=2)
    reduced = plan_onnx(info, tight, requested_ctx=8192)
    assert reduced.verdict == "fits_reduced_context" and 512 <= reduced.n_ctx < 8192
    none = Resources(cpu=Device("CPU RAM", "cpu", 300 * 2**20, 24 * 2**30), threads=2)
    assert plan_onnx(info, none).verdict == "does_not_fit"


_MEASURE = """
import json, sys
from pathlib import Path
from engine.backends.ort_genai import OrtGenaiModel
from engine.formats.onnx import read_onnx_model
from engine.planner.onnx import plan_onnx
from engine.planner.plan import Device, Resources
from engine.types import ChatMessage, GenerationParams
folder, ctx = Path(sys.argv[1]), int(sys.argv[2])
plan = plan_onnx(read_onnx_model(folder), Resources(Device("CPU RAM", "cpu", 16 << 30, 24 << 30)),
                 requested_ctx=ctx)
m = OrtGenaiModel(folder, plan)
long = [ChatMessage("user", "hello " * (ctx - 200))]
for _ in m.chat(long, GenerationParams(temperature=0, max_tokens=16)):
    pass
# VmHWM, not ru_maxrss: the latter carries the parent's peak across fork and exec.
hwm = next(l for l in open("/proc/self/status") if l.startswith("VmHWM:"))
peak = int(hwm.split()[1]) * 1024
print(json.dumps({"predicted": plan.total_bytes, "peak": peak}))
"""


@pytest.mark.parametrize("ctx", [2048, 4096])
def test_plan_predicts_measured_peak_memory(folder: Path, ctx: int) -> None:
    """A fresh process loads the folder with its plan and fills the context: the predicted total
    is within 10 % of the measured peak resident memory."""
    if not sys.platform.startswith("linux"):
        pytest.skip("reads the peak resident size from /proc")
    out = subprocess.run(
        [sys.executable, "-c", _MEASURE, str(folder), str(ctx)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=Path(__file__).resolve().parents[3],
    )
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout.strip().splitlines()[-1])
    error = (result["predicted"] - result["peak"]) / result["peak"]
    assert abs(error) < 0.10, result


def test_the_host_serves_an_onnx_folder(local_engine: object, folder: Path) -> None:
    from engine.client.local import LocalEngine

    assert isinstance(local_engine, LocalEngine)
    client = local_engine.client
    status = client.load(str(folder), ctx=2048)
    try:
        assert status.backend == "onnxruntime-genai" and status.n_ctx == 2048
        assert status.model == folder.name
        text, final = collect(client.chat(QUESTION, GREEDY))
        assert "Paris" in text and final.finish_reason in ("stop", "length")
    finally:
        client.load("starter", ctx=2048)


def test_a_reply_that_must_match_a_grammar_is_refused_not_passed_off(
    model: OrtGenaiModel,
) -> None:
    from engine.errors import InvalidRequest
    from engine.tools.constrain import ANY_JSON_OBJECT, grammar_for
    from engine.types import ChatMessage, GenerationParams

    params = GenerationParams(temperature=0.0, max_tokens=8, grammar=grammar_for(ANY_JSON_OBJECT))
    with pytest.raises(InvalidRequest, match="onnxruntime-genai cannot constrain"):
        model.chat([ChatMessage("user", "Give me JSON.")], params)


def test_logprobs_come_from_the_logits_the_token_was_chosen_from(model: OrtGenaiModel) -> None:
    import math

    from engine.types import ChatMessage, GenerationParams

    params = GenerationParams(temperature=0.0, repeat_penalty=1.0, max_tokens=12, logprobs=4)
    chunks = list(model.chat([ChatMessage("user", "Name a colour.")], params))
    assert chunks[-1].finish_reason in ("stop", "length"), chunks[-1].error
    scored = [t for c in chunks for t in c.logprobs]
    assert scored and len(scored) == chunks[-1].stats.completion_tokens  # type: ignore[union-attr]
    for token in scored:
        # Greedy: the chosen token is the most likely one of the distribution reported for it.
        assert math.isclose(token.logprob, token.top[0][1], abs_tol=1e-6)
        assert len(token.top) == 4 and sum(math.exp(lp) for _t, lp, _b in token.top) <= 1 + 1e-6
