"""What a multiple-choice run measures, as lm-evaluation-harness measures it: a question is right
when its right answer has the highest log-likelihood (``acc``), or the highest per character of
the answer (``acc_norm``, fairer to long answers); each mean with its standard error (the sample
standard deviation over the square root of the count, the harness's ``mean_stderr``).

Two builds of one model answer the same questions, so they are compared question by question:
how often they choose the same answer, and the difference in accuracy with the standard error
of the paired differences (much smaller than either accuracy's when the builds mostly agree).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Answered:
    """One question as a model answered it: each choice's summed log-likelihood."""

    logliks: tuple[float, ...]
    lengths: tuple[int, ...]  # each choice's length in characters
    answer: int

    @property
    def chosen(self) -> int:
        return max(range(len(self.logliks)), key=lambda i: self.logliks[i])

    @property
    def chosen_norm(self) -> int:
        return max(
            range(len(self.logliks)), key=lambda i: self.logliks[i] / max(1, self.lengths[i])
        )


@dataclass(frozen=True, slots=True)
class Score:
    questions: int
    acc: float
    acc_stderr: float
    acc_norm: float
    acc_norm_stderr: float


@dataclass(frozen=True, slots=True)
class Paired:
    """Two runs of one task side by side (``a`` minus ``b``)."""

    questions: int
    same_answer: float  # the share of questions where both chose the same answer
    acc_difference: float
    acc_difference_stderr: float


def score(answered: Sequence[Answered]) -> Score:
    right = [float(a.chosen == a.answer) for a in answered]
    right_norm = [float(a.chosen_norm == a.answer) for a in answered]
    return Score(
        len(answered), _mean(right), mean_stderr(right), _mean(right_norm), mean_stderr(right_norm)
    )


def paired(a: Sequence[Answered], b: Sequence[Answered]) -> Paired:
    if len(a) != len(b):
        raise ValueError("the two runs answered different numbers of questions")
    same = [float(x.chosen == y.chosen) for x, y in zip(a, b, strict=True)]
    diff = [
        float(x.chosen == x.answer) - float(y.chosen == y.answer) for x, y in zip(a, b, strict=True)
    ]
    return Paired(len(a), _mean(same), _mean(diff), mean_stderr(diff))


def mean_stderr(values: Sequence[float]) -> float:
    """The standard error of a mean: sample standard deviation (n - 1) over sqrt(n); 0 for
    fewer than two values."""
    n = len(values)
    if n < 2:
        return 0.0
    mean = _mean(values)
    variance = sum((v - mean) ** 2 for v in values) / (n - 1)
    return math.sqrt(variance / n)


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0
