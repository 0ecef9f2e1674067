"""An installed model's speed here, for the Models view and ``cove plan``: measured, once it has
run here (its latest reply or ``cove tune`` run), else predicted from its header."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from engine.units import format_tps

if TYPE_CHECKING:
    from engine.hardware.report import HardwareReport
    from engine.planner.plan import Plan
    from engine.speed.predict import Prediction


@dataclass(frozen=True, slots=True)
class ModelSpeed:
    decode_tps: float
    prompt_tps: float
    measured: bool  # ran here; else predicted
    words: str  # "24 tokens/s (measured here)" / "about 24 tokens/s (predicted)"
    prediction: Prediction | None = None

    def to_dict(self) -> dict[str, object]:
        data: dict[str, object] = {
            "decode_tps": round(self.decode_tps, 1),
            "prompt_tps": round(self.prompt_tps, 1),
            "measured": self.measured,
            "words": self.words,
        }
        if self.prediction is not None:
            data.update(self.prediction.to_dict())
        return data


def predict_for_plan(path: Path, plan: Plan, report: HardwareReport) -> Prediction | None:
    """The prediction for a model file (GGUF or ONNX folder) planned as ``plan``."""
    if report.speed is None or not plan.loadable:
        return None
    from engine.errors import EngineError
    from engine.speed.facts import facts_for, read_model_info
    from engine.speed.predict import predict_plan

    if path.suffix in (".mlpackage", ".mlmodelc", ".mlmodel"):
        return None  # Core ML: not predicted
    try:
        facts = facts_for(read_model_info(path))
    except (EngineError, OSError, ValueError):
        return None
    if facts is None:
        return None
    return predict_plan(facts, plan, report.speed)


def model_speed(
    path: Path, report: HardwareReport, plan: Plan | None = None, *, predict_too: bool = False
) -> ModelSpeed | None:
    """Measured here if it ran here, else predicted for ``plan`` (the engine's plan for it);
    ``predict_too``: the prediction as well, beside a measurement."""
    from engine.speed.store import SpeedStore
    from engine.tuning.store import machine_key

    try:
        measured = SpeedStore().measured(machine_key(report)).get(str(path.resolve()))
    except OSError:
        measured = None
    if measured is not None and not predict_too:
        tps = measured.near_tps
        return ModelSpeed(
            tps, measured.prompt_tps, True, f"{format_tps(tps)} tokens/s (measured here)"
        )
    if plan is None:
        return None
    prediction = predict_for_plan(path, plan, report)
    if measured is not None:
        tps = measured.near_tps
        words = f"{format_tps(tps)} tokens/s (measured here)"
        return ModelSpeed(tps, measured.prompt_tps, True, words, prediction)
    if prediction is None:
        return None
    words = f"about {format_tps(prediction.decode_tps)} tokens/s (predicted)"
    return ModelSpeed(prediction.decode_tps, prediction.prompt_tps, False, words, prediction)
