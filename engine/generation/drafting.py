"""A draft model for a resident one: a smaller model of the same vocabulary (engine/backends/
draft.py) that guesses where the conversation offers no guess of its own. Its steps are not
free, so it guesses only as long as its own measurements say a guess pays, and now and then a
short one when none does, so that the estimates can recover."""

from __future__ import annotations

import threading
import time

from engine.generation.speculation import Drafter, DraftPolicy, ModelGuess

# With a draft model whose guesses do not pay, one short guess every this many tokens.
MODEL_PROBE_EVERY = 24


def model_policy() -> DraftPolicy:
    """A draft model's policy before it has measured anything: a guess costs a fifth of a
    step."""
    return DraftPolicy(guess_cost=0.2)


class ModelGuesser:
    """The draft model attached to a resident model, if any, and what its guesses cost there."""

    def __init__(self) -> None:
        self.drafter: Drafter | None = None
        self.policy = model_policy()
        self._since_guess = 0

    @property
    def name(self) -> str | None:
        return self.drafter.name if self.drafter is not None else None

    def attach(self, drafter: Drafter | None) -> None:
        """Guess with ``drafter`` from now on (its estimates start afresh); None detaches. The
        one it replaces is closed."""
        old, self.drafter = self.drafter, drafter
        if old is not None and old is not drafter:
            old.close()
        self.policy = model_policy()

    def close(self) -> None:
        if self.drafter is not None:
            self.drafter.close()
            self.drafter = None

    def guesses(self) -> ModelGuess | None:
        """What a reply asks for a guess, while a draft model is attached."""
        return self.guess if self.drafter is not None else None

    def guess(self, sequence: list[int], room: int, cancel: threading.Event) -> list[int]:
        """The draft model's guess, as long as is expected to pay; now and then a short one
        when nothing pays, so that the estimates can recover."""
        policy = self.policy
        k = policy.length(room)
        self._since_guess += 1
        if k == 0:
            if self._since_guess < MODEL_PROBE_EVERY:
                return []
            k = min(2, room)
        self._since_guess = 0
        assert self.drafter is not None
        began = time.perf_counter()
        guess = self.drafter.guess(sequence, k, cancel)
        policy.timed_guesses(len(guess), time.perf_counter() - began)
        return guess
