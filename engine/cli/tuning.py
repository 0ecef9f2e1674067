"""``cove tune``: measure the ways a model runs here and choose one; the choice as ``cove plan``
shows it too."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from engine.cli.output import print_json
from engine.errors import InsufficientMemory

if TYPE_CHECKING:
    from engine.speed.check import Check
    from engine.tuning import Choice


def tune_command(args: argparse.Namespace) -> int:
    from engine.library.names import resolve_model
    from engine.tuning.store import TuningStore

    path = resolve_model(args.model)
    store = TuningStore()
    if args.auto:
        store.set_override(path, None)
    if args.use:
        choice = choice_for(path, args.ctx, measure_now=False)
        labels = [w.label for w in choice.ways] if choice else []
        if args.use not in labels:
            raise ValueError(
                f"{args.use!r} is not a way {path.name} runs here; choose one of: "
                + "; ".join(repr(label) for label in labels)
            )
        store.set_override(path, args.use)
    choice = choice_for(path, args.ctx, measure_now=not args.use, again=args.again)
    if choice is None:
        raise InsufficientMemory(f"{path.name} does not fit in the memory free now.")
    speed = _speed_check(choice)
    batching = None if args.use else _measure_batching(path, choice, args.again)
    if args.json:
        print_json(
            {
                **choice.plan.to_dict(),
                "choice": choice.to_dict(),
                "speed": speed.to_dict() if speed is not None else None,
                "parallel_auto": batching,
            }
        )
        return 0
    print(describe_choice(choice))
    if speed is not None:
        print(describe_check(speed))
    if batching is not None:
        print(f"Parallel  --parallel auto runs {batching['reason']}")
    return 0


def _measure_batching(path: Path, choice: Choice, again: bool) -> dict[str, object] | None:
    """How many replies at once pay for the chosen way (llama.cpp models), measured unless
    kept from a quiet machine."""
    from engine.hardware import probe_hardware
    from engine.tuning.batching import describe, measure_batching

    if sys.stderr.isatty():
        print("Measuring how many replies at once pay…", file=sys.stderr, flush=True)
    found = measure_batching(path, choice.plan, probe_hardware(), again=again)
    return None if found is None else describe(found)


def _speed_check(choice: Choice) -> Check | None:
    """The measured speed against the prediction; a new measurement corrects the rates."""
    from engine.hardware import probe_hardware
    from engine.speed.check import check_choice
    from engine.speed.machine import with_speed

    report = with_speed(probe_hardware())
    return check_choice(report, choice, record=choice.source == "measured")


def describe_check(c: Check) -> str:
    o = c.observation
    line = (
        f"Speed     measured {o.near_tps:.1f} tokens/s replying ({o.near_depth:.0f} tokens in) "
        f"and {o.prompt_tps:.0f} reading; predicted {c.predicted_decode_tps:.1f} and "
        f"{c.predicted_prompt_tps:.0f} ({c.decode_error:+.0%}, {c.prompt_error:+.0%})"
    )
    if c.corrected:
        line += "; later predictions use this measurement"
    return line


def choice_for(
    path: Path, ctx: int | None, *, measure_now: bool, again: bool = False
) -> Choice | None:
    from engine.hardware import probe_hardware
    from engine.planner.plan import resources_from
    from engine.tuning import choose

    report = probe_hardware()
    progress = _measuring_progress() if measure_now and sys.stderr.isatty() else None
    return choose(
        path,
        resources_from(report),
        report,
        ctx=ctx,
        measure_now=measure_now,
        remeasure=again,
        progress=progress,
    )


def _measuring_progress() -> Callable[[float], bool]:
    def show(fraction: float) -> bool:
        print(f"\rMeasuring… {fraction:4.0%}", end="", file=sys.stderr, flush=True)
        if fraction >= 1:
            print(file=sys.stderr)
        return True

    return show


def describe_choice(choice: Choice) -> str:
    lines = [f"Runs      {choice.config.label}", f"Because   {choice.reason}"]
    if len(choice.ways) > 1:
        lines.append(f"Ways      {len(choice.ways)} here:")
        measured = {m.config: m for m in choice.measurements}
        n_ctx = choice.plan.n_ctx
        for way in choice.ways:
            m = measured.get(way)
            figures = (
                f"prompt {m.prefill_tokens_per_s:.0f} tok/s, reply {m.near_tokens_per_s:.0f} "
                f"tok/s at the start, {1 / m.decode_s(n_ctx / 2):.0f} halfway; a turn "
                f"{m.turn_s(n_ctx):.2f} s ({_spread(m.spread(n_ctx))} over {m.runs} runs)"
                if m
                else "not measured"
            )
            mark = "*" if way == choice.config else " "
            lines.append(f"        {mark} {way.label}: {figures}")
    return "\n".join(lines)


def _spread(span: tuple[float, float]) -> str:
    low, high = span
    return f"{low:.2f}–{high:.2f} s"
