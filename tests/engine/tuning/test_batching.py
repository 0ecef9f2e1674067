"""``--parallel auto`` from a measurement: the aggregate decode speed of 1, 2, 4 ... sequences on
the loaded model's weights (engine/tuning/batching.py), kept per machine and model, and the count
chosen from it."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.backends.llama import LlamaCppBackend
from engine.backends.llama.single import LlamaCppModel
from engine.errors import LoadCancelled
from engine.formats.gguf import read_gguf
from engine.planner.gguf import make_plan
from engine.planner.plan import Device, Plan, Resources, with_parallel
from engine.tuning.batching import (
    Batching,
    batching_of,
    counts_up_to,
    measure_round,
    measured_parallel,
    parallel_from,
)
from engine.tuning.store import TuningStore, machine_key
from engine.types import ChatMessage, GenerationParams
from tests.conftest import collect

RESOURCES = Resources(cpu=Device("CPU RAM", "cpu", 16 * 2**30, 24 * 2**30), threads=2)


def single_plan(path: Path, ctx: int = 1024) -> Plan:
    return make_plan(read_gguf(path), RESOURCES, requested_ctx=ctx)


@pytest.fixture(scope="module")
def model(starter: Path) -> Iterator[LlamaCppModel]:
    loaded = LlamaCppBackend().load(starter, single_plan(starter))
    assert isinstance(loaded, LlamaCppModel)
    yield loaded
    loaded.close()


def test_doubling_is_kept_while_it_gains() -> None:
    # A GPU: nearly N-fold up to 16, then flat.
    gpu = {1: 50.0, 2: 99.0, 4: 195.0, 8: 380.0, 16: 700.0, 32: 720.0}
    assert parallel_from(gpu, 4)[0] == 16
    # The starter on an H200: a dip after 8 (other CUDA kernels), then 1.6x a doubling again.
    h200 = {1: 862.7, 2: 1465.9, 4: 2457.3, 8: 4972.3, 16: 4754.0, 32: 7582.1, 64: 12195.5}
    n, why = parallel_from(h200, 4)
    assert n == 64 and "14.14x" in why
    # Two CPU cores: the gain shrinks with each doubling.
    cpu = {1: 89.0, 2: 125.0, 4: 167.0, 8: 196.0, 16: 218.0}
    n, why = parallel_from(cpu, 4)
    assert n == 8 and "8 replies at once" in why and "16 gain only" in why


def test_below_the_default_slots_are_kept_unless_they_cost_speed() -> None:
    flat = {1: 100.0, 2: 104.0, 4: 103.0, 8: 104.0}
    n, why = parallel_from(flat, 4)
    assert n == 4 and "start at once" in why
    # Batching that loses: a second sequence costs a fifth of the speed.
    losing = {1: 100.0, 2: 80.0, 4: 70.0}
    assert parallel_from(losing, 4)[0] == 1
    # Within memory: the floor is what fits.
    assert parallel_from({1: 100.0, 2: 101.0}, 2)[0] == 2


def test_the_speed_of_one_is_needed() -> None:
    with pytest.raises(ValueError):
        parallel_from({2: 100.0, 4: 150.0}, 4)


def test_counts_double_up_to_what_fits() -> None:
    assert counts_up_to(1) == [1]
    assert counts_up_to(8) == [1, 2, 4, 8]
    assert counts_up_to(6) == [1, 2, 4, 6]


def test_a_measurement_is_kept_per_machine_and_model_and_read_back(
    starter: Path, tmp_path: Path
) -> None:
    from engine.hardware import probe_hardware
    from engine.tuning.batching import batching_key

    store = TuningStore(tmp_path / "tuning.json")
    plan = single_plan(starter)
    report = probe_hardware()
    assert measured_parallel(starter, plan, report, store) is None
    rounds = [
        ({1: 90.0, 2: 125.0, 4: 160.0, 8: 195.0}, 0.0),
        ({1: 88.0, 2: 126.0, 4: 170.0, 8: 190.0}, 0.0),
        ({1: 91.0, 2: 120.0, 4: 165.0, 8: 199.0}, 0.0),
    ]
    measured = batching_of(rounds).to_dict()
    store.save_batching(machine_key(report), batching_key(starter, plan), measured)
    found = measured_parallel(starter, plan, report, store)
    assert found is not None
    n, _why, record = found
    assert record.speeds == {1: 90.0, 2: 125.0, 4: 165.0, 8: 195.0}  # the medians
    assert n == 8 and not record.provisional
    # Another way of running it (flash attention switched) is not this measurement.
    other = make_plan(read_gguf(starter), RESOURCES, requested_ctx=1024, flash_attn=False)
    if other.flash_attn != plan.flash_attn:
        assert measured_parallel(starter, other, report, store) is None
    # A damaged entry is measured again, not trusted.
    text = store.path.read_text().replace('"2": 125.0', '"2": -1')
    store.path.write_text(text)
    assert measured_parallel(starter, plan, report, store) is None


def test_a_busy_machine_makes_it_provisional() -> None:
    busy = batching_of([({1: 50.0, 2: 60.0}, 0.9), ({1: 52.0, 2: 61.0}, 0.9)])
    assert busy.provisional
    again = Batching.from_dict(busy.to_dict())
    assert again.provisional and again.speeds == busy.speeds


def test_a_round_measures_the_loaded_weights_and_leaves_the_model_as_it_was(
    model: LlamaCppModel,
) -> None:
    params = GenerationParams(temperature=0.0, max_tokens=12, seed=1)
    before, _ = collect(model.chat([ChatMessage("user", "Name a colour.")], params))
    speeds, share = measure_round(model.model, [1, 2, 4])
    assert sorted(speeds) == [1, 2, 4]
    assert all(v > 0 for v in speeds.values()) and 0.0 <= share <= 1.0
    after, final = collect(model.chat([ChatMessage("user", "Name a colour.")], params))
    assert final.finish_reason in ("stop", "length")
    # The reply's own cache was not touched: the same prompt is reused and gives the same text.
    assert after == before
    assert final.stats is not None and final.stats.cached_tokens > 0


def test_a_climbing_round_stops_past_the_point_where_doubling_gains(
    model: LlamaCppModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    import engine.tuning.batching as batching

    monkeypatch.setattr(batching, "CLIMB_TO", 2)
    monkeypatch.setattr(batching, "GAIN", 100.0)  # no doubling gains that much
    speeds, _ = measure_round(model.model, [1, 2, 4, 8], climb=True)
    assert sorted(speeds) == [1, 2, 4]  # two doublings past 1, the count that pays


def test_a_stop_ends_the_round_between_steps(model: LlamaCppModel) -> None:
    stop = threading.Event()
    stop.set()
    with pytest.raises(LoadCancelled):
        measure_round(model.model, [1, 2], stop=stop)
    # The model is free again: a reply runs.
    _, final = collect(model.chat([ChatMessage("user", "Hi")], GenerationParams(max_tokens=4)))
    assert final.finish_reason in ("stop", "length")


def test_closing_a_held_model_waits_for_the_measurement_and_tells_it(starter: Path) -> None:
    loaded = LlamaCppBackend().load(starter, single_plan(starter, 512))
    assert isinstance(loaded, LlamaCppModel)
    closer = threading.Thread(target=loaded.close)
    with loaded.held() as closing:
        closer.start()
        assert closing.wait(60)  # close() asked the holder to let go
        assert closer.is_alive()  # and waits for it
        assert loaded.model.ctx is not None  # nothing freed under the holder
    closer.join(60)
    assert not closer.is_alive() and loaded.model.ctx is None


def test_the_auto_plan_takes_the_measured_count_within_memory(starter: Path) -> None:
    plan = single_plan(starter)
    assert with_parallel(plan, None, auto=8).parallel == 8
    tight = make_plan(
        read_gguf(starter),
        Resources(cpu=Device("CPU RAM", "cpu", 700 * 2**20, 24 * 2**30), threads=2),
        requested_ctx=8192,
    )
    assert with_parallel(tight, None, auto=8).parallel < 8
