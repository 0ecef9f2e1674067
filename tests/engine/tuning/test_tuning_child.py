"""Idle measuring runs in a child process at the lowest priority the system offers, and stopping
it ends the child at once (engine/tuning/child.py, engine/tuning/priority.py). Real processes, the
real starter model."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import psutil
import pytest

from engine.errors import GenerationError, LoadCancelled
from engine.planner.plan import Plan
from engine.tuning import load
from engine.tuning.child import measure_once_in_child, measure_round_in_child, run_child
from engine.tuning.idle import Stop
from engine.tuning.load import OthersLoad


@pytest.fixture(scope="module")
def starter_plan(starter: Path) -> Plan:
    from engine.backends.loader import plan_model

    return plan_model(str(starter), ctx=1024)[2]


class Adopting:
    """A reading that only notes the processes adopted."""

    cores = 2

    def __init__(self) -> None:
        self.adopted: list[int] = []
        self.forgotten: list[int] = []
        self.started = threading.Event()

    def read(self) -> float:
        return 0.0

    def adopt(self, pid: int) -> None:
        self.adopted.append(pid)
        self.started.set()

    def forget(self, pid: int) -> None:
        self.forgotten.append(pid)


def test_a_way_is_measured_in_a_child_at_the_lowest_priority(
    starter: Path, starter_plan: Plan
) -> None:
    reading = Adopting()
    found = run_child(
        {"kind": "way", "path": str(starter), "plan": starter_plan.to_dict()}, Stop(reading)
    )
    assert found["sample"]["near_tokens_per_s"] > 0 and found["sample"]["deep_depth"] > 0
    assert found["priority"]["lowest"] is True
    if sys.platform.startswith("linux"):
        assert "idle scheduling class" in found["priority"]["taken"]
    # The child's processor time was the measurement's own while it ran, then forgotten.
    assert reading.adopted and reading.adopted == reading.forgotten
    assert (
        not psutil.pid_exists(reading.adopted[0])
        or psutil.Process(reading.adopted[0]).status() == psutil.STATUS_ZOMBIE
    )


def test_stopping_a_run_ends_its_child_at_once(starter: Path, starter_plan: Plan) -> None:
    reading = Adopting()
    stop = Stop(reading)

    def stop_when_started() -> None:
        assert reading.started.wait(60)
        stop.stop("a request arrived")

    threading.Thread(target=stop_when_started, daemon=True).start()
    with pytest.raises(LoadCancelled):
        measure_once_in_child(starter, starter_plan, stop=stop)
    pid = reading.adopted[0]
    assert not psutil.pid_exists(pid)  # ended and waited for, not left running


def test_a_batching_round_in_a_child_measures_every_count(
    starter: Path, starter_plan: Plan
) -> None:
    from engine.backends.llama.model import LlamaModel

    model = LlamaModel(starter, starter_plan)
    try:
        speeds, share = measure_round_in_child(model, [1, 2])
    finally:
        model.close()
    assert set(speeds) == {1, 2} and all(v > 0 for v in speeds.values())
    assert 0.0 <= share <= 1.0


def test_a_model_that_cannot_load_gives_a_clear_error(tmp_path: Path, starter_plan: Plan) -> None:
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"GGUF" + b"\0" * 64)
    with pytest.raises(GenerationError) as caught:
        measure_once_in_child(broken, starter_plan)
    assert "broken.gguf" in str(caught.value)


def test_a_child_adopted_counts_as_this_process_not_another_program(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The system's counters stand for this process and one busy child only: adopted, the child
    is no other program's use; not adopted, it is."""
    child = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    proc = psutil.Process(child.pid)
    try:

        def ours() -> float:
            t = proc.cpu_times()
            return load._own_seconds() + t.user + t.system

        monkeypatch.setattr(load, "_busy_seconds", ours)
        adopted, stranger = OthersLoad(), OthersLoad()
        adopted.adopt(child.pid)
        # The child stands still while read, so both counters see the same child time; what is
        # left is this process's own tick at most (the counters move in 10 ms steps).
        proc.suspend()
        adopted.read(), stranger.read()
        spent = sum(proc.cpu_times()[:2])
        proc.resume()
        while sum(proc.cpu_times()[:2]) - spent < 0.2:  # the child's work, whatever the load
            threading.Event().wait(0.05)
        proc.suspend()
        others_adopted, others_stranger = adopted.read(), stranger.read()
        assert others_stranger > 0.0
        assert others_adopted <= others_stranger / 10
    finally:
        child.kill()
        child.wait()
