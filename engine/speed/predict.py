"""How fast a model will answer here, before it is downloaded or loaded: the model's costs per
token (``engine/speed/facts.py``) times this machine's rates for the runtime and device it would
run on (``engine/speed/calibrate.py``), layer by layer where a plan splits the model between a
GPU and the CPU.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from engine.hardware.speed_profile import Calibration, DeviceSpeed, SpeedProfile
from engine.speed.calibrate import calibration_key, decode_s, prior, prompt_s

if TYPE_CHECKING:
    from engine.planner.plan import Plan
    from engine.speed.facts import SpeedFacts

# The depths figures are given at: early in a conversation (a system prompt and a question),
# and deep into a long one.
SHORT_DEPTH = 512
DEEP_DEPTH = 4096
# A prompt's figure: one of this many tokens read from the start.
PROMPT_TOKENS = 512
# onnxruntime-genai's attention at depth against llama.cpp's (flash attention on a CPU), for a
# model it has not run here yet: 0.72 measured with the starter's two builds on a two-core x86
# (docs/PERFORMANCE.md); once an ONNX model has run here, its own measurement replaces it.
BORROWED_ATTENTION = {"onnxruntime-genai": 0.72}


@dataclass(frozen=True, slots=True)
class Prediction:
    decode_tps: float  # generated tokens per second at SHORT_DEPTH
    decode_tps_deep: float  # at DEEP_DEPTH (or the context's end, if shorter)
    prompt_tps: float  # prompt tokens read per second
    deep_depth: int
    device: str  # where it runs, in words
    basis: str  # where the figures come from, in one clause
    measured: bool  # the runtime's rates come from a model measured here

    def to_dict(self) -> dict[str, object]:
        return {
            "predicted_decode_tps": round(self.decode_tps, 1),
            "predicted_decode_tps_deep": round(self.decode_tps_deep, 1),
            "predicted_prompt_tps": round(self.prompt_tps, 1),
            "short_depth": SHORT_DEPTH,
            "deep_depth": self.deep_depth,
            "device": self.device,
            "basis": self.basis,
            "calibrated": self.measured,
        }


@dataclass(frozen=True, slots=True)
class Part:
    """A share of the model's layers on one device."""

    device: DeviceSpeed
    share: float


def calibration(profile: SpeedProfile, runtime: str, device: DeviceSpeed) -> Calibration:
    """The runtime's rates on ``device``: measured here, else (for onnxruntime-genai on a CPU
    or GPU) llama.cpp's measured rates there, else the prior."""
    found = profile.calibrations.get(calibration_key(runtime, device.kind))
    if found is not None:
        return found
    if runtime != "llama.cpp":
        borrowed = profile.calibrations.get(calibration_key("llama.cpp", device.kind))
        if borrowed is not None and device.kind != "npu":
            from dataclasses import replace

            return replace(
                borrowed,
                attention_s=borrowed.attention_s * BORROWED_ATTENTION.get(runtime, 1.0),
                source=f"as llama.cpp {borrowed.source}; no {runtime} model has run here yet",
                measured=(),
            )
    return prior(device)


Rates = list[tuple[Calibration, float]]  # a runtime's rates on each device, with its share


def rates_on(profile: SpeedProfile, runtime: str, parts: list[Part]) -> Rates:
    return [(calibration(profile, runtime, p.device), p.share) for p in parts]


def decode_tps(rates: Rates, facts: SpeedFacts, depth: float) -> float:
    """Generated tokens per second at ``depth``, the devices' shares of the layers added."""
    return 1 / sum(decode_s(c, facts, depth, share) for c, share in rates)


def prompt_tps(rates: Rates, facts: SpeedFacts, depth: float) -> float:
    """Prompt tokens read per second at mean ``depth``."""
    return 1 / sum(prompt_s(c, facts, depth, share) for c, share in rates)


def predict(
    facts: SpeedFacts,
    profile: SpeedProfile,
    runtime: str,
    parts: list[Part],
    *,
    n_ctx: int | None = None,
    device_words: str | None = None,
) -> Prediction:
    rates = rates_on(profile, runtime, parts)
    deep = min(DEEP_DEPTH, max((n_ctx or DEEP_DEPTH) - 256, SHORT_DEPTH))
    main = max(parts, key=lambda p: p.share)
    c_main = calibration(profile, runtime, main.device)
    basis = f"predicted from {main.device.bandwidth_words()}; {c_main.source}"
    return Prediction(
        decode_tps=decode_tps(rates, facts, SHORT_DEPTH),
        decode_tps_deep=decode_tps(rates, facts, deep),
        prompt_tps=prompt_tps(rates, facts, PROMPT_TOKENS / 2),
        deep_depth=int(deep),
        device=device_words or main.device.name,
        basis=basis,
        measured=c_main.is_measured,
    )


def placement(plan: Plan) -> list[tuple[str, float]]:
    """Where a plan puts the model's layers: device keys ("cpu", "gpu0", "npu") and shares."""
    if plan.backend == "onnxruntime-genai":
        words = plan.device.lower()
        if any(m in words for m in ("qnn", "vitis", "npu")):
            return [("npu", 1.0)]
        if any(m in words for m in ("cuda", "dml", "gpu")):
            return [("gpu0", 1.0)]
        return [("cpu", 1.0)]
    if plan.gpu_layers <= 0:
        return [("cpu", 1.0)]
    share = min(plan.gpu_layers / (plan.n_layers + 1), 1.0)
    return [("gpu0", 1.0)] if share >= 1.0 else [("gpu0", share), ("cpu", 1.0 - share)]


def device_kind(key: str) -> str:
    """A device key's kind: "gpu0" is a GPU."""
    return "gpu" if key.startswith("gpu") else key


def parts_for_plan(plan: Plan, profile: SpeedProfile) -> list[Part]:
    """The devices a plan puts the model's layers on, with each one's share: all on the CPU
    where the profile lacks a device the plan names."""
    cpu = profile.device("cpu")
    if cpu is None:
        raise ValueError("the speed profile has no CPU")
    found = [(profile.device(key), share) for key, share in placement(plan)]
    if any(device is None for device, _share in found):
        return [Part(cpu, 1.0)]
    return [Part(device, share) for device, share in found if device is not None]


def runtime_of(plan: Plan) -> str:
    return "onnxruntime-genai" if plan.backend == "onnxruntime-genai" else "llama.cpp"


def predict_plan(
    facts: SpeedFacts, plan: Plan, profile: SpeedProfile, device_words: str | None = None
) -> Prediction:
    return predict(
        facts,
        profile,
        runtime_of(plan),
        parts_for_plan(plan, profile),
        n_ctx=plan.n_ctx,
        device_words=device_words,
    )
