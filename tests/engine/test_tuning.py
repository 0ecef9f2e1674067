"""The measured choice on this machine's real runtimes: the starter model with flash attention on
and off (and its ONNX build, where the test models are present), measured once, kept, read back
without measuring again; an override; the rule that picks a way for a context; and the engine
host measuring on a model's first load."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from engine.errors import EngineError
from engine.hardware import HardwareReport, probe_hardware
from engine.planner import resources_from
from engine.tuning import Choice, choose, model_family
from engine.tuning.configs import Config
from engine.tuning.figures import Measurement
from engine.tuning.measure import measure_way
from engine.tuning.store import TuningStore
from engine.tuning.ways import installed_siblings, ways_to_run

ONNX_STARTER = "smollm2-135m-instruct-onnx-int4-cpu"


@pytest.fixture(scope="module")
def report() -> HardwareReport:
    return probe_hardware()


def test_builds_of_one_model_share_a_family() -> None:
    assert model_family(Path("SmolLM2-135M-Instruct.Q4_1.gguf")) == "smollm2-135m-instruct"
    assert model_family(Path(ONNX_STARTER)) == "smollm2-135m-instruct"
    assert model_family(Path("Qwen2.5-7B-Instruct-Q4_K_M.gguf")) == "qwen2.5-7b-instruct"
    assert model_family(Path("phi-3.5-mini-instruct-cuda-fp16")) == "phi-3.5-mini-instruct"
    assert model_family(Path("Qwen2.5-7B-Instruct-Q4_K_M.gguf")) != model_family(
        Path("Qwen2.5-3B-Instruct-Q4_K_M.gguf")
    )


def test_an_installed_onnx_build_is_another_way_to_run_the_starter(
    starter: Path, shared_models: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    models = tmp_path / "models"
    (models / "HuggingFaceTB").mkdir(parents=True)
    (models / "HuggingFaceTB" / ONNX_STARTER).symlink_to(shared_models / ONNX_STARTER)
    monkeypatch.setenv("COVE_MODELS_DIR", str(models))
    assert installed_siblings(starter) == (models / "HuggingFaceTB" / ONNX_STARTER,)
    assert installed_siblings(models / "HuggingFaceTB" / ONNX_STARTER) == (starter,)


def test_the_starter_runs_with_flash_attention_on_or_off_on_the_cpu(
    starter: Path, report: HardwareReport
) -> None:
    ways = ways_to_run(starter, resources_from(report), ctx=2048)
    assert [(w.config.backend, w.config.flash_attn) for w in ways] == [
        ("llama.cpp", True),
        ("llama.cpp", False),
    ]
    on, off = (w.plan for w in ways)
    # Without flash attention the attention scores need scratch memory: the plan counts it.
    assert off.budgets[0].compute > on.budgets[0].compute


def test_measured_once_then_read_back_without_measuring(
    starter: Path,
    shared_models: Path,
    report: HardwareReport,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store = TuningStore(tmp_path / "tuning.json")
    onnx = shared_models / ONNX_STARTER
    seen: list[float] = []

    def progress(fraction: float) -> bool:
        seen.append(fraction)
        return True

    choice = choose(
        starter,
        resources_from(report),
        report,
        ctx=2048,
        measure_now=True,
        store=store,
        siblings=(onnx,),
        progress=progress,
    )
    assert choice is not None and choice.source == "measured"
    assert len(choice.measurements) == 3 and len(choice.ways) == 3
    assert {m.config.backend for m in choice.measurements} == {"llama.cpp", "onnxruntime-genai"}
    for m in choice.measurements:
        assert m.prefill_tokens_per_s > 0 and m.near_tokens_per_s > 0 and m.deep_tokens_per_s > 0
        assert m.deep_depth > m.near_depth >= 256
    assert seen == sorted(seen) and seen[-1] <= 1.0
    # The choice is the fastest turn at this context, and says by how much.
    turns = {m.config: m.turn_s(choice.plan.n_ctx) for m in choice.measurements}
    assert choice.config == min(turns, key=lambda c: turns[c])
    assert "fastest of 3 ways" in choice.reason
    assert choice.plan.flash_attn == choice.config.flash_attn
    kept = json.loads((tmp_path / "tuning.json").read_text())
    assert len(kept["measurements"]) == 3

    def no_measuring(*_args: object, **_kwargs: object) -> Measurement:
        raise AssertionError("measured again")

    monkeypatch.setattr("engine.tuning.measure_way", no_measuring)
    again = choose(starter, resources_from(report), report, ctx=2048, store=store, siblings=(onnx,))
    assert again is not None and again.source == "cached"
    assert again.config == choice.config
    assert [m.config for m in again.measurements] == [m.config for m in choice.measurements]
    for kept_m, measured in zip(again.measurements, choice.measurements, strict=True):
        assert abs(kept_m.near_tokens_per_s - measured.near_tokens_per_s) < 0.01

    # The user's own choice wins over the measurement, and can be taken back.
    other = next(w for w in choice.ways if w != choice.config)
    store.set_override(starter, other.label)
    chosen = choose(
        starter, resources_from(report), report, ctx=2048, store=store, siblings=(onnx,)
    )
    assert chosen is not None and (chosen.source, chosen.config) == ("override", other)
    store.set_override(starter, None)
    back = choose(starter, resources_from(report), report, ctx=2048, store=store, siblings=(onnx,))
    assert back is not None and back.source == "cached"


def test_a_changed_model_file_is_measured_again(
    starter: Path, report: HardwareReport, tmp_path: Path
) -> None:
    copy = tmp_path / starter.name
    shutil.copy(starter, copy)
    store = TuningStore(tmp_path / "tuning.json")
    resources = resources_from(report)
    first = choose(copy, resources, report, ctx=1024, measure_now=True, store=store, siblings=())
    assert first is not None and first.source == "measured"
    os.utime(copy, ns=(copy.stat().st_atime_ns, copy.stat().st_mtime_ns + 10**9))
    later = choose(copy, resources, report, ctx=1024, store=store, siblings=())
    assert later is not None and later.source == "not_measured"
    assert "not measured yet" in later.reason


def _measurement(config: Config, near_tps: float, deep_tps: float) -> Measurement:
    return Measurement(config, 0.2, 200.0, 300, near_tps, 1300, deep_tps, 3.0)


def test_the_way_chosen_depends_on_the_context(starter: Path, report: HardwareReport) -> None:
    """Flash attention on the CPU: faster at the start of a chat, slower deep into it (the
    figures of docs/PERFORMANCE.md). A short context takes it on; a long one off."""
    from engine.tuning import _fastest

    resources = resources_from(report)
    short = ways_to_run(starter, resources, ctx=512)
    long = ways_to_run(starter, resources, ctx=8192)
    for ways, expect_on in ((short, True), (long, False)):
        on, off = ways
        found = {
            on.config: _measurement(on.config, 92.1, 60.0),
            off.config: _measurement(off.config, 82.3, 70.0),
        }
        choice: Choice = _fastest(ways, found, "cached", tuple(w.config for w in ways))
        assert choice.config.flash_attn is expect_on, (ways[0].plan.n_ctx, choice.reason)


def test_without_measurements_the_planners_way_is_kept(
    starter: Path, report: HardwareReport, tmp_path: Path
) -> None:
    store = TuningStore(tmp_path / "t.json")
    choice = choose(starter, resources_from(report), report, ctx=2048, store=store, siblings=())
    assert choice is not None and choice.source == "not_measured"
    assert choice.config.flash_attn is True  # the planner's own way
    assert not (tmp_path / "t.json").exists()


def test_the_engine_host_measures_on_first_load_and_reuses_it(
    starter: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from engine.local_engine import LocalEngine

    monkeypatch.delenv("COVE_NO_TUNING", raising=False)
    monkeypatch.setenv("COVE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("COVE_MODELS_DIR", str(tmp_path / "models"))
    tuning = tmp_path / "data" / "tuning.json"
    for run in range(2):
        engine = LocalEngine.start(log_path=tmp_path / f"engine{run}.log", ready_timeout=120)
        try:
            status = engine.client.load("starter", ctx=2048)
            assert status.plan is not None
            kept = json.loads(tuning.read_text())["measurements"]
            assert len(kept) == 2  # flash attention on and off
            if run == 0:
                first = tuning.stat().st_mtime_ns
            else:
                assert tuning.stat().st_mtime_ns == first  # read, not measured again
            chosen = [
                v for v in kept.values() if v["config"]["flash_attn"] == status.plan.flash_attn
            ]
            assert chosen
        finally:
            engine.stop()
            engine.client.close()


def test_a_way_that_fails_to_measure_says_so(starter: Path, tmp_path: Path) -> None:
    """A prompt a model stops on at once cannot be measured: an error, not a number."""
    from engine.gguf import read_gguf
    from engine.planner import make_plan

    report = probe_hardware()
    plan = make_plan(read_gguf(starter), resources_from(report), requested_ctx=512)
    config = Config.of(starter, plan)
    with pytest.raises(EngineError):
        measure_way(tmp_path / "missing.gguf", plan, config)


def test_cove_plan_and_cove_tune_carry_the_choice(starter: Path, tmp_path: Path) -> None:
    from tests.cove_process import ROOT, run_cove

    env = {
        **os.environ,
        "COVE_DATA_DIR": str(tmp_path / "data"),
        "COVE_MODELS_DIR": str(tmp_path / "models"),
        "PYTHONPATH": str(ROOT),
    }
    before = json.loads(run_cove(env, "plan", "starter", "--json", timeout=120).stdout)
    assert before["choice"]["source"] == "not_measured" and len(before["choice"]["ways"]) == 2
    assert before["choice"]["backend"] == "llama.cpp" and before["choice"]["provider"] is None
    tuned = run_cove(env, "tune", "starter", "--ctx", "1024", "--json", timeout=300)
    assert tuned.returncode == 0, tuned.stderr
    choice = json.loads(tuned.stdout)["choice"]
    assert choice["source"] == "measured" and len(choice["measurements"]) == 2
    after = json.loads(
        run_cove(env, "plan", "starter", "--ctx", "1024", "--json", timeout=120).stdout
    )
    assert after["choice"]["source"] == "cached"
    assert after["flash_attn"] == after["choice"]["flash_attn"]
    labels = [w["label"] for w in after["choice"]["ways"]]
    used = run_cove(env, "tune", "starter", "--use", labels[1], "--json", timeout=120)
    assert json.loads(used.stdout)["choice"]["source"] == "override"
    wrong = run_cove(env, "tune", "starter", "--use", "on a toaster", timeout=120)
    assert wrong.returncode != 0 and "not a way" in wrong.stderr
