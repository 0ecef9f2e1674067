"""A measured reply against what the speed model predicted for it: recorded as the model's
measured speed here and, when the prediction was off by more than ``OFF_BY`` (or always, for
``cove tune``'s careful measurements), as an observation that corrects the rates of its runtime
on its device for every later prediction.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from engine.speed.calibrate import Observation
from engine.speed.facts import read_model_info
from engine.speed.observe import observation_from_sample

if TYPE_CHECKING:
    from engine.hardware.report import HardwareReport
    from engine.planner.plan import Plan
    from engine.tuning import Choice

log = logging.getLogger(__name__)

OFF_BY = 0.30


@dataclass(frozen=True, slots=True)
class Check:
    """A measured reply against its prediction."""

    observation: Observation
    predicted_decode_tps: float
    predicted_prompt_tps: float
    decode_error: float  # measured / predicted - 1
    prompt_error: float
    corrected: bool  # off by more than OFF_BY: the calibration was refitted

    def to_dict(self) -> dict[str, object]:
        return {
            "measured_decode_tps": round(self.observation.near_tps, 1),
            "measured_prompt_tps": round(self.observation.prompt_tps, 1),
            "depth": round(self.observation.near_depth),
            "predicted_decode_tps": round(self.predicted_decode_tps, 1),
            "predicted_prompt_tps": round(self.predicted_prompt_tps, 1),
            "decode_error": round(self.decode_error, 3),
            "prompt_error": round(self.prompt_error, 3),
            "corrected": self.corrected,
        }


def check(
    report: HardwareReport,
    path: Path,
    plan: Plan,
    obs: Observation,
    *,
    always: bool = False,
    record: bool = True,
) -> Check | None:
    """Compare ``obs`` with what the speed model predicted for it; record it for the model
    (the Installed tab's measured figure) and, when off by more than ``OFF_BY`` (or ``always``:
    ``cove tune``'s careful measurements), in the calibration."""
    from engine.speed.machine import profile_for
    from engine.speed.predict import decode_tps, parts_for_plan, prompt_tps, rates_on
    from engine.speed.store import SpeedStore

    store = SpeedStore()
    profile = profile_for(report, store=store, measure=False)
    if profile is None:
        if record:
            store.record_measured(report, path, obs)
        return None
    rates = rates_on(profile, obs.runtime, parts_for_plan(plan, profile))
    decode = decode_tps(rates, obs.facts, obs.near_depth)
    prompt = prompt_tps(rates, obs.facts, obs.prompt_depth)
    d_err, p_err = obs.near_tps / decode - 1, obs.prompt_tps / prompt - 1
    corrected = record and (always or max(abs(d_err), abs(p_err)) > OFF_BY)
    if record:
        store.record_measured(report, path, obs)
    if corrected:
        store.record_observation(report, path, obs)
        log.info(
            "%s ran at %.1f tok/s where %.1f was predicted: calibration corrected",
            obs.model,
            obs.near_tps,
            decode,
        )
    return Check(obs, decode, prompt, d_err, p_err, corrected)


def check_choice(report: HardwareReport, choice: Choice, *, record: bool) -> Check | None:
    """``cove tune``'s measurement of the way chosen against its prediction; ``record``: a new
    measurement, which the calibration takes in whatever the error (it is careful: several
    rounds, interleaved, on a quiet machine)."""
    from engine.errors import EngineError

    m = next((x for x in choice.measurements if x.config == choice.config), None)
    if m is None:
        return None
    try:
        info = read_model_info(choice.path)
    except (EngineError, OSError, ValueError):
        return None
    obs = observation_from_sample(choice.path, info, choice.plan, m.medians(), source="tune")
    if obs is None:
        return None
    return check(
        report, choice.path, choice.plan, obs, always=record and not m.provisional, record=record
    )
