"""Idle work on a machine whose load a test scripts (tests/scripted_load.py): a background whose
quiet watch reads that load, a host whose idle work sees a quiet machine at once, and a
measurement's figures at a chosen speed, for the tests of measuring when idle."""

from __future__ import annotations

from engine.host.idle.background import Background, IdleGate
from engine.host.state import HostState
from engine.tuning.figures import Sample
from engine.tuning.idle import QuietWatch
from tests.scripted_load import ReadingClock, ScriptedLoad


def quiet_background(gate: IdleGate, load: ScriptedLoad, quiet_for_s: float = 0.0) -> Background:
    background = Background(gate, watch=QuietWatch(load, clock=ReadingClock(load), run_poll_s=0.01))
    background.quiet_for_s = quiet_for_s
    background.poll_s = 0.005
    return background


def quiet_host(state: HostState) -> ScriptedLoad:
    """A host whose idle work sees a quiet machine at once."""
    load = ScriptedLoad()
    state.gate.settle_s = 0.0
    background = state.background
    background.watch = QuietWatch(load, clock=ReadingClock(load), run_poll_s=0.01)
    background.quiet_for_s = 0.0
    background.poll_s = 0.005
    return load


def sample(rate: float) -> Sample:
    return Sample(
        prefill_tokens_per_s=rate * 5,
        near_depth=300,
        near_tokens_per_s=rate,
        deep_depth=600,
        deep_tokens_per_s=rate * 0.9,
        seconds=1.0,
    )
