"""What measuring a way to run a model found, and the typical turn ways are compared by.

A way is measured several times, interleaved with the other ways (engine/tuning/measure.py):
each :class:`Sample` is one run, and a :class:`Measurement` holds a way's runs, their medians, and
how busy the rest of the machine was meanwhile.
"""

from __future__ import annotations

from dataclasses import dataclass
from statistics import median

from engine.tuning.configs import Config

# A typical turn, for comparing ways: new prompt tokens read and a reply written, both at the
# conversation's average depth (half the context). The prompt is what an agent's turn brings (a
# tool's output, a file, a resent system message) rather than a chat's short message: reading
# at depth is where the ways differ most (flash attention's gain grows with the depth), and a
# choice that ignored it would leave long prompts read the slow way.
TURN_PROMPT = 1024
TURN_REPLY = 128


@dataclass(frozen=True, slots=True)
class Sample:
    """One run: a prompt read, a reply generated near the start and another deeper in."""

    prefill_tokens_per_s: float
    near_depth: int
    near_tokens_per_s: float  # decode speed at ``near_depth`` tokens of context
    deep_depth: int
    deep_tokens_per_s: float
    seconds: float  # the run, its load included
    # The second prompt's reading speed, and the depth halfway through it (0: not measured,
    # as in runs stored before it was: reading is then taken as equally fast at every depth).
    deep_prefill_tokens_per_s: float = 0.0
    deep_prefill_depth: int = 0

    def decode_s(self, depth: float) -> float:
        """Seconds per generated token at ``depth`` tokens of context: the line through the two
        measured depths (never falling with depth, never below the faster measurement)."""
        return _line(
            (self.near_depth, 1 / self.near_tokens_per_s),
            (self.deep_depth, 1 / self.deep_tokens_per_s),
            depth,
        )

    def prefill_s(self, depth: float) -> float:
        """Seconds per prompt token read at ``depth`` tokens of context: the line through the
        first prompt (read from the start: halfway, at half its length) and the second."""
        first = 1 / self.prefill_tokens_per_s
        if self.deep_prefill_tokens_per_s <= 0 or self.deep_prefill_depth <= 0:
            return first
        near = max(self.near_depth // 2, 1)
        return _line((near, first), (self.deep_prefill_depth, 1 / self.deep_prefill_tokens_per_s),
                     depth)  # fmt: skip

    def turn_s(self, n_ctx: int) -> float:
        """The time of a typical turn in a conversation that fills ``n_ctx``."""
        depth = n_ctx / 2
        return TURN_PROMPT * self.prefill_s(depth) + TURN_REPLY * self.decode_s(depth)

    def to_dict(self) -> dict[str, object]:
        return {
            "prefill_tokens_per_s": round(self.prefill_tokens_per_s, 2),
            "near_depth": self.near_depth,
            "near_tokens_per_s": round(self.near_tokens_per_s, 2),
            "deep_depth": self.deep_depth,
            "deep_tokens_per_s": round(self.deep_tokens_per_s, 2),
            "seconds": round(self.seconds, 3),
            "deep_prefill_tokens_per_s": round(self.deep_prefill_tokens_per_s, 2),
            "deep_prefill_depth": self.deep_prefill_depth,
        }

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Sample:
        def number(key: str) -> float:
            value = data[key]
            if not isinstance(value, int | float) or isinstance(value, bool) or value < 0:
                raise ValueError(f"{key} must be a number")
            return float(value)

        sample = cls(
            prefill_tokens_per_s=number("prefill_tokens_per_s"),
            near_depth=int(number("near_depth")),
            near_tokens_per_s=number("near_tokens_per_s"),
            deep_depth=int(number("deep_depth")),
            deep_tokens_per_s=number("deep_tokens_per_s"),
            seconds=number("seconds"),
            # Absent from runs stored before reading at depth was measured.
            deep_prefill_tokens_per_s=number("deep_prefill_tokens_per_s")
            if "deep_prefill_tokens_per_s" in data
            else 0.0,
            deep_prefill_depth=int(number("deep_prefill_depth"))
            if "deep_prefill_depth" in data
            else 0,
        )
        speeds = (sample.prefill_tokens_per_s, sample.near_tokens_per_s, sample.deep_tokens_per_s)
        if min(speeds) <= 0:
            raise ValueError("speeds must be positive")
        return sample


@dataclass(frozen=True, slots=True)
class Measurement:
    """A way's runs, in the order they were taken (run i of every way in one round)."""

    config: Config
    load_s: float
    samples: tuple[Sample, ...]
    # The share of the machine's processor time that other processes took while this way was
    # measured (0 idle, 1 every core busy elsewhere), and whether that was too much for the
    # figures to be kept as final (engine/tuning/load.py).
    others_cpu: float = 0.0
    provisional: bool = False

    def __post_init__(self) -> None:
        if not self.samples:
            raise ValueError("a measurement needs at least one run")

    @property
    def runs(self) -> int:
        return len(self.samples)

    @property
    def prefill_tokens_per_s(self) -> float:
        return median(s.prefill_tokens_per_s for s in self.samples)

    @property
    def near_tokens_per_s(self) -> float:
        return median(s.near_tokens_per_s for s in self.samples)

    @property
    def deep_tokens_per_s(self) -> float:
        return median(s.deep_tokens_per_s for s in self.samples)

    @property
    def near_depth(self) -> int:
        return int(median(s.near_depth for s in self.samples))

    @property
    def deep_depth(self) -> int:
        return int(median(s.deep_depth for s in self.samples))

    @property
    def seconds(self) -> float:
        return sum(s.seconds for s in self.samples)

    def medians(self) -> Sample:
        """The runs' median figures, as one run."""
        return Sample(
            self.prefill_tokens_per_s,
            self.near_depth,
            self.near_tokens_per_s,
            self.deep_depth,
            self.deep_tokens_per_s,
            self.seconds,
            median(s.deep_prefill_tokens_per_s for s in self.samples),
            int(median(s.deep_prefill_depth for s in self.samples)),
        )

    def turns_s(self, n_ctx: int) -> list[float]:
        return [s.turn_s(n_ctx) for s in self.samples]

    def turn_s(self, n_ctx: int) -> float:
        """The median run's time of a typical turn at this context."""
        return median(self.turns_s(n_ctx))

    def spread(self, n_ctx: int) -> tuple[float, float]:
        turns = self.turns_s(n_ctx)
        return min(turns), max(turns)

    def decode_s(self, depth: float) -> float:
        return median(s.decode_s(depth) for s in self.samples)

    def to_dict(self) -> dict[str, object]:
        return {
            "config": self.config.to_dict(),
            "load_s": round(self.load_s, 3),
            "runs": self.runs,
            **self.medians().to_dict(),
            "seconds": round(self.seconds, 3),
            "others_cpu": round(self.others_cpu, 3),
            "provisional": self.provisional,
            "samples": [s.to_dict() for s in self.samples],
        }

    @classmethod
    def from_dict(cls, data: dict[str, object], config: Config) -> Measurement:
        raw = data["samples"]
        if not isinstance(raw, list):
            raise ValueError("samples must be a list")
        load_s, others = data["load_s"], data.get("others_cpu", 0.0)
        if not isinstance(load_s, int | float) or not isinstance(others, int | float):
            raise ValueError("load_s and others_cpu must be numbers")
        return cls(
            config=config,
            load_s=float(load_s),
            samples=tuple(Sample.from_dict(s) for s in raw if isinstance(s, dict)),
            others_cpu=float(others),
            provisional=bool(data.get("provisional", False)),
        )


def _line(a: tuple[float, float], b: tuple[float, float], x: float) -> float:
    """Seconds per token at depth ``x`` from two measured (depth, seconds) points: the line
    through them, never falling with depth and never below the faster point."""
    (x0, y0), (x1, y1) = a, b
    slope = max((y1 - y0) / max(x1 - x0, 1), 0.0)
    return max(min(y0, y1), y0 + slope * (x - x0))
