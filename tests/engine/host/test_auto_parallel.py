"""``cove serve --parallel auto`` never waits for a measurement: the chat model loads at once
with the planner's default count; how many replies at once pay is measured in idle moments on
its own weights, kept, and the context is made again with the measured count at the next
moment no reply runs (engine/host/models/auto_parallel.py). The measuring round is injected: it says
how fast each count went."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest

from engine.host.state import HostState
from engine.planner.plan import AUTO_PARALLEL
from engine.tuning.figures import Sample
from engine.types import ChatMessage, GenerationParams
from tests.conftest import collect
from tests.engine.idle_host import quiet_host, sample


def same_speed(*_args: object, **_kwargs: object) -> tuple[Sample, float]:
    """Every way to run the model measures alike: the planner's way stays."""
    return sample(100.0), 0.1


def test_auto_loads_at_once_then_runs_the_count_measured_to_pay(
    starter: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("COVE_NO_TUNING", raising=False)
    monkeypatch.setenv("COVE_DATA_DIR", str(tmp_path))
    release = threading.Event()
    rounds: list[list[int]] = []

    def measurer(
        model: object,
        counts: list[int],
        *,
        reverse: bool = False,
        climb: bool = False,
        stop: threading.Event | None = None,
    ) -> tuple[dict[int, float], float]:
        assert release.wait(120)
        rounds.append(list(counts))
        # Doubling pays up to 8 sequences, then no more.
        return {n: 100.0 * min(n, 8) for n in counts if n <= 16}, 0.0

    async def main() -> None:
        state = HostState(parallel=None, measure_once=same_speed, measure_round=measurer)
        quiet_host(state)
        state.loop = asyncio.get_running_loop()
        try:
            resident = await asyncio.to_thread(state.load_chat, "starter", 1024)
            assert resident.plan.parallel == AUTO_PARALLEL  # loaded at once, the default
            assert state.auto_parallel.batching is not None
            async with state.replies_of(resident).turn():
                hi = [ChatMessage("user", "Hi!")]
                reply = resident.model.chat(hi, GenerationParams(max_tokens=8))
                _, final = await asyncio.to_thread(collect, reply)
            assert final.finish_reason in ("stop", "length")
            assert not rounds  # the reply came first
            release.set()
            await asyncio.to_thread(state.auto_parallel.batching.join, 120)
            assert len(rounds) == 3 and max(rounds[0]) >= 8
            for _ in range(2400):  # the context is made again on this loop once no reply runs
                if resident.plan.parallel == 8:
                    break
                await asyncio.sleep(0.05)
            assert state.chat is resident and resident.plan.parallel == 8
            assert getattr(resident.model, "sequences", 1) == 8
            assert resident.admission.capacity == 8
            _, final = await asyncio.to_thread(
                collect,
                resident.model.chat([ChatMessage("user", "Hi!")], GenerationParams(max_tokens=8)),
            )
            assert final.finish_reason in ("stop", "length")
            status = state.status()
            assert status.parallel == 8 and status.measured
            assert "8 replies at once" in status.measured
        finally:
            release.set()
            await asyncio.to_thread(state.close)

        # Kept: the next start loads 8 at once and measures nothing.
        again = HostState(parallel=None, measure_once=same_speed, measure_round=measurer)
        try:
            resident = await asyncio.to_thread(again.load_chat, "starter", 1024)
            assert resident.plan.parallel == 8 and again.auto_parallel.batching is None
        finally:
            await asyncio.to_thread(again.close)

    asyncio.run(main())


def test_a_fixed_count_is_never_measured(
    starter: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("COVE_NO_TUNING", raising=False)
    monkeypatch.setenv("COVE_DATA_DIR", str(tmp_path))
    state = HostState(parallel=2, measure_once=same_speed)
    try:
        resident = state.load_chat("starter", 1024)
        assert resident.plan.parallel == 2 and state.auto_parallel.batching is None
    finally:
        state.close()
