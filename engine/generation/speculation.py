"""Prompt-lookup speculation: guess the next tokens from the conversation itself, let the model
check them all in one batch, keep the agreeing prefix.

Answers about documents, code edits and summaries copy long runs of what they were given. The
token after the latest earlier occurrence of the last few tokens is a free guess at what comes
next (Saxena's "prompt lookup decoding"; llama.cpp's ``lookup`` example). The model evaluates
the guesses in one batch, and the generation loop samples each position with the request's own
sampler, keeping guesses only while they are what the sampler drew (Leviathan et al., ICML 2023,
with a drafter whose distribution is a single token). The output is therefore exactly what plain
decoding gives: the same sampler sees the same logits in the same order.

Whether a batch pays depends on the machine and the model: on a 2-core CPU a 135M model costs
about half a single step per extra batch position, a 0.5B model a fifth. ``DraftPolicy`` keeps a
running estimate of both sides, the cost of each extra position (timed on the batches it sends)
and how often a guess is right (from every guess, also those not sent, which are checked against
the tokens plain decoding produces), and drafts only the length that is expected to be faster.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Sequence
from typing import Protocol

MIN_NGRAM = 2
MAX_NGRAM = 4
MAX_DRAFT = 16
# Before anything is measured: the cost of one more position in a batch, as a fraction of a
# single-token step (a small model on a small CPU), and how often a guess is right.
PRIOR_COST = 0.5
PRIOR_HIT = 0.7
# A draft is sent only when it is expected to be at least this much faster than plain decoding.
MARGIN = 1.05
_RATE = 0.2  # how fast the running estimates follow new observations


class Drafter(Protocol):
    """What guesses tokens for the loop besides the conversation itself: a smaller model of the
    same vocabulary (``engine.backends.draft.DraftModel``)."""

    name: str

    def guess(self, sequence: Sequence[int], k: int, cancel: threading.Event) -> list[int]:
        """Up to ``k`` tokens that would come next after ``sequence``."""
        ...

    def close(self) -> None: ...


class PromptLookup:
    """An index from every short n-gram of the sequence to the token that followed its latest
    occurrence."""

    def __init__(self, tokens: Sequence[int] = ()) -> None:
        self._seq: list[int] = []
        self._next: dict[tuple[int, ...], int] = {}
        for t in tokens:
            self.append(t)

    def __len__(self) -> int:
        return len(self._seq)

    @property
    def tokens(self) -> list[int]:
        """The whole sequence so far (read-only by convention)."""
        return self._seq

    def append(self, token: int) -> None:
        seq = self._seq
        seq.append(token)
        end = len(seq) - 1  # the n-grams ending just before ``token`` are followed by it
        for n in range(MIN_NGRAM, MAX_NGRAM + 1):
            if end - n < 0:
                break
            self._next[tuple(seq[end - n : end])] = end

    def propose(self, k: int) -> list[int]:
        """Up to ``k`` tokens that followed the longest earlier occurrence of the sequence's tail
        (none when the tail never occurred before)."""
        seq = self._seq
        if k <= 0:
            return []
        for n in range(min(MAX_NGRAM, len(seq)), MIN_NGRAM - 1, -1):
            start = self._next.get(tuple(seq[len(seq) - n :]))
            if start is not None:
                return seq[start : start + k]
        return []


class DraftPolicy:
    """How many guessed tokens to send for checking, from what has been measured.

    With a per-token hit rate ``a`` and an extra-position cost ``c`` (fractions of a single
    step), a draft of ``k`` is expected to yield ``1 + a + ... + a**k`` tokens for ``1 + c*k``
    steps' time; the best ``k`` is sent when that beats plain decoding by ``MARGIN``.
    """

    def __init__(self, cost: float = PRIOR_COST, guess_cost: float = 0.0) -> None:
        self.cost = cost
        # What making one guess costs, as a fraction of a single step: nothing for a lookup, a
        # draft model's own step for a draft model.
        self.guess_cost = guess_cost
        self.hit = PRIOR_HIT
        self.step_s: float | None = None  # a single-token step, measured

    def length(self, available: int) -> int:
        best, best_gain = 0, MARGIN
        expected, p = 1.0, 1.0
        for k in range(1, min(available, MAX_DRAFT) + 1):
            p *= self.hit
            expected += p
            gain = expected / (1.0 + (self.cost + self.guess_cost) * k)
            if gain > best_gain:
                best, best_gain = k, gain
        return best

    def guessed(self, hits: int, missed: bool) -> None:
        """``hits`` guesses in a row were right, then one was wrong (``missed``) or the run
        ended."""
        for _ in range(hits):
            self.hit += _RATE * (1.0 - self.hit)
        if missed:
            self.hit -= _RATE * self.hit

    def timed_step(self, seconds: float) -> None:
        self.step_s = seconds if self.step_s is None else _ema(self.step_s, seconds)

    def timed_batch(self, size: int, seconds: float) -> None:
        """A batch of ``size`` positions took ``seconds``."""
        if self.step_s is None or size < 2 or self.step_s <= 0:
            return
        observed = (seconds / self.step_s - 1.0) / (size - 1)
        self.cost = _ema(self.cost, min(max(observed, 0.01), 2.0))

    def timed_guesses(self, count: int, seconds: float) -> None:
        """Making ``count`` guesses took ``seconds`` (a draft model's steps)."""
        if self.step_s is None or count < 1 or self.step_s <= 0:
            return
        self.guess_cost = _ema(self.guess_cost, min(seconds / count / self.step_s, 2.0))


class Shadow:
    """A guess that was not sent, checked against the tokens plain decoding produces."""

    def __init__(self) -> None:
        self._guess: list[int] = []
        self._hits = 0

    @property
    def active(self) -> bool:
        return bool(self._guess)

    def start(self, guess: list[int]) -> None:
        self._guess = list(reversed(guess))
        self._hits = 0

    def produced(self, token: int, policy: DraftPolicy) -> None:
        if not self._guess:
            return
        if self._guess.pop() == token:
            self._hits += 1
            if not self._guess:
                policy.guessed(self._hits, missed=False)
            return
        policy.guessed(self._hits, missed=True)
        self._guess.clear()


# A draft model's guess: (the conversation so far, how many tokens at most, cancel) -> tokens.
ModelGuess = Callable[[list[int], int, threading.Event], list[int]]


class ReplyGuesses:
    """One reply's speculation: after each token, what to check in the next batch (the
    conversation's own continuation, as long as ``policy`` expects it to pay; else a draft
    model's guess, where there is one), and what each step and batch cost."""

    def __init__(
        self,
        history: Sequence[int],
        policy: DraftPolicy,
        model_policy: DraftPolicy,
        model_guess: ModelGuess | None = None,
    ) -> None:
        self.lookup = PromptLookup(history)
        # Images stand in the history as runs of negative ids, which no model can be fed as a
        # guess: guesses stop before them, and a draft model (which would read the whole
        # history) sits such a conversation out.
        self.pictured = any(t < 0 for t in history)
        self.policy = policy
        policy.hit = PRIOR_HIT
        self.model_policy = model_policy
        self.model_guess = None if self.pictured else model_guess
        self.shadow = Shadow()

    def agreed(self, token: int) -> None:
        """``token`` was a guess the model agreed with: already evaluated."""
        self.lookup.append(token)

    def after(
        self, token: int, room: int, cancel: threading.Event
    ) -> tuple[list[int], DraftPolicy]:
        """The guesses to check with ``token`` (at most ``room``), and the policy that measures
        them; no guesses where none is expected to pay."""
        self.lookup.append(token)
        self.shadow.produced(token, self.policy)
        guess = self.lookup.propose(MAX_DRAFT) if room > 0 and not self.shadow.active else []
        if self.pictured:
            guess = list(itertools.takewhile(lambda t: t >= 0, guess))
        draft = guess[: self.policy.length(min(room, len(guess)))]
        if guess and not draft:
            self.shadow.start(guess)
        if not draft and not guess and self.model_guess is not None and room > 0:
            return self.model_guess(self.lookup.tokens, room, cancel), self.model_policy
        return draft, self.policy

    def timed_step(self, seconds: float) -> None:
        """A plain step took ``seconds``: the unit both policies measure batches in."""
        self.policy.timed_step(seconds)
        self.model_policy.timed_step(seconds)


def _ema(old: float, new: float) -> float:
    return old + _RATE * (new - old)
