"""What measuring a way to run a model found, and the typical turn ways are compared by."""

from __future__ import annotations

from dataclasses import dataclass

from engine.tuning.configs import Config

# A typical turn, for comparing ways: a message of this many tokens and a reply of that many,
# at the conversation's average depth (half the context).
TURN_PROMPT = 256
TURN_REPLY = 128


@dataclass(frozen=True, slots=True)
class Measurement:
    config: Config
    load_s: float
    prefill_tokens_per_s: float
    near_depth: int
    near_tokens_per_s: float  # decode speed at ``near_depth`` tokens of context
    deep_depth: int
    deep_tokens_per_s: float
    seconds: float  # the whole measurement, load included

    def decode_s(self, depth: float) -> float:
        """Seconds per generated token at ``depth`` tokens of context: the line through the two
        measured depths (never falling with depth, never below the faster measurement)."""
        near, deep = 1 / self.near_tokens_per_s, 1 / self.deep_tokens_per_s
        span = max(self.deep_depth - self.near_depth, 1)
        slope = max((deep - near) / span, 0.0)
        return max(min(near, deep), near + slope * (depth - self.near_depth))

    def turn_s(self, n_ctx: int) -> float:
        """The time of a typical turn in a conversation that fills ``n_ctx``."""
        prompt = TURN_PROMPT / self.prefill_tokens_per_s
        return prompt + TURN_REPLY * self.decode_s(n_ctx / 2)

    def to_dict(self) -> dict[str, object]:
        return {
            "config": self.config.to_dict(),
            "load_s": round(self.load_s, 3),
            "prefill_tokens_per_s": round(self.prefill_tokens_per_s, 2),
            "near_depth": self.near_depth,
            "near_tokens_per_s": round(self.near_tokens_per_s, 2),
            "deep_depth": self.deep_depth,
            "deep_tokens_per_s": round(self.deep_tokens_per_s, 2),
            "seconds": round(self.seconds, 3),
        }

    @classmethod
    def from_dict(cls, data: dict[str, object], config: Config) -> Measurement:
        def number(key: str) -> float:
            value = data[key]
            if not isinstance(value, int | float) or value < 0:
                raise ValueError(f"{key} must be a number")
            return float(value)

        measurement = cls(
            config=config,
            load_s=number("load_s"),
            prefill_tokens_per_s=number("prefill_tokens_per_s"),
            near_depth=int(number("near_depth")),
            near_tokens_per_s=number("near_tokens_per_s"),
            deep_depth=int(number("deep_depth")),
            deep_tokens_per_s=number("deep_tokens_per_s"),
            seconds=number("seconds"),
        )
        if min(measurement.prefill_tokens_per_s, measurement.near_tokens_per_s) <= 0:
            raise ValueError("speeds must be positive")
        if measurement.deep_tokens_per_s <= 0:
            raise ValueError("speeds must be positive")
        return measurement
