"""A draft model: a smaller llama.cpp model that guesses greedily for a larger one. It is the
loop's ``Drafter`` (engine/generation/speculation.py); which draft suits which model, and whether
it fits beside it, is ``engine/advice/drafts.py``.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

from engine.backends.llama.sampling import last_logits
from engine.backends.llama.single import LlamaCppModel
from engine.planner.plan import Plan
from engine.types import GenerationParams

_GREEDY = GenerationParams(temperature=0.0)


class DraftModel:
    """A llama.cpp model that guesses greedily after a token sequence, keeping its own cache of
    the sequence so that each guess evaluates only what is new."""

    def __init__(self, model: LlamaCppModel) -> None:
        self.model = model
        self.name = model.name

    @classmethod
    def load(cls, path: Path, plan: Plan) -> DraftModel:
        return cls(LlamaCppModel(path, plan))

    def guess(self, sequence: Sequence[int], k: int, cancel: threading.Event) -> list[int]:
        """Up to ``k`` tokens the draft model would say next after ``sequence``."""
        m = self.model
        # The loop's own prefill: keeps the common prefix, evaluates the rest in batches.
        if m._prefill(list(sequence), _GREEDY, cancel) < 0:
            return []
        out: list[int] = []
        for i in range(k):
            token = int(last_logits(m).argmax())
            out.append(token)
            if i == k - 1 or len(m._cached) + 2 > m.n_ctx:
                break
            if not m.decode([token], cancel):
                break
            m._cached.append(token)
        return out

    def close(self) -> None:
        self.model.close()
