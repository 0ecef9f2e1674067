"""From what models reached here to the speed model's rates: each runtime on each kind of device
gets a :class:`Calibration`, the prior below until a model has run that way, then one fitted to
the measurements (``Observation``) of every model that did.

Decode, per generated token at ``d`` tokens of context:
    t = bytes_read * byte_s + layers * layer_s + layers * width * d * attention_s
        (+ the cache's bytes at depth * byte_s on GPUs)
Prompt, per prompt token at mean depth ``d``:
    t = operations * flop_s + layers * width * (width_s + d * prompt_attention_s)

One model's measurement fixes the rates (bytes, operations) with the fixed costs held at their
prior share; two or more models of different shapes fix both. The priors' shapes (LAYER_BYTES,
WIDTH_FLOPS, the attention ratios) were fitted on the starter and Qwen2.5-Coder 0.5B with
llama.cpp on a two-core x86 machine (docs/PERFORMANCE.md, bench/bench_predict.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from statistics import median

from engine.hardware.speed_profile import Calibration, DeviceSpeed
from engine.speed.facts import SpeedFacts

# A layer's fixed decode cost on a CPU, as the bytes the same time reads (about 0.84 MB).
LAYER_BYTES = 0.84e6
# A layer's per-token prompt cost beyond its matrices (norms, rotary embedding, the activations
# quantised for each matrix), as operations per unit of width.
WIDTH_FLOPS = 64_000.0
# Attention per layer-width-depth unit, as operations at the matrices' rate: a token's decode
# attention runs vector by vector, a prompt's in blocks.
DECODE_ATTENTION_FLOPS = 333.0
PROMPT_ATTENTION_FLOPS = 22.0
# Prior shares of the probe's figures a runtime reaches (quantised kernels beat the float
# matrix product the CPU probe times; GPUs reach most of their bandwidth on large models).
CPU_BANDWIDTH_SHARE = 0.5
CPU_FLOPS_SHARE = 1.6
GPU_BANDWIDTH_SHARE = 0.7
GPU_FLOPS_SHARE = 0.4
GPU_LAYER_S = 15e-6
NPU_BANDWIDTH_SHARE = 0.4
NPU_FLOPS_SHARE = 0.2
NPU_LAYER_S = 30e-6
# Two models fix the fixed costs apart from the rates only if their bytes per layer differ.
DISTINCT_SHAPES = 1.5


@dataclass(frozen=True, slots=True)
class Observation:
    """One model's speed as measured here, with what it costs per token."""

    model: str
    runtime: str
    kind: str  # "cpu" / "gpu" / "npu"
    facts: SpeedFacts
    prompt_tps: float
    prompt_depth: float  # mean context depth while the prompt was read
    near_depth: float
    near_tps: float
    deep_depth: float | None = None
    deep_tps: float | None = None
    source: str = "measured"  # "probe" / "tune" / "first load"

    def slope(self) -> float | None:
        """Extra decode seconds per token of depth, when measured at two depths."""
        if self.deep_depth is None or self.deep_tps is None:
            return None
        span = self.deep_depth - self.near_depth
        if span < 64:
            return None
        return max((1 / self.deep_tps - 1 / self.near_tps) / span, 0.0)

    def to_dict(self) -> dict[str, object]:
        return {
            "model": self.model,
            "runtime": self.runtime,
            "kind": self.kind,
            "facts": self.facts.to_dict(),
            "prompt_tps": self.prompt_tps,
            "prompt_depth": self.prompt_depth,
            "near_depth": self.near_depth,
            "near_tps": self.near_tps,
            "deep_depth": self.deep_depth,
            "deep_tps": self.deep_tps,
            "source": self.source,
        }

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Observation:
        f = data["facts"]
        if not isinstance(f, dict):
            raise ValueError("facts must be an object")
        facts = SpeedFacts(
            bytes_per_token=int(f["bytes_per_token"]),
            prompt_flops=int(f["prompt_flops"]),
            layers=int(f["layers"]),
            width=int(f["width"]),
            kv_bytes_per_token=int(f["kv_bytes_per_token"]),
            moe=bool(f.get("moe", False)),
        )

        def num(key: str) -> float:
            value = data[key]
            if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
                raise ValueError(f"{key} must be a number")
            return float(value)

        def maybe(key: str) -> float | None:
            return None if data.get(key) is None else num(key)

        obs = cls(
            model=str(data["model"]),
            runtime=str(data["runtime"]),
            kind=str(data["kind"]),
            facts=facts,
            prompt_tps=num("prompt_tps"),
            prompt_depth=num("prompt_depth"),
            near_depth=num("near_depth"),
            near_tps=num("near_tps"),
            deep_depth=maybe("deep_depth"),
            deep_tps=maybe("deep_tps"),
            source=str(data.get("source", "measured")),
        )
        if min(obs.prompt_tps, obs.near_tps) <= 0 or facts.bytes_per_token <= 0:
            raise ValueError("speeds and sizes must be positive")
        return obs


