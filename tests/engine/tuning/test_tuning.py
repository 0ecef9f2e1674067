"""The measured choice on this machine's real runtimes: the starter model with flash attention on
and off (and its ONNX build, where the test models are present), measured once, kept, read back
without measuring again; an override; the rule that picks a way for a context; and the engine
host measuring on a model's first load."""

from __future__ import annotations

import json
import os
import shutil
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from engine.errors import EngineError
from engine.hardware import HardwareReport, probe_hardware
from engine.planner.plan import Plan, Resources, resources_from
from engine.tuning import Choice, choose, model_family
from engine.tuning.configs import Config, Way
from engine.tuning.decide import decide
from engine.tuning.figures import Measurement, Sample
from engine.tuning.measure import measure_once
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
        assert 3 <= m.runs <= 5 and 0 <= m.others_cpu <= 1
    assert len({m.runs for m in choice.measurements}) == 1  # the ways took turns, round by round
    assert seen == sorted(seen) and seen[-1] == 1.0
    # The choice is the fastest turn at this context and says by how much, or the runtime's
    # default where the fastest is within noise of it.
    turns = {m.config: m.turn_s(choice.plan.n_ctx) for m in choice.measurements}
    if choice.within_noise:
        assert choice.config == choice.ways[0] and "within noise" in choice.reason
    else:
        assert choice.config == min(turns, key=lambda c: turns[c])
        assert "fastest of 3 ways" in choice.reason
    assert choice.plan.flash_attn == choice.config.flash_attn
    kept = json.loads((tmp_path / "tuning.json").read_text())
    assert len(kept["measurements"]) == 3

    def no_measuring(*_args: object, **_kwargs: object) -> Measurement:
        raise AssertionError("measured again")

    monkeypatch.setattr("engine.tuning.measure_ways", no_measuring)
    again = choose(
        starter,
        resources_from(report),
        report,
        ctx=2048,
        store=store,
        siblings=(onnx,),
        measure_now=True,
        quiet=lambda: False,  # a provisional result waits for a quiet machine; none now
    )
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


def _measurement(config: Config, near_tps: float, deep_tps: float, runs: int = 3) -> Measurement:
    sample = Sample(200.0, 300, near_tps, 1300, deep_tps, 1.0)
    return Measurement(config, 0.2, (sample,) * runs)


def test_the_way_chosen_depends_on_the_context(starter: Path, report: HardwareReport) -> None:
    """Flash attention on the CPU: faster at the start of a chat, slower deep into it (the
    figures of docs/PERFORMANCE.md). A short context takes it on; a long one off."""
    from engine.tuning import _decided

    resources = resources_from(report)
    short = ways_to_run(starter, resources, ctx=512)
    long = ways_to_run(starter, resources, ctx=8192)
    for ways, expect_on in ((short, True), (long, False)):
        on, off = ways
        found = {
            on.config: _measurement(on.config, 92.1, 60.0),
            off.config: _measurement(off.config, 82.3, 70.0),
        }
        choice: Choice = _decided(ways, found, "cached", tuple(w.config for w in ways))
        assert choice.config.flash_attn is expect_on, (ways[0].plan.n_ctx, choice.reason)


def test_a_way_that_reads_long_prompts_much_faster_wins_though_it_writes_slower(
    starter: Path, report: HardwareReport
) -> None:
    """The figures above, and reading measured at depth too: flash attention off writes faster
    deep into a long context, but reads prompts there four times slower. A turn reads as well as
    writes, so the long context takes flash attention on."""
    from engine.tuning import _decided

    on, off = ways_to_run(starter, resources_from(report), ctx=8192)

    def measured(config: Config, near: float, deep: float, deep_read: float) -> Measurement:
        sample = Sample(1000.0, 300, near, 1300, deep, 1.0, deep_read, 1500)
        return Measurement(config, 0.2, (sample,) * 3)

    found = {
        on.config: measured(on.config, 92.1, 60.0, 900.0),
        off.config: measured(off.config, 82.3, 70.0, 400.0),
    }
    choice: Choice = _decided([on, off], found, "cached", (on.config, off.config))
    assert choice.config.flash_attn is True, choice.reason
    assert "1024 prompt tokens read" in choice.reason
    first = found[on.config].samples[0]
    assert first.prefill_s(150) == pytest.approx(1 / 1000)
    assert first.prefill_s(1500) == pytest.approx(1 / 900)
    assert first.prefill_s(4096) > first.prefill_s(1500)


