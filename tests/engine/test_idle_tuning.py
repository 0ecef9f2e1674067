"""The first reply never waits for a measurement: a model that runs more than one way here loads
the planner's way at once, its ways are measured in idle moments, and the faster one is loaded
at the next idle moment (engine/host/idle_tuning.py). The measuring run is injected: it waits
for the test, and says which way is faster."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest

from engine.host.idle_tuning import IdleGate, IdleTuner
from engine.host.state import HostState
from engine.planner.plan import Plan
from engine.tuning.figures import Sample
from engine.types import ChatMessage, GenerationParams
from tests.conftest import collect


def sample(rate: float) -> Sample:
    return Sample(
        prefill_tokens_per_s=rate * 5,
        near_depth=300,
        near_tokens_per_s=rate,
        deep_depth=600,
        deep_tokens_per_s=rate * 0.9,
        seconds=1.0,
    )


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
        state = HostState(parallel=1)
        state.gate.settle_s = 0.0
        state.measure_once = measurer
        state.loop = asyncio.get_running_loop()
        try:
            resident = await asyncio.to_thread(state.load_chat, "starter", 1024)
            if state.choice is None or state.choice.source == "only":
                pytest.skip("the starter runs one way here")
            assert state.choice.source == "not_measured"
            assert state.status().measuring  # waiting for its idle moment
            async with state.turn():
                _, final = await asyncio.to_thread(
                    collect,
                    resident.model.chat(
                        [ChatMessage("user", "Hi!")], GenerationParams(max_tokens=8)
                    ),
                )
            assert final.finish_reason in ("stop", "length")
            assert not measured  # the reply came first
            release.set()
            assert state.tuner is not None
            await asyncio.to_thread(state.tuner.join, 120)
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
        finally:
            release.set()
            await asyncio.to_thread(state.close)

    asyncio.run(main())


def test_a_request_stops_a_measuring_run_which_is_taken_again_when_idle() -> None:
    gate = IdleGate(settle_s=0.0)
    started = threading.Event()
    runs: list[bool] = []

    def measurer(
        path: Path, plan: Plan, progress: object = None, stop: threading.Event | None = None
    ) -> tuple[Sample, float]:
        assert stop is not None
        if not runs:
            started.set()
            assert stop.wait(60)  # stopped by the request below
            runs.append(False)
            from engine.errors import LoadCancelled

            raise LoadCancelled("stopped")
        runs.append(True)
        return sample(100.0), 0.1

    results: list[tuple[Sample, float]] = []
    tuner = IdleTuner(gate, lambda once: None, lambda choice: None, measurer)
    worker = threading.Thread(
        target=lambda: results.append(tuner.once(Path("m.gguf"), None))  # type: ignore[arg-type]
    )
    worker.start()
    assert started.wait(60)
    gate.enter()  # a request arrives mid-run
    gate.leave()
    worker.join(60)
    assert runs == [False, True]
    assert results and results[0][0].near_tokens_per_s == 100.0


def test_a_closing_engine_ends_the_wait() -> None:
    gate = IdleGate(settle_s=0.0)
    gate.enter()
    failures: list[BaseException] = []

    def wait() -> None:
        try:
            gate.wait_idle()
        except Exception as exc:
            failures.append(exc)

    waiter = threading.Thread(target=wait)
    waiter.start()
    gate.close()
    waiter.join(30)
    assert failures and "stopping" in str(failures[0])