def calibration_key(runtime: str, kind: str) -> str:
    return f"{runtime}:{kind}"


def prior(device: DeviceSpeed) -> Calibration:
    """What a runtime is expected to reach on ``device`` before anything ran on it."""
    if device.kind == "gpu":
        return _accelerator(device, GPU_BANDWIDTH_SHARE, GPU_FLOPS_SHARE, GPU_LAYER_S, "GPU")
    if device.kind == "npu":
        return _accelerator(device, NPU_BANDWIDTH_SHARE, NPU_FLOPS_SHARE, NPU_LAYER_S, "NPU")
    byte_s = 1 / (CPU_BANDWIDTH_SHARE * device.bandwidth)
    flop_s = 1 / (CPU_FLOPS_SHARE * device.flops)
    return Calibration(
        byte_s=byte_s,
        layer_s=LAYER_BYTES * byte_s,
        attention_s=DECODE_ATTENTION_FLOPS * flop_s,
        kv_factor=0.0,
        flop_s=flop_s,
        width_s=WIDTH_FLOPS * flop_s,
        prompt_attention_s=PROMPT_ATTENTION_FLOPS * flop_s,
        source="expected from the probe's figures; no model has run here yet",
    )


def _accelerator(
    device: DeviceSpeed, bandwidth_share: float, flops_share: float, layer_s: float, what: str
) -> Calibration:
    """A GPU's or an NPU's prior: attention reads the cache at the byte rate."""
    flop_s = 1 / (flops_share * device.flops)
    return Calibration(
        byte_s=1 / (bandwidth_share * device.bandwidth),
        layer_s=layer_s,
        attention_s=0.0,
        kv_factor=1.0,
        flop_s=flop_s,
        width_s=0.0,
        prompt_attention_s=4 * flop_s,
        source=f"expected from the {what}'s figures; nothing has run on it here yet",
    )


def depth_s(c: Calibration, facts: SpeedFacts, depth: float) -> float:
    """The share of a generated token's seconds that grows with the context's depth."""
    return (
        facts.attention_units(depth) * c.attention_s
        + c.kv_factor * facts.kv_bytes_per_token * depth * c.byte_s
    )


def decode_s(c: Calibration, facts: SpeedFacts, depth: float, share: float = 1.0) -> float:
    """Seconds per generated token for ``share`` of the layers at ``depth`` tokens of context."""
    fixed = facts.bytes_per_token * c.byte_s + facts.layers * c.layer_s
    return share * (fixed + depth_s(c, facts, depth))


def prompt_s(c: Calibration, facts: SpeedFacts, depth: float, share: float = 1.0) -> float:
    """Seconds per prompt token read at mean ``depth``."""
    units = facts.layers * facts.width
    return share * (
        facts.prompt_flops * c.flop_s + units * c.width_s + units * depth * c.prompt_attention_s
    )


