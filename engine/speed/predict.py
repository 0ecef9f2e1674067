"""How fast a model will answer here, before it is downloaded or loaded: the model's costs per
token (``engine/speed/facts.py``) times this machine's rates for the runtime and device it would
run on (``engine/speed/calibrate.py``), layer by layer where a plan splits the model between a
GPU and the CPU.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from engine.speed.calibrate import calibration_key, prior
from engine.speed.profile import Calibration, DeviceSpeed, SpeedProfile

if TYPE_CHECKING:
    from engine.planner import Plan
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


def decode_s(c: Calibration, facts: SpeedFacts, depth: float, share: float = 1.0) -> float:
    """Seconds per generated token for ``share`` of the layers at ``depth`` tokens of context."""
    return share * (
        facts.bytes_per_token * c.byte_s
        + facts.layers * c.layer_s
        + facts.attention_units(depth) * c.attention_s
        + c.kv_factor * facts.kv_bytes_per_token * depth * c.byte_s
    )


def prompt_s(c: Calibration, facts: SpeedFacts, depth: float, share: float = 1.0) -> float:
    """Seconds per prompt token read at mean ``depth``."""
    units = facts.layers * facts.width
    return share * (
        facts.prompt_flops * c.flop_s + units * c.width_s + units * depth * c.prompt_attention_s
    )


def predict(
    facts: SpeedFacts,
    profile: SpeedProfile,
    runtime: str,
    parts: list[Part],
    *,
    n_ctx: int | None = None,
    device_words: str | None = None,
) -> Prediction:
    rates = [(calibration(profile, runtime, p.device), p.share) for p in parts]
    deep = min(DEEP_DEPTH, max((n_ctx or DEEP_DEPTH) - 256, SHORT_DEPTH))

    def decode_at(depth: float) -> float:
        return 1 / sum(decode_s(c, facts, depth, share) for c, share in rates)

    prompt = 1 / sum(prompt_s(c, facts, PROMPT_TOKENS / 2, share) for c, share in rates)
    main = max(parts, key=lambda p: p.share)
    c_main = calibration(profile, runtime, main.device)
    basis = f"predicted from {main.device.bandwidth_words()}; {c_main.source}"
    return Prediction(
        decode_tps=decode_at(SHORT_DEPTH),
        decode_tps_deep=decode_at(deep),
        prompt_tps=prompt,
        deep_depth=int(deep),
        device=device_words or main.device.name,
        basis=basis,
        measured=c_main.is_measured,
    )


def parts_for_plan(plan: Plan, profile: SpeedProfile) -> list[Part]:
    """The devices a plan puts the model's layers on, with each one's share."""
    cpu = profile.device("cpu")
    if cpu is None:
        raise ValueError("the speed profile has no CPU")
    if plan.backend == "onnxruntime-genai":
        words = plan.device.lower()
        for key, marks in (("npu", ("qnn", "vitis", "npu")), ("gpu0", ("cuda", "dml", "gpu"))):
            dev = profile.device(key)
            if dev is not None and any(m in words for m in marks):
                return [Part(dev, 1.0)]
        return [Part(cpu, 1.0)]
    gpu = profile.device("gpu0")
    if plan.gpu_layers <= 0 or gpu is None:
        return [Part(cpu, 1.0)]
    share = min(plan.gpu_layers / (plan.n_layers + 1), 1.0)
    if share >= 1.0:
        return [Part(gpu, 1.0)]
    return [Part(gpu, share), Part(cpu, 1.0 - share)]


def predict_plan(
    facts: SpeedFacts, plan: Plan, profile: SpeedProfile, device_words: str | None = None
) -> Prediction:
    runtime = "onnxruntime-genai" if plan.backend == "onnxruntime-genai" else "llama.cpp"
    return predict(
        facts,
        profile,
        runtime,
        parts_for_plan(plan, profile),
        n_ctx=plan.n_ctx,
        device_words=device_words,
    )
