"""The starter model run once on the CPU, as ``cove tune`` measures a way: the figures that
calibrate llama.cpp here before any model of the user's has run (``engine/speed/machine.py``).
"""

from __future__ import annotations

import logging
from dataclasses import replace

from engine.backends.loader import plan_model
from engine.errors import EngineError
from engine.speed.calibrate import Observation
from engine.speed.observe import observation_from_sample
from engine.tuning.measure import measure_once

log = logging.getLogger(__name__)

# The starter's runs for the calibration (about 4 s each on two cores); the quickest counts.
STARTER_RUNS = 3


def measure_starter() -> Observation | None:
    """The starter run once on the CPU, as ``cove tune`` measures a way: llama.cpp's figures
    here. None when it cannot run (no llama.cpp, the memory taken)."""
    try:
        path, info, plan = plan_model("starter", ctx=4096)
        if not plan.loadable or plan.backend != "llama.cpp":
            return None
        if plan.gpu_layers:
            plan = replace(plan, gpu_layers=0, device="CPU")
        samples = [measure_once(path, plan)[0] for _ in range(STARTER_RUNS)]
    except (EngineError, OSError) as exc:
        log.warning("could not run the starter to calibrate: %s", exc)
        return None
    # The quickest run: another program can only have slowed a run down (and a run's figures
    # belong together: its deeper reply's depth follows from its prompt's speed).
    best = min(samples, key=lambda s: s.seconds)
    return observation_from_sample(path, info, plan, best, source="probe")