def fit(base: Calibration, observations: Sequence[Observation]) -> Calibration:
    """``base`` (a prior) refitted to the observations of one runtime on one kind of device."""
    if not observations:
        return base
    attention = _attention(base, observations)
    c = replace(base, attention_s=attention)
    byte_s, layer_s = _decode_rates(c, observations)
    flop_s, width_s = _prompt_rates(c, observations)
    names = tuple(dict.fromkeys(o.model for o in observations))
    return Calibration(
        byte_s=byte_s,
        layer_s=layer_s,
        attention_s=attention,
        kv_factor=base.kv_factor,
        flop_s=flop_s,
        width_s=width_s,
        prompt_attention_s=base.prompt_attention_s * flop_s / base.flop_s,
        source=_source(observations),
        measured=names,
    )


def _source(observations: Sequence[Observation]) -> str:
    first = observations[0]
    text = f"measured {first.near_tps:.0f} tok/s on {first.model}"
    if len(observations) > 1:
        text += f" and {len(observations) - 1} more model{'s' * (len(observations) > 2)}"
    return text


def _attention(base: Calibration, observations: Sequence[Observation]) -> float:
    """Decode attention's rate: the median of the measured slopes over each model's width (the
    cache's bytes, on devices that read them at the byte rate, taken out first)."""
    rates = []
    for o in observations:
        slope = o.slope()
        if slope is None:
            continue
        kv = base.kv_factor * o.facts.kv_bytes_per_token * base.byte_s
        rates.append(max(slope - kv, 0.0) / (o.facts.layers * o.facts.width))
    return median(rates) if rates else base.attention_s


def _decode_rates(c: Calibration, observations: Sequence[Observation]) -> tuple[float, float]:
    """(byte_s, layer_s) from each model's decode time with its depth's share taken out."""
    rows = []
    for o in observations:
        intercept = max(1 / o.near_tps - depth_s(c, o.facts, o.near_depth), 0.1 / o.near_tps)
        rows.append((float(o.facts.bytes_per_token), float(o.facts.layers), intercept))
    return _two_rates(rows, c.layer_s / c.byte_s)


def _prompt_rates(c: Calibration, observations: Sequence[Observation]) -> tuple[float, float]:
    ratio = c.prompt_attention_s / c.flop_s
    rows = []
    for o in observations:
        units = o.facts.layers * o.facts.width
        ops = o.facts.prompt_flops + units * o.prompt_depth * ratio
        rows.append((float(ops), float(units), 1 / o.prompt_tps))
    return _two_rates(rows, c.width_s / c.flop_s)


def _two_rates(rows: list[tuple[float, float, float]], ratio: float) -> tuple[float, float]:
    """Fit t = a * x + b * y to rows (x, y, t) in relative error; with one row, or rows of one
    shape, b stays ``ratio`` times a."""
    shapes = [x / y for x, y, _t in rows if y > 0]
    if len(rows) >= 2 and shapes and max(shapes) >= DISTINCT_SHAPES * min(shapes):
        # Least squares on (a x + b y) / t = 1.
        sxx = sum((x / t) ** 2 for x, _y, t in rows)
        syy = sum((y / t) ** 2 for _x, y, t in rows)
        sxy = sum(x * y / t**2 for x, y, t in rows)
        sx = sum(x / t for x, _y, t in rows)
        sy = sum(y / t for _x, y, t in rows)
        det = sxx * syy - sxy**2
        if det > 0:
            a = (sx * syy - sy * sxy) / det
            b = (sy * sxx - sx * sxy) / det
            if a > 0 and b >= 0:
                return a, b
            if a > 0:  # a negative fixed cost: noise; the rate alone
                return sx / sxx, 0.0
    a = sum(t for _x, _y, t in rows) / sum(x + ratio * y for x, y, _t in rows)
    return a, ratio * a
