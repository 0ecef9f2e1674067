"""The measured choice: when a model can run more than one way here (GPU or CPU, flash attention
on or off, its GGUF or its ONNX build), a short benchmark on first use picks the fastest way that
fits, for the context it is loaded with; the measurements are kept per machine, build and
runtime version, so the next load reads them, and the user can name the way to use instead.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from engine.tuning.configs import Config, Way, model_family
from engine.tuning.figures import Measurement
from engine.tuning.measure import measure_way
from engine.tuning.store import TuningStore, build_key, machine_key
from engine.tuning.ways import installed_siblings, ways_to_run

if TYPE_CHECKING:
    from engine.hardware.report import HardwareReport
    from engine.planner import Plan, Resources

Source = Literal["only", "measured", "cached", "override", "not_measured"]

__all__ = [
    "Choice",
    "Config",
    "Measurement",
    "choose",
    "model_family",
]


@dataclass(frozen=True, slots=True)
class Choice:
    config: Config
    plan: Plan
    source: Source
    reason: str
    measurements: tuple[Measurement, ...] = ()
    ways: tuple[Config, ...] = field(default_factory=tuple)

    @property
    def path(self) -> Path:
        return Path(self.config.path)

    def to_dict(self) -> dict[str, object]:
        n_ctx = self.plan.n_ctx
        return {
            "backend": self.config.backend,
            "device": self.config.device,
            "provider": _provider(self.plan),
            "flash_attn": self.config.flash_attn,
            "gpu_layers": self.config.gpu_layers,
            "model": self.config.path,
            "source": self.source,
            "reason": self.reason,
            "ways": [w.to_dict() for w in self.ways],
            "measurements": [
                {**m.to_dict(), "turn_s_at_context": round(m.turn_s(n_ctx), 3)}
                for m in self.measurements
            ],
        }


def _provider(plan: Plan) -> str | None:
    if plan.backend != "onnxruntime-genai":
        return None
    return plan.device.split(" ")[0].lower() if plan.device != "CPU" else "cpu"


def choose(
    path: Path,
    resources: Resources,
    report: HardwareReport,
    *,
    ctx: int | None = None,
    measure_now: bool = False,
    remeasure: bool = False,
    progress: Callable[[float], bool] | None = None,
    store: TuningStore | None = None,
    siblings: tuple[Path, ...] | None = None,
) -> Choice | None:
    """How to run ``path`` here: the override, else the fastest measured way for this context
    (measuring now the ways not measured yet when ``measure_now``), else the planner's own way.
    None when no way fits."""
    store = store or TuningStore()
    others = installed_siblings(path) if siblings is None else siblings
    ways = ways_to_run(path, resources, ctx=ctx, siblings=others)
    if not ways:
        return None
    configs = tuple(w.config for w in ways)
    if len(ways) == 1:
        return Choice(ways[0].config, ways[0].plan, "only", "the one way it runs here", (), configs)
    override = store.override(path)
    if override is not None:
        for way in ways:
            if way.config.label == override:
                return Choice(
                    way.config, way.plan, "override", "chosen by you (cove tune)", (), configs
                )
    machine = machine_key(report)
    found: dict[Config, Measurement] = {}
    if not remeasure:
        for way in ways:
            cached = store.measurement(machine, build_key(Path(way.config.path)), way.config)
            if cached is not None:
                found[way.config] = cached
    missing = [w for w in ways if w.config not in found]
    if missing and not measure_now:
        first = ways[0]
        reason = (
            f"{len(ways)} ways to run it here; not measured yet (measured when it is first "
            "loaded, or with cove tune)"
        )
        return Choice(
            first.config, first.plan, "not_measured", reason, tuple(found.values()), configs
        )
    for n, way in enumerate(missing):
        result = measure_way(
            Path(way.config.path), way.plan, way.config, _part(progress, n, len(missing))
        )
        store.save(machine, build_key(Path(way.config.path)), result)
        found[way.config] = result
    return _fastest(ways, found, "measured" if missing else "cached", configs)


def _part(
    progress: Callable[[float], bool] | None, n: int, count: int
) -> Callable[[float], bool] | None:
    if progress is None:
        return None
    return lambda f: progress((n + f) / count)


def _fastest(
    ways: list[Way], found: dict[Config, Measurement], source: Source, configs: tuple[Config, ...]
) -> Choice:
    def turn(way: Way) -> float:
        return found[way.config].turn_s(way.plan.n_ctx)

    best = min(ways, key=turn)
    runner_up = min((w for w in ways if w is not best), key=turn)
    m = found[best.config]
    reason = (
        f"fastest of {len(ways)} ways measured here: a turn (a {256}-token message and a "
        f"128-token reply halfway into a {best.plan.n_ctx}-token context) takes "
        f"{turn(best):.2f} s, against {turn(runner_up):.2f} s for {runner_up.config.label}; "
        f"prompt {m.prefill_tokens_per_s:.0f} tokens/s, replies {m.near_tokens_per_s:.0f} "
        f"tokens/s at the start and {1 / m.decode_s(best.plan.n_ctx / 2):.0f} tokens/s halfway"
    )
    ordered = tuple(found[w.config] for w in sorted(ways, key=turn))
    return Choice(best.config, best.plan, source, reason, ordered, configs)
