"""Recommendations by predicted speed on machines this one is not (tests/support/machines.py,
each with the bandwidth its probe would find): the best build that fits and is fast enough,
else the fastest that fits, with the speeds in the reason; and a real reply checked against its
prediction here."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from engine.advice.recommend import GPU_FULL, Recommendation, _quality, recommend
from engine.library.catalog import load_catalog
from tests.support.machines import (
    MACHINES,
    cpu_only_8gb,
    mac_m3_pro_18gb,
    nvidia_laptop_8gb,
)

SPEED = re.compile(r"about \d+(\.\d)? tokens/s here")


def rec(model_id: str, machine: str, goal: float = 10.0) -> Recommendation:
    entry = load_catalog().get(model_id)
    assert entry is not None
    return recommend(entry, MACHINES[machine](), comfortable_tps=goal)


def test_a_cpu_only_8gb_laptop_gets_a_q4_build_of_a_7b_and_hears_how_slow() -> None:
    r = rec("mistral-7b-instruct-v0.3", "cpu-only-8gb")
    assert r.choice is not None and r.choice.variant.quant == "Q4_K_M"
    assert SPEED.search(r.reason), r.reason
    assert r.choice.decode_tps < 10 and not r.runs_well
    # A small model is what runs at reading speed there.
    small = rec("llama-3.2-1b-instruct", "cpu-only-8gb")
    assert small.runs_well and small.choice is not None
    assert small.choice.decode_tps >= 10


def test_an_rtx_4060_laptop_gets_the_largest_quant_that_fits_in_its_vram() -> None:
    r = rec("qwen2.5-7b-instruct", "nvidia-laptop-8gb")
    assert r.choice is not None and r.choice.tier == GPU_FULL and r.runs_well
    on_gpu = [o for o in r.options if o.tier == GPU_FULL and o.fits]
    assert r.choice.variant.quant == max(on_gpu, key=lambda o: _quality(o.variant)).variant.quant
    bigger = [o for o in r.options if _quality(o.variant) > _quality(r.choice.variant)]
    assert bigger and not any(o.tier == GPU_FULL and o.fits for o in bigger)
    assert SPEED.search(r.reason) and "would need" in r.reason, r.reason


def test_an_m3_pro_gets_the_build_its_unified_memory_serves_at_speed() -> None:
    r = rec("qwen2.5-14b-instruct", "mac-m3-pro-18gb")
    assert r.choice is not None and r.runs_well and "Metal" in r.choice.device
    # Asking for more speed than its memory can give a 14B picks the fastest build instead.
    strict = rec("qwen2.5-14b-instruct", "mac-m3-pro-18gb", goal=40)
    assert strict.choice is not None and not strict.runs_well
    fitting = [o for o in strict.options if o.fits]
    assert strict.choice.decode_tps == max(o.decode_tps for o in fitting)
    assert "the fastest build that fits (below the 40 tokens/s aimed for)" in strict.reason


def test_the_comfortable_speed_decides_between_quality_and_speed() -> None:
    easy = rec("qwen2.5-1.5b-instruct", "cpu-only-8gb", goal=1)
    hard = rec("qwen2.5-1.5b-instruct", "cpu-only-8gb", goal=25)
    assert easy.choice is not None and hard.choice is not None
    assert _quality(easy.choice.variant) > _quality(hard.choice.variant)
    assert easy.choice.variant.quant == "Q8_0"
    assert re.search(r"; Q5_K_M would be about \d+(\.\d)?\.$", hard.reason), hard.reason


@pytest.mark.parametrize("machine", sorted(MACHINES))
def test_every_choice_follows_the_rule_on_every_machine(machine: str) -> None:
    """Fits wholly and fast enough: the best tier's best quality; none fast enough: the
    fastest that fits. Every option that can run has a predicted speed."""
    for entry in load_catalog().models:
        if entry.kind != "chat":
            continue
        r = recommend(entry, MACHINES[machine](), comfortable_tps=10)
        for o in r.options:
            if o.loadable and o.build.missing is None:
                assert o.prediction is not None and o.prediction.decode_tps > 0, entry.id
                assert o.prediction.prompt_tps > o.prediction.decode_tps, entry.id
        full = [o for o in r.options if o.fits and o.why_not is None and o.build.missing is None]
        if not full:
            continue
        assert r.choice is not None and r.choice.fits, (entry.id, r.reason)
        quick = [o for o in full if o.decode_tps >= 10]
        if quick:
            tier = min(o.tier for o in quick)
            best = max(_quality(o.variant) for o in quick if o.tier == tier)
            assert (r.choice.tier, _quality(r.choice.variant)) == (tier, best), entry.id
        else:
            assert r.choice.decode_tps == max(o.decode_tps for o in full), entry.id
        assert SPEED.search(r.reason), (entry.id, r.reason)


def test_without_a_speed_profile_the_choice_is_by_fit_alone() -> None:
    entry = load_catalog().get("qwen2.5-7b-instruct")
    assert entry is not None
    r = recommend(entry, dataclasses.replace(nvidia_laptop_8gb(), speed=None))
    assert r.choice is not None and r.choice.prediction is None and not r.runs_well
    assert "tokens/s" not in r.reason
    assert r.to_dict()["options"][0]["predicted_decode_tps"] is None  # type: ignore[index]


def test_search_json_gives_each_option_its_predicted_speeds() -> None:
    from engine.cli.search import SearchResult

    matches = [m for m in load_catalog().models if m.id == "phi-3.5-mini-instruct"]
    report = mac_m3_pro_18gb()
    result = SearchResult("phi", [recommend(m, report) for m in matches], [], None, report)
    data = result.to_dict()
    options = data["catalog"][0]["options"]
    runnable = [o for o in options if not o["why_not"]]
    assert runnable and all(o["predicted_decode_tps"] > 0 for o in runnable)
    assert all(o["predicted_prompt_tps"] > o["predicted_decode_tps"] for o in runnable)
    assert all("GB/s memory" in o["speed_basis"] for o in runnable)
    assert data["catalog"][0]["comfortable_decode_tps"] > 0


def test_a_replys_speed_is_checked_against_its_prediction(
    starter: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The starter really run here: a prediction off by more than 30 % corrects the rates
    (and ``cove tune``'s careful measurements always do); one within it is only recorded as
    the model's measured speed."""
    from engine.backends.loader import plan_model
    from engine.hardware import probe_hardware
    from engine.speed.check import check
    from engine.speed.machine import profile_for
    from engine.speed.observe import observation_from_sample
    from engine.speed.store import SpeedStore
    from engine.tuning.measure import measure_once
    from engine.tuning.store import machine_key

    monkeypatch.setenv("COVE_DATA_DIR", str(tmp_path))
    report = probe_hardware()
    assert profile_for(report) is not None  # the bandwidth probe (the starter is not run)
    path, info, plan = plan_model(str(starter), ctx=2048)
    sample, _load = measure_once(path, plan)
    obs = observation_from_sample(path, info, plan, sample)
    assert obs is not None and obs.near_tps > 0 and obs.deep_tps is not None
    assert obs.deep_tps is not None
    far = dataclasses.replace(
        obs,
        near_tps=obs.near_tps * 100,
        deep_tps=obs.deep_tps * 100,
        prompt_tps=obs.prompt_tps * 100,
    )
    result = check(report, path, plan, far)
    assert result is not None and result.corrected and result.decode_error > 0.3
    store = SpeedStore()
    assert str(path.resolve()) in store.calibrating(machine_key(report))
    # Corrected: the same figures are now predicted within 30 %.
    again = check(report, path, plan, far)
    assert again is not None and not again.corrected and abs(again.decode_error) < 0.3
    profile = profile_for(report, measure=False)
    assert profile is not None and profile.calibrations["llama.cpp:cpu"].is_measured


def test_cpu_only_machine_has_no_gpu_figures() -> None:
    speed = cpu_only_8gb().speed
    assert speed is not None and [d.kind for d in speed.devices] == ["cpu"]
