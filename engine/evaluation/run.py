"""A multiple-choice task run through an engine: each answer's log-likelihood after its question,
read from the engine's own scoring of the prompt (the completions API's ``echo``), as
lm-evaluation-harness's ``loglikelihood`` requests compute it.

Question and answer are tokenized as the harness does: the question alone, then question and
answer together; the answer's tokens are those past the question's. Spaces at the question's end
move to the answer, so no token is split between them. Several questions' answers go to the
engine in one request, which scores them in parallel sequences where the model has them.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from engine.client.protocol import EngineStatus, ScoredPrompts
from engine.errors import EngineError, EvaluationCancelled
from engine.evaluation.metrics import Answered, Score, score
from engine.evaluation.ran_as import RanAs, ran_as
from engine.evaluation.tasks import Question, Task

# Questions scored in one request (four answers each, on the usual task).
QUESTIONS_A_REQUEST = 8

Progress = Callable[[int, int], None]  # questions done, questions in all


class Scorer(Protocol):
    """What a run needs of an engine (engine.client.http_client.EngineClient has it)."""

    def tokenize(
        self, text: str, *, model: str | None = None, special: bool = True
    ) -> list[int]: ...

    def score(
        self, prompts: Sequence[Sequence[int]], *, model: str | None = None
    ) -> ScoredPrompts: ...

    def status(self) -> EngineStatus: ...


@dataclass(frozen=True, slots=True)
class Outcome:
    model: str
    score: Score
    answered: tuple[Answered, ...]
    seconds: float
    # The way the model ran (None: the engine did not say).
    ran_as: RanAs | None = None


def evaluate(
    engine: Scorer,
    model: str,
    task: Task,
    *,
    progress: Progress | None = None,
    cancel: threading.Event | None = None,
) -> Outcome:
    """Answer every question of ``task`` with ``model``. Raises EvaluationCancelled when
    ``cancel`` is set between requests, and the engine's errors as they are."""
    started = time.perf_counter()
    answered: list[Answered] = []
    way: RanAs | None = None
    questions = task.questions
    for first in range(0, len(questions), QUESTIONS_A_REQUEST):
        if cancel is not None and cancel.is_set():
            raise EvaluationCancelled("The evaluation was cancelled.")
        group = questions[first : first + QUESTIONS_A_REQUEST]
        prompts: list[list[int]] = []
        lengths: list[int] = []
        for question in group:
            context, spaces = _split(question.context)
            before = len(engine.tokenize(context, model=model))
            for choice in question.choices:
                whole = engine.tokenize(context + spaces + task.delimiter + choice, model=model)
                prompts.append(whole)
                # At least the last token, never the first (it has no log-probability).
                lengths.append(min(max(1, len(whole) - before), len(whole) - 1))
        scored = engine.score(prompts, model=model)
        if first == 0:
            way = _ran_as(engine, scored.model, len(prompts))
        rows, at = scored.rows, 0
        for question in group:
            logliks = []
            for _choice in question.choices:
                row, n = rows[at], lengths[at]
                logliks.append(sum(v for v in row[len(row) - n :] if v is not None))
                at += 1
            answered.append(_answered(question, logliks))
        if progress is not None:
            progress(len(answered), len(questions))
    seconds = time.perf_counter() - started
    return Outcome(model, score(answered), tuple(answered), seconds, way)


def _ran_as(engine: Scorer, answered_by: str | None, prompts: int) -> RanAs | None:
    """Read while the model is surely in memory: right after it answered."""
    try:
        return ran_as(engine.status().residents, answered_by, prompts)
    except EngineError:
        return None


def _split(context: str) -> tuple[str, str]:
    """The question without the spaces at its end, and those spaces (they go with the answer)."""
    kept = context.rstrip()
    return kept, context[len(kept) :]


def _answered(question: Question, logliks: list[float]) -> Answered:
    return Answered(tuple(logliks), tuple(len(c) for c in question.choices), question.answer)
