"""Models' measured speeds as observations for the calibration: from ``cove tune``'s runs (a
prompt, replies at two depths) and from the first reply after a model's first load, which is
compared with what was predicted: a prediction off by more than ``OFF_BY`` corrects the rates of
its runtime on its device for every later prediction (``engine/speed/check.py``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from engine.speed.calibrate import Observation
from engine.speed.facts import facts_for
from engine.speed.predict import device_kind, placement, runtime_of

if TYPE_CHECKING:
    from engine.formats.coreml import CoreMLModelInfo
    from engine.formats.gguf import GGUFFile
    from engine.formats.onnx import OnnxModelInfo
    from engine.planner.plan import Plan
    from engine.tuning.figures import Sample
    from engine.types import GenerationStats

# A reply this short, or a prompt this short, says little about speed.
MIN_DECODED = 16
MIN_PROMPT = 64


def kind_of(plan: Plan) -> str:
    """The kind of device that holds most of a plan's layers."""
    key, _share = max(placement(plan), key=lambda part: part[1])
    return device_kind(key)


def observation(
    path: Path,
    info: GGUFFile | OnnxModelInfo | CoreMLModelInfo,
    plan: Plan,
    *,
    prompt: tuple[float, float],
    near: tuple[float, float],
    deep: tuple[float, float] | None = None,
    source: str,
) -> Observation | None:
    """The one way a measurement becomes an observation: the model's costs per token from its
    header, the runtime and device kind from its plan, and the figures measured, each as (depth,
    tokens per second). None when the model's costs are not known."""
    facts = facts_for(info)
    if facts is None:
        return None
    return Observation(
        model=_name(path),
        runtime=runtime_of(plan),
        kind=kind_of(plan),
        facts=facts,
        prompt_depth=prompt[0],
        prompt_tps=prompt[1],
        near_depth=near[0],
        near_tps=near[1],
        deep_depth=None if deep is None else deep[0],
        deep_tps=None if deep is None else deep[1],
        source=source,
    )


def observation_from_sample(
    path: Path,
    info: GGUFFile | OnnxModelInfo | CoreMLModelInfo,
    plan: Plan,
    sample: Sample,
    *,
    source: str = "tune",
) -> Observation | None:
    """A measured way's figures (``cove tune``, the probe's starter run): a prompt, replies at
    two depths."""
    from engine.tuning.measure import PROMPT_TOKENS

    return observation(
        path,
        info,
        plan,
        prompt=(PROMPT_TOKENS / 2, sample.prefill_tokens_per_s),
        near=(sample.near_depth, sample.near_tokens_per_s),
        deep=(sample.deep_depth, sample.deep_tokens_per_s),
        source=source,
    )


def counts(stats: GenerationStats) -> bool:
    """Whether a reply read enough of a prompt and wrote enough to say how fast this model runs
    here (and did not speculate, which changes the decode rate)."""
    return not (
        stats.completion_tokens < MIN_DECODED
        or stats.prompt_tokens - stats.cached_tokens < MIN_PROMPT
        or stats.decode_tokens_per_s <= 0
        or stats.prompt_tokens_per_s <= 0
        or stats.draft_tokens
    )


def observation_from_stats(
    path: Path,
    info: GGUFFile | OnnxModelInfo | CoreMLModelInfo,
    plan: Plan,
    stats: GenerationStats,
) -> Observation | None:
    """A reply's figures, when it read a prompt and wrote enough of a reply to count."""
    if not counts(stats):
        return None
    evaluated = stats.prompt_tokens - stats.cached_tokens
    return observation(
        path,
        info,
        plan,
        prompt=(stats.cached_tokens + evaluated / 2, stats.prompt_tokens_per_s),
        near=(stats.prompt_tokens + stats.completion_tokens / 2, stats.decode_tokens_per_s),
        source="first load",
    )


def _name(path: Path) -> str:
    return path.name.removesuffix(".gguf")
