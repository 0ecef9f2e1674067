"""Which way wins, and whether the difference is clear or within noise.

The runtime's own default (the planner's way, listed first) is kept unless another way is
clearly faster: faster in every round, each round's ways compared with each other (they shared
whatever the machine was doing then), and by at least ``NOISE`` in the median round. A busy
spell that slows one run of one way cannot flip the choice: the round it spoiled disagrees with
the others, and the default stays.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from statistics import median

from engine.tuning.configs import Config, Way
from engine.tuning.figures import Sample

NOISE = 0.05


@dataclass(frozen=True, slots=True)
class Decision:
    chosen: Way
    fastest: Way  # by median turn; the chosen unless within noise of the default
    runner_up: Way
    clear: bool  # the difference between the fastest and the next is beyond noise
    ratio: float  # median round's turn of the faster of the two over the other's (< 1)

    @property
    def within_noise(self) -> bool:
        return not self.clear


def decide(ways: Sequence[Way], runs: Mapping[Config, Sequence[Sample]]) -> Decision:
    """The way to use, from each way's runs (run i of every way taken in round i)."""
    if len(ways) < 2:
        raise ValueError("deciding needs two ways or more")

    def turn(way: Way) -> float:
        return median(s.turn_s(way.plan.n_ctx) for s in runs[way.config])

    ranked = sorted(ways, key=turn)
    default = ways[0]
    fastest = ranked[0]
    other = ranked[1] if fastest is default else default
    ratios = paired_ratios(fastest, other, runs)
    ratio = median(ratios)
    clear = max(ratios) < 1.0 and ratio <= 1.0 - NOISE
    chosen = fastest if clear or fastest is default else default
    return Decision(chosen, fastest, other, clear, ratio)


def paired_ratios(a: Way, b: Way, runs: Mapping[Config, Sequence[Sample]]) -> list[float]:
    """Way ``a``'s turn over way ``b``'s, round by round."""
    return [
        x.turn_s(a.plan.n_ctx) / y.turn_s(b.plan.n_ctx)
        for x, y in zip(runs[a.config], runs[b.config], strict=False)
    ]


def settled(ways: Sequence[Way]) -> Callable[[Mapping[Config, Sequence[Sample]]], bool]:
    """For measure_ways: the runs so far decide clearly."""

    def check(runs: Mapping[Config, Sequence[Sample]]) -> bool:
        return decide(ways, runs).clear

    return check