def test_runs_stored_before_reading_at_depth_was_measured_still_read() -> None:
    old: dict[str, object] = {
        "prefill_tokens_per_s": 800.0, "near_depth": 300, "near_tokens_per_s": 90.0,
        "deep_depth": 1300, "deep_tokens_per_s": 70.0, "seconds": 2.0,
    }  # fmt: skip
    sample = Sample.from_dict(old)
    assert sample.deep_prefill_tokens_per_s == 0 and sample.deep_prefill_depth == 0
    assert sample.prefill_s(100) == sample.prefill_s(8000) == pytest.approx(1 / 800)
    assert Sample.from_dict(sample.to_dict()) == sample


def test_without_measurements_the_planners_way_is_kept(
    starter: Path, report: HardwareReport, tmp_path: Path
) -> None:
    store = TuningStore(tmp_path / "t.json")
    choice = choose(starter, resources_from(report), report, ctx=2048, store=store, siblings=())
    assert choice is not None and choice.source == "not_measured"
    assert choice.config.flash_attn is True  # the planner's own way
    assert not (tmp_path / "t.json").exists()


def test_the_engine_host_measures_when_idle_after_the_first_load_and_reuses_it(
    starter: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first load of a fresh data folder answers at once with the planner's way; the ways
    are measured in the idle moments that follow, and the next start reads them."""
    from engine.client.local import LocalEngine

    monkeypatch.delenv("COVE_NO_TUNING", raising=False)
    monkeypatch.setenv("COVE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("COVE_MODELS_DIR", str(tmp_path / "models"))
    # Waiting for a quiet machine is tested with a scripted load (test_idle_tuning.py): here the
    # measuring runs whatever else this machine does.
    monkeypatch.setenv("COVE_BACKGROUND_ANY_LOAD", "1")
    tuning = tmp_path / "data" / "tuning.json"
    for run in range(2):
        engine = LocalEngine.start(log_path=tmp_path / f"engine{run}.log", ready_timeout=120)
        try:
            status = engine.client.load("starter", ctx=2048)
            assert status.plan is not None
            if run == 0:
                assert not tuning.exists()  # loaded without measuring
                assert status.measuring
                deadline = time.monotonic() + 900
                while status.measuring and time.monotonic() < deadline:
                    time.sleep(0.2)  # polling the status: the measuring runs when idle
                    status = engine.client.status()
                assert not status.measuring and status.measured
            kept = json.loads(tuning.read_text())["measurements"]
            assert len(kept) == 2  # flash attention on and off
            if run == 0:
                first = tuning.stat().st_mtime_ns
                provisional = any(v["provisional"] for v in kept.values())
            elif not provisional:
                assert tuning.stat().st_mtime_ns == first  # read, not measured again
                assert not status.measuring
            plan = status.plan
            assert plan is not None
            assert [v for v in kept.values() if v["config"]["flash_attn"] == plan.flash_attn]
        finally:
            engine.stop()
            engine.client.close()


def test_a_way_that_fails_to_measure_says_so(starter: Path, tmp_path: Path) -> None:
    """A prompt a model stops on at once cannot be measured: an error, not a number."""
    from engine.formats.gguf import read_gguf
    from engine.planner.gguf import make_plan

    report = probe_hardware()
    plan = make_plan(read_gguf(starter), resources_from(report), requested_ctx=512)
    with pytest.raises(EngineError):
        measure_once(tmp_path / "missing.gguf", plan)


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


# -- noise: interleaved rounds, the runtime's default within noise, a busy machine ----------------


def _runs(turns: list[float]) -> tuple[Sample, ...]:
    """Runs whose typical turn at a 1k context takes these seconds (a flat line: one speed)."""
    samples = []
    for turn in turns:
        tps = 128 / (turn - 256 / 1000.0)
        samples.append(Sample(1000.0, 300, tps, 1300, tps, 1.0))
    return tuple(samples)


def _ways(starter: Path, report: HardwareReport) -> list[Way]:
    return ways_to_run(starter, resources_from(report), ctx=1024)


def test_one_disturbed_round_does_not_flip_the_choice(
    starter: Path, report: HardwareReport
) -> None:
    default, other = _ways(starter, report)
    # The default is 20 % faster, but a busy spell slowed its run in one round.
    runs = {default.config: _runs([1.0, 3.0, 1.0]), other.config: _runs([1.2, 1.2, 1.2])}
    assert decide([default, other], runs).chosen is default
    # Two spoiled rounds make the other way's median faster, yet it was slower in the clean
    # round: not clearly faster, so the runtime's default stays.
    runs = {default.config: _runs([1.0, 3.0, 3.0]), other.config: _runs([1.2, 1.2, 1.2])}
    decision = decide([default, other], runs)
    assert decision.chosen is default and decision.within_noise


def test_a_way_clearly_faster_in_every_round_wins(starter: Path, report: HardwareReport) -> None:
    default, other = _ways(starter, report)
    runs = {default.config: _runs([1.3, 1.25, 1.4]), other.config: _runs([1.0, 1.1, 1.05])}
    decision = decide([default, other], runs)
    assert decision.chosen is other and decision.clear and decision.ratio < 0.95


def test_a_difference_within_noise_keeps_the_runtimes_default(
    starter: Path, report: HardwareReport
) -> None:
    default, other = _ways(starter, report)
    runs = {default.config: _runs([1.03, 1.02, 1.04]), other.config: _runs([1.0, 1.0, 1.0])}
    decision = decide([default, other], runs)
    assert decision.fastest is other and decision.chosen is default and decision.within_noise
    choice = _decided_choice([default, other], runs)
    assert choice.within_noise and choice.config == default.config
    assert "within noise" in choice.reason and choice.to_dict()["within_noise"] is True


def _decided_choice(ways: list[Way], runs: dict[Config, tuple[Sample, ...]]) -> Choice:
    from engine.tuning import _decided

    found = {c: Measurement(c, 0.1, samples) for c, samples in runs.items()}
    return _decided(ways, found, "cached", tuple(w.config for w in ways))


def test_a_version_1_file_keeps_the_overrides_and_measures_again(
    starter: Path, tmp_path: Path
) -> None:
    path = tmp_path / "tuning.json"
    path.write_text(
        json.dumps(
            {
                "version": 1,
                "measurements": {"m:b:c": {"config": {}, "load_s": 1}},
                "overrides": {str(starter.resolve()): "a way"},
            }
        )
    )
    store = TuningStore(path)
    assert store.override(starter) == "a way"
    assert store.measured("m") == {}


def test_a_version_2_file_keeps_all_but_its_runs_which_are_measured_again(
    starter: Path, tmp_path: Path
) -> None:
    """Version 2's runs read no prompt at depth: the ways are measured again; the overrides
    and the rest (how many replies at once pay, failures to retry) stay."""
    path = tmp_path / "tuning.json"
    batching = {"m|x": {"chosen": 4}}
    path.write_text(
        json.dumps(
            {
                "version": 2,
                "measurements": {"m": {"b": {"c": {"config": {}, "load_s": 1}}}},
                "overrides": {str(starter.resolve()): "a way"},
                "batching": batching,
            }
        )
    )
    store = TuningStore(path)
    assert store.override(starter) == "a way"
    assert store.measured("m") == {}
    assert store._read()["batching"] == batching


def _one_thread(report: HardwareReport) -> Resources:
    """The model on one thread beside the busy loops: a runtime whose threads outnumber the
    cores left to it slows down many times over (they wait for each other at every step), which
    only makes a test long."""
    return replace(resources_from(report), threads=1)


class BusyLoops:
    """Processes that keep cores busy until stopped, or for ``limit_s`` at most: enough of them
    that this machine counts as busy (engine/tuning/load.py), whatever its size."""

    def __init__(self, limit_s: float = 300) -> None:
        import math
        import subprocess
        import sys

        import psutil

        from engine.tuning.load import BUSY_CORES, BUSY_SHARE

        cores = psutil.cpu_count(logical=True) or 1
        count = math.ceil(max(BUSY_CORES, BUSY_SHARE * cores))
        loop = (
            f"import time\nend = time.monotonic() + {limit_s}\nwhile time.monotonic() < end: pass"
        )
        self.procs = [subprocess.Popen([sys.executable, "-c", loop]) for _ in range(count)]

    def stop(self) -> None:
        for proc in self.procs:
            proc.kill()
            proc.wait()

    def __enter__(self) -> BusyLoops:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stop()


@pytest.mark.slow
def test_a_measurement_on_a_busy_machine_is_provisional_and_measured_again(
    starter: Path, report: HardwareReport, tmp_path: Path
) -> None:
    store = TuningStore(tmp_path / "tuning.json")
    resources = _one_thread(report)
    with BusyLoops():
        busy = choose(
            starter, resources, report, ctx=512, measure_now=True, store=store, siblings=()
        )
    assert busy is not None and busy.source == "measured" and busy.provisional
    assert all(m.others_cpu > 0 and m.provisional for m in busy.measurements)
    assert "measured again later, when the computer is idle" in busy.reason
    assert json.loads(store.path.read_text())["measurements"]
    assert busy.to_dict()["provisional"] is True

    calls: list[Path] = []

    def counted(path: Path, plan: object, progress: object) -> tuple[Sample, float]:
        calls.append(path)
        return _runs([1.0])[0], 0.1

    # Still busy at the next load: the provisional figures are used, not measured again.
    kept = choose(
        starter, resources, report, ctx=512, measure_now=True, store=store, siblings=(),
        quiet=lambda: False, once=counted,
    )  # fmt: skip
    assert kept is not None and kept.source == "cached" and kept.provisional and not calls
    # Quiet at a later load: measured again, every way, round by round.
    again = choose(
        starter, resources, report, ctx=512, measure_now=True, store=store, siblings=(),
        quiet=lambda: True, once=counted,
    )  # fmt: skip
    assert again is not None and again.source == "measured" and len(calls) >= 6
    assert not again.provisional  # runs too short to count anyone else's use


def test_a_busy_spell_during_one_way_does_not_flip_the_choice(
    starter: Path, report: HardwareReport, tmp_path: Path
) -> None:
    """The worst case for measuring one way after the other: the machine is busy while the way
    that should win runs. Interleaved rounds share the spell out, and the choice is the one an
    undisturbed measurement makes. The runs are scripted (the default way 20 % faster, a spell
    tripling its first run): two real measurements of ways this close differ by the machine's
    own noise, which bench/bench_tuning_noise.py measures."""
    resources = _one_thread(report)
    ways = _ways(starter, report)
    winner = str(ways[0].config.path), ways[0].plan.flash_attn

    def scripted(spell: bool) -> Any:
        first_run = [spell]

        def once(path: Path, plan: Plan, progress: object) -> tuple[Sample, float]:
            fast = (str(path), plan.flash_attn) == winner
            turn = 1.0 if fast else 1.2
            if fast and first_run[0]:
                first_run[0] = False
                turn *= 3  # a busy spell over the winner's first run only
            return _runs([turn])[0], 0.1

        return once

    quiet = choose(
        starter, resources, report, ctx=4096, measure_now=True,
        store=TuningStore(tmp_path / "quiet.json"), siblings=(), once=scripted(False),
    )  # fmt: skip
    busy = choose(
        starter, resources, report, ctx=4096, measure_now=True,
        store=TuningStore(tmp_path / "busy.json"), siblings=(), once=scripted(True),
    )  # fmt: skip
    assert quiet is not None and busy is not None
    assert (str(quiet.config.path), quiet.config.flash_attn) == winner
    assert busy.config == quiet.config, (quiet.reason, busy.reason)
