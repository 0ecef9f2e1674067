"""The speed model: a model's costs from its header, the rates fitted to measurements, the
probe's figures and their store, and the check of a reply against its prediction."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from engine.formats.gguf import read_gguf
from engine.hardware.benchmarks import cpu_bandwidth, cpu_flops, gpu_speed
from engine.hardware.report import HardwareReport
from engine.hardware.speed_profile import DeviceSpeed, SpeedProfile
from engine.speed.calibrate import Observation, calibration_key, decode_s, fit, prior, prompt_s
from engine.speed.facts import SpeedFacts, gguf_speed_facts, shape_by_size
from engine.speed.machine import profile_for
from engine.speed.predict import Part, calibration, predict
from engine.speed.store import SpeedStore
from engine.tuning.store import machine_key
from tests.support.machines import cpu_only_8gb, mac_m3_pro_18gb, nvidia_laptop_8gb
from tests.support.tiny_gguf import MATRIX, write_model

CPU = DeviceSpeed("cpu", "Test CPU", "cpu", 20e9, 300e9, "measured")
SMALL = SpeedFacts(96_000_000, 212_000_000, 30, 576, 23_040)
LARGER = SpeedFacts(392_000_000, 716_000_000, 24, 896, 12_288)


def observed(facts: SpeedFacts, c: object, name: str, *, deep: bool = True) -> Observation:
    """What a model of ``facts`` would measure if the machine followed ``c`` exactly."""
    assert isinstance(c, type(prior(CPU)))
    near, far = 350.0, 3000.0
    return Observation(
        model=name,
        runtime="llama.cpp",
        kind="cpu",
        facts=facts,
        prompt_tps=1 / prompt_s(c, facts, 128),
        prompt_depth=128,
        near_depth=near,
        near_tps=1 / decode_s(c, facts, near),
        deep_depth=far if deep else None,
        deep_tps=1 / decode_s(c, facts, far) if deep else None,
    )


def test_generating_reads_the_layers_and_the_head_not_the_input_table(tmp_path: Path) -> None:
    path = write_model(tmp_path / "llama.gguf", MATRIX["llama"])
    info = read_gguf(path)
    facts = gguf_speed_facts(info)
    embd = next(t for t in info.tensors if t.name == "token_embd.weight")
    tied = not any(t.name == "output.weight" for t in info.tensors)
    total = sum(t.n_bytes for t in info.tensors)
    assert facts.bytes_per_token == (total if tied else total - embd.n_bytes)
    shape = MATRIX["llama"]
    assert (facts.layers, facts.width) == (shape.layers, shape.heads * shape.head_dim)
    assert facts.kv_bytes_per_token == shape.layers * shape.kv_heads * shape.head_dim * 2 * 2
    assert not facts.moe


def test_a_mixture_of_experts_counts_only_the_experts_it_uses(tmp_path: Path) -> None:
    shape = MATRIX["qwen3moe"]
    info = read_gguf(write_model(tmp_path / "moe.gguf", shape))
    facts = gguf_speed_facts(info)
    experts = sum(t.n_bytes for t in info.tensors if "_exps" in t.name)
    assert experts > 0 and facts.moe
    dense = dataclasses.replace(info, metadata={**info.metadata, "qwen3moe.expert_used_count": 8})
    all_used = gguf_speed_facts(dense)
    # 2 of 8 experts: three quarters of the experts' bytes are not read for a token.
    assert all_used.bytes_per_token - facts.bytes_per_token == pytest.approx(experts * 0.75, 1)
    assert facts.prompt_flops < all_used.prompt_flops


def test_a_file_known_by_its_size_gets_a_plausible_shape() -> None:
    facts = shape_by_size(4_680_000_000, 4.85)  # a 7B's Q4_K_M
    assert 24 <= facts.layers <= 40 and 2048 <= facts.width <= 6144
    assert facts.bytes_per_token < 4_680_000_000


def test_two_models_of_different_shapes_fix_both_decode_costs() -> None:
    truth = dataclasses.replace(prior(CPU), byte_s=1 / 12e9, layer_s=80e-6, attention_s=6e-10)
    fitted = fit(prior(CPU), [observed(SMALL, truth, "a"), observed(LARGER, truth, "b")])
    assert fitted.byte_s == pytest.approx(truth.byte_s, rel=1e-6)
    assert fitted.layer_s == pytest.approx(truth.layer_s, rel=1e-6)
    assert fitted.attention_s == pytest.approx(truth.attention_s, rel=1e-6)
    assert fitted.measured == ("a", "b") and "measured" in fitted.source


def test_one_model_fixes_the_rates_and_keeps_the_priors_shape() -> None:
    base = prior(CPU)
    truth = dataclasses.replace(base, byte_s=base.byte_s * 3, layer_s=base.layer_s * 3)
    fitted = fit(base, [observed(SMALL, truth, "a", deep=False)])
    assert fitted.byte_s == pytest.approx(truth.byte_s, rel=1e-6)
    assert fitted.layer_s / fitted.byte_s == pytest.approx(base.layer_s / base.byte_s)
    # Measured once at one depth, so the depth's cost stays the prior's.
    assert fitted.attention_s == base.attention_s


def test_decode_slows_with_depth_and_faster_memory_is_faster() -> None:
    profile = SpeedProfile((CPU,))
    slow = predict(LARGER, profile, "llama.cpp", [Part(CPU, 1.0)])
    assert slow.decode_tps_deep < slow.decode_tps
    fast_cpu = dataclasses.replace(CPU, bandwidth=CPU.bandwidth * 4)
    fast = predict(LARGER, SpeedProfile((fast_cpu,)), "llama.cpp", [Part(fast_cpu, 1.0)])
    assert fast.decode_tps > slow.decode_tps
    assert "20 GB/s memory (measured)" in slow.basis and not slow.measured


def test_another_runtime_borrows_llama_cpps_measured_rates_until_it_runs_here() -> None:
    measured = fit(prior(CPU), [observed(SMALL, prior(CPU), "starter")])
    profile = SpeedProfile((CPU,), {calibration_key("llama.cpp", "cpu"): measured})
    borrowed = calibration(profile, "onnxruntime-genai", CPU)
    assert borrowed.byte_s == measured.byte_s and not borrowed.is_measured
    assert "no onnxruntime-genai model has run here yet" in borrowed.source


def test_the_profile_travels_in_the_hardware_report() -> None:
    report = mac_m3_pro_18gb()
    assert report.speed is not None
    back = HardwareReport.from_dict(json.loads(json.dumps(report.to_dict())))
    assert back.speed == report.speed
    bare = dataclasses.replace(report, speed=None)
    assert HardwareReport.from_dict(json.loads(json.dumps(bare.to_dict()))).speed is None


def test_the_cpu_probe_measures_positive_figures() -> None:
    assert cpu_bandwidth(2, size=8 << 20, repeats=2) > 0
    assert cpu_flops(size=128, repeats=2) > 0


def test_gpu_figures_come_from_the_driver_or_the_chips_table() -> None:
    gpu = nvidia_laptop_8gb().gpus[0]
    driver = gpu_speed(dataclasses.replace(gpu, bandwidth_bytes_per_s=256e9))
    assert (driver.bandwidth, driver.basis) == (256e9, "driver")
    assert gpu_speed(gpu).basis == "estimated"  # NVML said nothing
    apple = gpu_speed(mac_m3_pro_18gb().gpus[0])
    assert (apple.bandwidth, apple.basis) == (150e9, "table")


def test_the_store_keeps_figures_measurements_and_the_setting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COVE_NO_SPEED_CALIBRATION", "1")
    store = SpeedStore(tmp_path / "speed.json")
    report = dataclasses.replace(cpu_only_8gb(), speed=None)
    assert profile_for(report, store=store, measure=False) is None
    first = profile_for(report, store=store)
    assert first is not None and first.device("cpu") is not None
    assert not first.calibrations  # nothing ran here yet
    store.record_observation(report, tmp_path / "m.gguf", observed(SMALL, prior(CPU), "m"))
    again = profile_for(report, store=store)
    assert again is not None and again.devices == first.devices  # not probed a second time
    assert again.calibrations["llama.cpp:cpu"].measured == ("m",)
    assert store.comfortable_tps() == 10.0
    store.set_comfortable_tps(4.5)
    assert SpeedStore(store.path).comfortable_tps() == 4.5
    with pytest.raises(ValueError):
        store.set_comfortable_tps(0)
    (tmp_path / "speed.json").write_text("{not json", encoding="utf-8")
    assert profile_for(report, store=store, measure=False) is None


def test_a_probe_taken_on_a_busy_machine_is_taken_again_once_it_is_quiet(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from engine.speed import machine as speed_store

    monkeypatch.setenv("COVE_NO_SPEED_CALIBRATION", "1")
    store = SpeedStore(tmp_path / "speed.json")
    report = dataclasses.replace(cpu_only_8gb(), speed=None)
    busy = dataclasses.replace(CPU, bandwidth=1e9)
    store.save_devices(machine_key(report), (busy,), True, 0.9)
    monkeypatch.setattr(speed_store, "_quiet", lambda _store, _machine: False)
    kept = profile_for(report, store=store)
    assert kept is not None and kept.provisional and kept.devices == (busy,)
    # Due again (the last check is old) and quiet: measured anew, no longer provisional.
    data = json.loads(store.path.read_text())
    for entry in data["machines"].values():
        entry["checked_at"] = 0
    store.path.write_text(json.dumps(data))
    monkeypatch.setattr(speed_store, "_quiet", lambda _store, _machine: True)
    monkeypatch.setattr(speed_store, "_probe", _fake_probe)
    fresh = profile_for(report, store=store)
    assert fresh is not None and not fresh.provisional and fresh.devices == (CPU,)


def _fake_probe(report: HardwareReport, store: SpeedStore, machine: str, *, calibrate: bool):  # type: ignore[no-untyped-def]
    store.save_devices(machine, (CPU,), False, 0.0)
    return store.devices(machine)


def test_a_corrupt_model_file_has_no_speed_and_breaks_nothing(
    starter: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Installed tab asks for every model's speed: a file that is not a GGUF any more
    gets none (and no error), while the sound one beside it still gets its prediction."""
    from engine.backends.loader import plan_model
    from engine.speed.installed import model_speed

    monkeypatch.setenv("COVE_DATA_DIR", str(tmp_path))
    _path, _info, plan = plan_model(str(starter), ctx=2048)
    report = dataclasses.replace(cpu_only_8gb(), speed=SpeedProfile((CPU,)))
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"GGUF" + b"\xff" * 64)
    assert model_speed(broken, report, plan) is None
    sound = model_speed(starter, report, plan)
    assert sound is not None and not sound.measured and sound.decode_tps > 0


def test_a_reply_too_short_to_count_does_not_read_the_models_header(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The host compares a load's first counting reply with its prediction; replies too short
    to count are passed over before the header is read (a large vocabulary takes a tenth of a
    second of Python to parse, which the next request would wait for)."""
    from types import SimpleNamespace

    from engine.host.models.replies import Replies
    from engine.speed import facts
    from engine.speed.observe import counts
    from engine.types import Chunk, GenerationStats

    read: list[Path] = []
    monkeypatch.setattr(facts, "read_model_info", lambda path: read.append(path))
    short = GenerationStats(prompt_tokens=40, completion_tokens=2, ttft_s=0.05)
    short = dataclasses.replace(short, prompt_tokens_per_s=800.0, decode_tokens_per_s=90.0)
    assert not counts(short)
    host = SimpleNamespace(_speed_checked=None)
    resident = SimpleNamespace(path=Path("model.gguf"), plan=None, id="model")
    final = Chunk(finish_reason="length", stats=short)
    Replies._check_speed(host, resident, final, 0.0)  # type: ignore[arg-type]
    assert read == []
