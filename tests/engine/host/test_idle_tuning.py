"""The first reply never waits for a measurement, and an idle Cove costs other programs nothing: a
model that runs more than one way here loads the planner's way at once; its ways are measured
only when the engine is idle and the rest of the machine has been quiet a while; another program
wanting the processor stops a run; a run that failed or came out provisional is tried again
after a pause (engine/host/idle/background.py, engine/host/idle/idle_tuning.py).

The machine's load is a scripted reading (other programs' cores' worth per reading), and its
clock moves one second a reading, so that no test depends on this machine's own load or speed.
The measuring run is injected where the test is about the waiting: it waits for the test, and
says which way is faster."""

from __future__ import annotations

import asyncio
import contextlib
import math
import threading
import time
from pathlib import Path

import pytest

from engine.errors import LoadCancelled
from engine.host.idle.background import Background, IdleGate
from engine.host.idle.idle_tuning import IdleTuner
from engine.host.state import HostState
from engine.planner.plan import Plan
from engine.tuning.figures import Sample
from engine.tuning.idle import A_REQUEST, ANOTHER_PROGRAM, RUN_POLL_S, Stop
from engine.tuning.retry import FIRST_PAUSE_S
from engine.types import ChatMessage, GenerationParams
from tests.conftest import collect
from tests.engine.idle_host import quiet_background, quiet_host, sample
from tests.scripted_load import BUSY, QUIET, ScriptedLoad


def wait_for(condition: object, what: str) -> None:
    """Wait for a condition another thread makes true (a generous bound that a loaded machine
    never reaches; not a measure of speed)."""
    deadline = time.monotonic() + 60
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.005)


