"""The measured choice: when a model can run more than one way here (GPU or CPU, flash attention
on or off, its GGUF or its ONNX build), a short benchmark on first use picks the fastest way that
fits, for the context it is loaded with; the measurements are kept per machine, build and
runtime version, so the next load reads them, and the user can name the way to use instead.

The ways are measured in turns, round after round, until one is clearly faster or the rounds
run out (then the runtime's default stays: the difference is within noise). Other programs'
use of the processor is recorded meanwhile; figures taken on a busy machine are provisional,
used, and measured again after a pause once the computer is idle (engine/host/idle/background.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from engine.tuning.configs import Config, Way, model_family
from engine.tuning.decide import decide, settled
from engine.tuning.figures import TURN_PROMPT, TURN_REPLY, Measurement
from engine.tuning.load import machine_is_quiet
from engine.tuning.measure import MeasureOnce, measure_once, measure_ways
from engine.tuning.store import TuningStore, build_key, machine_key
from engine.tuning.ways import installed_siblings, ways_to_run

if TYPE_CHECKING:
    from engine.hardware.report import HardwareReport
    from engine.planner.plan import Plan, Resources

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
    # The fastest way was not clearly faster than the runtime's default, which was kept.
    within_noise: bool = False

    @property
    def path(self) -> Path:
        return Path(self.config.path)

    @property
    def provisional(self) -> bool:
        """Measured while the machine was busy: measured again when it is quiet."""
        return any(m.provisional for m in self.measurements)

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
            "within_noise": self.within_noise,
            "provisional": self.provisional,
            "ways": [w.to_dict() for w in self.ways],
            "measurements": [
                {
                    **m.to_dict(),
                    "turn_s_at_context": round(m.turn_s(n_ctx), 3),
                    "turn_s_spread": [round(t, 3) for t in m.spread(n_ctx)],
                    "turns_s": [round(t, 3) for t in m.turns_s(n_ctx)],
                }
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
    quiet: Callable[[], bool] = machine_is_quiet,
    once: MeasureOnce = measure_once,
) -> Choice | None:
    """How to run ``path`` here: the override, else the fastest measured way for this context
    (measuring now when ``measure_now`` and a way is not measured yet, or was measured on a busy
    machine and the machine is ``quiet`` now), else the planner's own way. None when no way
    fits."""
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
                return Choice(way.config, way.plan, "override", "chosen by you", (), configs)
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
    # Ways are compared round by round, so they are measured together: all of them again when
    # one is new, or when a measurement taken on a busy machine can be taken on a quiet one.
    provisional = any(m.provisional for m in found.values())
    if missing or (measure_now and provisional and quiet()):
        found = measure_ways(ways, settled=settled(ways), progress=progress, once=once)
        for config, result in found.items():
            store.save(machine, build_key(Path(config.path)), result)
        return _decided(ways, found, "measured", configs)
    return _decided(ways, found, "cached", configs)


def _decided(
    ways: list[Way], found: dict[Config, Measurement], source: Source, configs: tuple[Config, ...]
) -> Choice:
    runs = {config: m.samples for config, m in found.items()}
    decision = decide(ways, runs)
    best = decision.chosen
    m = found[best.config]

    def turn(way: Way) -> float:
        return found[way.config].turn_s(way.plan.n_ctx)

    n_ctx = best.plan.n_ctx
    turn_words = (
        f"a turn ({TURN_PROMPT} prompt tokens read and a {TURN_REPLY}-token reply written halfway "
        f"into a {n_ctx}-token context)"
    )
    runs_n = min(found[w.config].runs for w in ways)
    if decision.clear:
        reason = (
            f"fastest of {len(ways)} ways measured here ({runs_n} rounds): {turn_words} takes "
            f"{turn(best):.2f} s, against {turn(decision.runner_up):.2f} s for "
            f"{decision.runner_up.config.label}"
        )
    else:
        reason = (
            f"the runtime's default: the {len(ways)} ways measured here are within noise of "
            f"each other ({runs_n} rounds; {turn_words} takes {turn(decision.fastest):.2f} s "
            f"with {decision.fastest.config.label}, {turn(decision.runner_up):.2f} s with "
            f"{decision.runner_up.config.label}, and not faster in every round)"
        )
    reason += (
        f"; prompt {m.prefill_tokens_per_s:.0f} tokens/s, replies {m.near_tokens_per_s:.0f} "
        f"tokens/s at the start and {1 / m.decode_s(n_ctx / 2):.0f} tokens/s halfway"
    )
    if any(x.provisional for x in found.values()):
        share = max(x.others_cpu for x in found.values())
        reason += (
            f"; measured while other programs used {share:.0%} of the processor, so it is "
            "measured again later, when the computer is idle"
        )
    ordered = tuple(found[w.config] for w in sorted(ways, key=turn))
    return Choice(best.config, best.plan, source, reason, ordered, configs, decision.within_noise)
