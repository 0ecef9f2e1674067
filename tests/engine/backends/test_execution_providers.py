"""ONNX builds for execution providers this machine lacks, on the real runtime: a CUDA build's
graph runs on the CPU instead (and says so); an NPU-compiled build is refused with the reason
before anything loads. The starter's ONNX build stands in for both: its genai_config names the
provider, which is all that differs between such builds' configs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.backends import backend_for
from engine.backends.loader import require_fit
from engine.errors import BackendUnavailable
from engine.formats.onnx import read_onnx_model
from engine.hardware import probe_hardware
from engine.planner.onnx import plan_onnx, provider_here
from engine.planner.plan import resources_from
from engine.types import GenerationParams
from tests.conftest import CAPITAL, collect

ONNX_STARTER = "smollm2-135m-instruct-onnx-int4-cpu"


def build_for(shared_models: Path, folder: Path, provider: str | None) -> Path:
    """The starter's ONNX build with its config naming ``provider`` (files linked, not copied)."""
    source = shared_models / ONNX_STARTER
    folder.mkdir()
    for item in source.iterdir():
        if item.name != "genai_config.json":
            (folder / item.name).symlink_to(item)
    config = json.loads((source / "genai_config.json").read_text())
    options: list[dict[str, dict[str, str]]] = [{provider: {}}] if provider else []
    config["model"]["decoder"]["session_options"]["provider_options"] = options
    (folder / "genai_config.json").write_text(json.dumps(config))
    return folder


def test_a_cuda_build_runs_on_the_cpu_here_and_says_so(shared_models: Path, tmp_path: Path) -> None:
    folder = build_for(shared_models, tmp_path / "smollm2-cuda", "cuda")
    info = read_onnx_model(folder)
    assert info.provider == "cuda" and not info.compiled
    report = probe_hardware()
    assert "CUDAExecutionProvider" not in report.ort.providers  # this machine has no GPU
    plan = plan_onnx(info, resources_from(report), requested_ctx=1024)
    assert plan.loadable and plan.device == "CPU"
    assert any("NVIDIA GPU (CUDA)" in r and "runs on the CPU instead" in r for r in plan.reasons)
    with backend_for(folder).load(folder, plan) as model:  # type: ignore[attr-defined]
        params = GenerationParams(temperature=0.0, max_tokens=12)
        text, final = collect(model.chat(list(CAPITAL), params))
    assert final.finish_reason in ("stop", "length") and "Paris" in text


@pytest.mark.parametrize("provider", ["qnn", "openvino", "vitisai"])
def test_an_npu_build_is_refused_with_the_reason(
    shared_models: Path, tmp_path: Path, provider: str
) -> None:
    folder = build_for(shared_models, tmp_path / f"smollm2-{provider}", provider)
    plan = plan_onnx(read_onnx_model(folder), resources_from(probe_hardware()))
    assert plan.verdict == "unsupported" and not plan.loadable
    assert "compiled for" in plan.reasons[-1] and "CPU build" in plan.reasons[-1]
    with pytest.raises(BackendUnavailable, match="compiled for"):
        require_fit(plan)


def test_a_graph_with_device_contexts_is_taken_for_compiled(
    shared_models: Path, tmp_path: Path
) -> None:
    """Whatever provider its config names, a graph holding EPContext nodes was compiled for a
    device; a CUDA-named one of those cannot fall back either."""
    folder = build_for(shared_models, tmp_path / "ctx", "cuda")
    info = read_onnx_model(folder)
    graph = folder / "model.onnx"
    target = graph.resolve()
    graph.unlink()
    graph.write_bytes(b"\x08\x07" + b"EPContext" + target.read_bytes()[:4096])
    compiled = read_onnx_model(folder)
    assert not info.compiled and compiled.compiled
    provider, why = provider_here(compiled, ("CPUExecutionProvider",))
    assert provider == "" and why is not None and "compiled for" in why
    # Where the provider is there, it is used, whatever the graph holds.
    assert provider_here(compiled, ("CUDAExecutionProvider", "CPUExecutionProvider")) == (
        "cuda",
        None,
    )


def test_the_cpu_build_and_unknown_machines_are_left_as_they_are(shared_models: Path) -> None:
    info = read_onnx_model(shared_models / ONNX_STARTER)
    assert provider_here(info, ("CPUExecutionProvider",)) == ("cpu", None)
    assert provider_here(info, None) == ("cpu", None)