def test_the_first_reply_comes_while_the_ways_wait_to_be_measured(
    starter: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("COVE_NO_TUNING", raising=False)
    monkeypatch.setenv("COVE_DATA_DIR", str(tmp_path))
    release = threading.Event()
    measured: list[bool] = []

    def measurer(
        path: Path, plan: Plan, progress: object = None, stop: threading.Event | None = None
    ) -> tuple[Sample, float]:
        assert release.wait(120)
        measured.append(plan.flash_attn)
        return sample(100.0 if plan.flash_attn else 300.0), 0.1  # flash attention off wins

    async def main() -> None:
        state = HostState(parallel=1, measure_once=measurer)
        quiet_host(state)
        state.loop = asyncio.get_running_loop()
        try:
            resident = await asyncio.to_thread(state.load_chat, "starter", 1024)
            if state.ways.choice is None or state.ways.choice.source == "only":
                pytest.skip("the starter runs one way here")
            assert state.ways.choice.source == "not_measured"
            assert state.status().measuring  # waiting for its idle moment
            async with state.replies_of(resident).turn():
                _, final = await asyncio.to_thread(
                    collect,
                    resident.model.chat(
                        [ChatMessage("user", "Hi!")], GenerationParams(max_tokens=8)
                    ),
                )
            assert final.finish_reason in ("stop", "length")
            assert not measured  # the reply came first
            release.set()
            assert state.ways.tuner is not None
            await asyncio.to_thread(state.ways.tuner.join, 120)
            assert measured and set(measured) == {True, False}
            model = resident.model
            for _ in range(2400):  # the switch runs on this loop once no reply runs
                if resident.model is not model:
                    break
                await asyncio.sleep(0.05)
            # The same resident entry (requests holding it follow), now running the faster way.
            assert state.chat is resident and resident.model is not model
            assert resident.plan.flash_attn is False
            _, final = await asyncio.to_thread(
                collect,
                resident.model.chat([ChatMessage("user", "Hi!")], GenerationParams(max_tokens=8)),
            )
            assert final.finish_reason in ("stop", "length")
            status = state.status()
            assert status.measuring is None and status.measured
            assert "flash attention off" in status.measured
            assert status.background == ()  # nothing left waiting
        finally:
            release.set()
            await asyncio.to_thread(state.close)

    asyncio.run(main())


def _tuner(
    background: Background, measurer: object, key: str | None = None
) -> tuple[IdleTuner, list[tuple[Sample, float]], threading.Thread]:
    results: list[tuple[Sample, float]] = []
    work = background.work("Measuring the ways to run m", key)
    tuner = IdleTuner(work, lambda once: None, lambda choice: None, measurer)  # type: ignore[arg-type]

    def run() -> None:
        with contextlib.suppress(LoadCancelled):  # the engine closed while it waited
            results.append(tuner.once(Path("m.gguf"), None))  # type: ignore[arg-type]

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    return tuner, results, worker


def test_a_busy_machine_defers_the_measurement_and_a_quiet_one_starts_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COVE_DATA_DIR", str(tmp_path))
    load = ScriptedLoad(BUSY)
    background = quiet_background(IdleGate(settle_s=0.0), load, quiet_for_s=5.0)
    started: list[int] = []

    def measurer(
        path: Path, plan: Plan, progress: object = None, stop: threading.Event | None = None
    ) -> tuple[Sample, float]:
        started.append(load.reads)
        return sample(100.0), 0.1

    _, results, worker = _tuner(background, measurer)
    wait_for(lambda: load.reads >= 50, "fifty readings of a busy machine")
    assert not started  # fifty seconds of a busy machine: it waited
    assert background.describe()[0].state == "waiting"
    assert background.describe()[0].why == "measuring when this computer is idle"
    quiet_from = load.reads
    load.now = 0.1  # a machine at rest: a tenth of a core
    worker.join(60)
    assert results and started
    # It started once the machine had been quiet for five (clock) seconds, not before.
    assert started[0] - quiet_from >= 5


def test_a_busy_spell_mid_run_stops_it_within_a_second_and_pauses_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COVE_DATA_DIR", str(tmp_path))
    load = ScriptedLoad(QUIET)
    background = quiet_background(IdleGate(settle_s=0.0), load)
    stops: list[Stop] = []
    onset: list[int] = []

    def measurer(
        path: Path, plan: Plan, progress: object = None, stop: threading.Event | None = None
    ) -> tuple[Sample, float]:
        assert isinstance(stop, Stop)
        stops.append(stop)
        onset.append(load.reads)
        load.now = BUSY  # another program starts while this run measures
        assert stop.wait(60)
        raise LoadCancelled("stopped")

    _, results, worker = _tuner(background, measurer, key="ways:test")
    wait_for(lambda: stops and stops[0].is_set(), "the run stopped")
    assert stops[0].why == ANOTHER_PROGRAM
    # Read every RUN_POLL_S while it runs: stopped within a second's worth of readings.
    assert load.reads - onset[0] <= math.ceil(1.0 / RUN_POLL_S)
    wait_for(lambda: background.describe()[0].state == "paused", "a pause after the stop")
    entry = background.describe()[0]
    assert entry.failed_tries == 1 and entry.next_try
    assert ANOTHER_PROGRAM in entry.why
    reads = load.reads
    wait_for(lambda: load.reads >= reads + 50, "fifty more readings")
    assert len(stops) == 1  # paused: no second run at the next idle moment
    # The failed try is kept in the data folder: a restart does not start the count again.
    from engine.tuning.store import TuningStore

    assert TuningStore().retries("ways:test").failures == 1
    background.gate.close()
    worker.join(60)
    assert not results


def test_a_request_stops_a_run_which_is_taken_again_when_idle() -> None:
    load = ScriptedLoad()
    gate = IdleGate(settle_s=0.0)
    background = quiet_background(gate, load)
    started = threading.Event()
    runs: list[str] = []

    def measurer(
        path: Path, plan: Plan, progress: object = None, stop: threading.Event | None = None
    ) -> tuple[Sample, float]:
        assert isinstance(stop, Stop)
        if not runs:
            started.set()
            assert stop.wait(60)  # stopped by the request below
            runs.append(stop.why)
            raise LoadCancelled("stopped")
        runs.append("done")
        return sample(100.0), 0.1

    tuner, results, worker = _tuner(background, measurer)
    assert started.wait(60)
    gate.enter()  # a request arrives mid-run
    gate.leave()
    worker.join(60)
    assert runs == [A_REQUEST, "done"]
    assert results and results[0][0].near_tokens_per_s == 100.0
    assert tuner.work.retries().failures == 0  # a request is no failed try


def test_a_provisional_result_is_tried_again_after_the_pause_not_at_once(
    starter: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from engine.tuning import Choice, Config
    from engine.tuning.figures import Measurement
    from engine.tuning.store import TuningStore

    monkeypatch.setenv("COVE_DATA_DIR", str(tmp_path))
    load = ScriptedLoad()
    wall = [1_000_000.0]
    background = quiet_background(IdleGate(settle_s=0.0), load)
    background.now = lambda: wall[0]
    plan = Plan.from_dict(
        {
            "model": "m", "backend": "llama.cpp", "device": "CPU", "verdict": "fits",
            "n_ctx": 1024, "requested_ctx": 1024, "n_layers": 1, "gpu_layers": 0, "threads": 2,
            "n_batch": 512, "n_ubatch": 512, "kv_type": "f16", "flash_attn": True, "budgets": [],
        }
    )  # fmt: skip
    config = Config.of(starter, plan)
    chosen: list[bool] = []

    def choose(once: object) -> Choice:
        provisional = not chosen  # the first measurement was taken on a busy machine
        chosen.append(provisional)
        m = Measurement(config, 0.1, (sample(100.0),) * 3, 0.9 if provisional else 0.0, provisional)
        return Choice(config, plan, "measured", "measured", (m,), (config,))

    got: list[Choice] = []
    work = background.work("Measuring the ways to run m", "ways:provisional")
    tuner = IdleTuner(work, choose, got.append)
    tuner.start("m")
    wait_for(lambda: work.state == "paused", "a pause after the provisional result")
    assert got and got[0].provisional  # used meanwhile
    reads = load.reads
    wait_for(lambda: load.reads >= reads + 50, "fifty readings of a quiet machine")
    assert chosen == [True]  # not again at the next idle moment
    assert TuningStore().retries("ways:provisional").failures == 1
    wall[0] += FIRST_PAUSE_S + 1  # the pause is over
    tuner.join(60)
    assert chosen == [True, False] and not got[-1].provisional
    assert TuningStore().retries("ways:provisional").failures == 0  # succeeded: forgotten


def test_background_measuring_turned_off_waits_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COVE_DATA_DIR", str(tmp_path))
    load = ScriptedLoad()
    background = quiet_background(IdleGate(settle_s=0.0), load)
    background.set_enabled(False)
    started: list[bool] = []

    def measurer(
        path: Path, plan: Plan, progress: object = None, stop: threading.Event | None = None
    ) -> tuple[Sample, float]:
        started.append(True)
        return sample(100.0), 0.1

    _, results, worker = _tuner(background, measurer)
    wait_for(lambda: load.reads >= 20, "twenty readings")
    assert not started
    assert background.describe()[0].state == "off"
    # Kept in the data folder: another engine started on it reads it.
    assert not Background(IdleGate()).enabled()
    background.set_enabled(True)
    worker.join(60)
    assert started and results


def test_a_closing_engine_ends_the_wait() -> None:
    gate = IdleGate(settle_s=0.0)
    gate.enter()
    background = quiet_background(gate, ScriptedLoad())
    work = background.work("Measuring", None)
    failures: list[BaseException] = []

    def wait() -> None:
        try:
            work.wait()
        except Exception as exc:
            failures.append(exc)

    waiter = threading.Thread(target=wait)
    waiter.start()
    gate.close()
    waiter.join(30)
    assert failures and "stopping" in str(failures[0])


def test_the_speed_calibration_runs_when_the_computer_is_idle_not_when_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A window's first start asks for the hardware report: it comes with the devices' figures
    (a second's probe), and the starter's runs that calibrate llama.cpp (seconds of both cores)
    are made once the computer is quiet, in a child at the lowest priority."""
    from engine.client.protocol import SPEED_WORK
    from engine.hardware import probe_hardware
    from engine.speed.store import SpeedStore
    from engine.tuning.store import machine_key

    monkeypatch.setenv("COVE_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("COVE_NO_SPEED_CALIBRATION", raising=False)
    state = HostState(parallel=1)
    load = quiet_host(state)
    load.now = BUSY
    state.background.quiet_for_s = 5.0
    machine = machine_key(probe_hardware())

    def probed_at() -> float:
        kept = SpeedStore().devices(machine)
        return float(kept[1]["measured_at"]) if kept is not None else 0.0

    try:
        if not probe_hardware().llama_cpp.available:
            pytest.skip("no llama.cpp to calibrate")
        assert state.hardware_report().speed is not None  # the devices' figures, at once
        first = probed_at()
        assert not SpeedStore().calibrating(machine)  # no starter run while asked
        wait_for(lambda: load.reads >= 20, "twenty readings of a busy computer")
        (waiting,) = state.status().background
        assert waiting.work == SPEED_WORK and waiting.state == "waiting"
        assert state.status().measuring == SPEED_WORK
        assert probed_at() == first  # nothing run on a busy computer
        load.now = QUIET

        def started() -> bool:
            # The child runs at the lowest priority: on a machine busy with other work it may
            # take minutes to finish, so its start is what shows the quiet let it run.
            (work,) = state.status().background
            return work.state == "running" or probed_at() > first

        wait_for(started, "the probe and calibration start when quiet")
        assert state.hardware_report().speed is not None
    finally:
        state.close()


def test_two_pieces_of_idle_work_never_run_at_once() -> None:
    """Each would measure the other as another program's load."""
    background = quiet_background(IdleGate(settle_s=0.0), ScriptedLoad())
    release = threading.Event()
    order: list[str] = []

    def first(
        path: Path, plan: Plan, progress: object = None, stop: threading.Event | None = None
    ) -> tuple[Sample, float]:
        order.append("first")
        assert release.wait(60)
        return sample(100.0), 0.1

    def second(
        path: Path, plan: Plan, progress: object = None, stop: threading.Event | None = None
    ) -> tuple[Sample, float]:
        order.append("second")
        return sample(100.0), 0.1

    _, _, one = _tuner(background, first)
    wait_for(lambda: order == ["first"], "the first run started")
    other, _, two = _tuner(background, second)
    wait_for(lambda: other.work.why.startswith("waiting for: "), "the second waits for it")
    assert order == ["first"] and other.work.why == "waiting for: measuring the ways to run m"
    release.set()
    one.join(60)
    two.join(60)
    assert order == ["first", "second"]
