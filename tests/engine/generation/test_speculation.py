"""Prompt-lookup speculation: the guesses, the policy that sizes them, the accept rule at
temperature above 0 on a small vocabulary, and the real starter's replies with and without it."""

from __future__ import annotations

import contextlib
import math
import threading
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from engine.backends.llama.single import LlamaCppModel
from engine.formats.gguf import read_gguf
from engine.generation.loop import GenerationLoop, TokenDecoder, TokenSource
from engine.generation.sampling import LogitSampler
from engine.generation.speculation import DraftPolicy, PromptLookup, Shadow
from engine.planner.gguf import make_plan
from engine.planner.plan import Device, Resources
from engine.templates import ChatTemplate
from engine.tools import Tool
from engine.types import ChatMessage, GenerationParams, Speculation
from tests.conftest import collect

# -- the guesses and the policy -----------------------------------------------------------------


def test_lookup_proposes_what_followed_the_latest_occurrence_of_the_tail() -> None:
    lookup = PromptLookup([1, 2, 3, 4, 5, 9, 1, 2, 3, 7, 8, 1, 2])
    # The tail (1, 2) last occurred before 3, 7, 8.
    assert lookup.propose(3) == [3, 7, 8]
    lookup.append(3)
    # The longest matching tail wins: (1, 2, 3) was followed by 7 most recently.
    assert lookup.propose(2) == [7, 8]
    assert lookup.propose(0) == []


def test_lookup_proposes_nothing_for_an_unseen_tail() -> None:
    lookup = PromptLookup([1, 2, 3, 4])
    lookup.append(5)
    assert lookup.propose(4) == []
    assert PromptLookup([]).propose(4) == []


def test_policy_drafts_long_when_guesses_are_right_and_batches_cheap() -> None:
    policy = DraftPolicy(cost=0.1)
    policy.hit = 0.95
    assert policy.length(16) >= 8
    assert policy.length(3) == 3


def test_policy_sends_nothing_when_it_would_not_pay() -> None:
    policy = DraftPolicy(cost=0.6)
    policy.hit = 0.3
    assert policy.length(16) == 0


def test_policy_learns_the_cost_of_a_batch_and_the_hit_rate() -> None:
    policy = DraftPolicy(cost=0.5)
    for _ in range(30):
        policy.timed_step(0.010)
        policy.timed_batch(9, 0.010 * (1 + 0.2 * 8))
    assert policy.cost == pytest.approx(0.2, abs=0.02)
    for _ in range(30):
        policy.guessed(0, missed=True)
    assert policy.hit < 0.01
    assert policy.length(16) == 0


def test_a_shadow_guess_is_checked_against_what_plain_decoding_produced() -> None:
    policy = DraftPolicy()
    policy.hit = 0.5
    shadow = Shadow()
    shadow.start([4, 5, 6])
    for token in (4, 5, 6):
        shadow.produced(token, policy)
    assert not shadow.active and policy.hit > 0.5
    before = policy.hit
    shadow.start([1, 2])
    shadow.produced(3, policy)
    assert not shadow.active and policy.hit < before


# -- the accept rule, on a vocabulary small enough to count ---------------------------------------

# A Markov chain over four tokens plus an end token that never comes: the logits of the next
# token depend on the last one.
_CHAIN = np.log(
    np.array(
        [
            [0.50, 0.30, 0.15, 0.05, 1e-9],
            [0.10, 0.60, 0.20, 0.10, 1e-9],
            [0.25, 0.25, 0.25, 0.25, 1e-9],
            [0.70, 0.10, 0.10, 0.10, 1e-9],
            [0.25, 0.25, 0.25, 0.25, 1e-9],
        ]
    )
)
_END = 4


class _AlwaysDraft(DraftPolicy):
    def length(self, available: int) -> int:
        return min(available, 3)


class _Chain(GenerationLoop):
    """A real GenerationLoop whose "model" is the chain above, sampled by Cove's own sampler."""

    runtime = "chain"
    exact_cells = 1 << 30

    def __init__(self) -> None:
        super().__init__(n_ctx=4096, n_batch=64)
        self.template = ChatTemplate("chain", "", "fallback", (), "")
        self.seq: list[int] = []
        self._draft_policy = _AlwaysDraft()

    def render(
        self,
        messages: Sequence[ChatMessage],
        tools: Sequence[Tool] = (),
        thinking: bool | None = None,
    ) -> str:
        return messages[-1].content

    def tokenize(self, text: str) -> list[int]:
        return [int(c) for c in text]

    def _rewind(self, keep: int, params: GenerationParams) -> int:
        del self.seq[keep:]
        return keep

    def _feed(self, tokens: list[int], cancel: threading.Event, last: bool) -> bool:
        self.seq.extend(tokens)
        return True

    @contextlib.contextmanager
    def _sampler(self, params: GenerationParams) -> Iterator[TokenSource]:
        yield _ChainSource(self, LogitSampler(params))

    def _is_end(self, token: int) -> bool:
        return token == _END

    def _decoder(self) -> TokenDecoder:
        return _Digits()

    def _forget(self) -> None:
        self.seq.clear()

    def _free(self) -> None:
        pass


class _ChainSource:
    def __init__(self, chain: _Chain, sampler: LogitSampler) -> None:
        self._chain = chain
        self._sampler = sampler
        self._at = -1  # the position whose logits sample() reads

    def logits(self) -> Any:
        return _CHAIN[self._chain.seq[self._at]]

    def sample(self) -> int:
        return self._sampler.choose(self.logits(), ())

    def accept(self, token: int, cancel: threading.Event) -> bool:
        self._chain.seq.append(token)
        return True

    def verify(
        self, token: int, draft: list[int], cancel: threading.Event, want_logits: bool
    ) -> list[tuple[int, Any]] | None:
        seq = self._chain.seq
        start = len(seq)
        seq.extend([token, *draft])
        drawn: list[tuple[int, Any]] = []
        for i in range(len(draft) + 1):
            sampled = self._sampler.choose(_CHAIN[seq[start + i]], ())
            drawn.append((sampled, None))
            if i == len(draft) or sampled != draft[i]:
                break
        del seq[start + len(drawn) :]
        return drawn


class _Digits:
    def feed(self, token: int) -> str:
        return str(token)

    def flush(self) -> str:
        return ""


def test_guesses_kept_only_when_drawn_leave_the_distribution_unchanged() -> None:
    """At temperature 1 the first three tokens after the prompt follow the chain's own
    probabilities with speculation on (chi-square over the 64 sequences), and a seeded reply is
    the same text with speculation off."""
    chain = _Chain()
    prompt = [ChatMessage("user", "0123012301230123")]  # every continuation is guessable
    runs = 3000
    counts: Counter[str] = Counter()
    drafted = accepted = 0
    for seed in range(runs):
        params = GenerationParams(
            temperature=1.0, top_k=0, top_p=1.0, min_p=0.0, repeat_penalty=1.0,
            seed=seed, max_tokens=3, speculation="on",
        )  # fmt: skip
        text, final = collect(chain.chat(prompt, params))
        assert final.stats is not None
        drafted += final.stats.draft_tokens
        accepted += final.stats.accepted_tokens
        counts[text] += 1
        if seed < 50:
            plain, _ = collect(chain.chat(prompt, _replace(params, speculation="off")))
            assert plain == text
    assert 0 < accepted < drafted  # guesses were both kept and thrown away
    probs = np.exp(_CHAIN)
    chi2 = 0.0
    for a in range(4):
        for b in range(4):
            for c in range(4):
                expected = runs * probs[3, a] * probs[a, b] * probs[b, c]
                chi2 += (counts[f"{a}{b}{c}"] - expected) ** 2 / expected
    # 63 degrees of freedom: the 0.999 quantile is about 103.4.
    assert chi2 < 103.4, f"chi-square {chi2:.1f}: speculation changed the distribution"


def _replace(params: GenerationParams, **changes: Any) -> GenerationParams:
    import dataclasses

    return dataclasses.replace(params, **changes)


# -- the real starter ------------------------------------------------------------------------------

RESOURCES = Resources(cpu=Device("CPU RAM", "cpu", 16 * 2**30, 24 * 2**30), threads=2)
_CODE = '''def moving_average(values, window):
    """Return the moving averages of values over window items."""
    if window <= 0:
        raise ValueError("window must be positive")
    result = []
    total = 0.0
    for i, value in enumerate(values):
        total += value
        if i >= window:
            total -= values[i - window]
        if i >= window - 1:
            result.append(total / window)
    return result
'''
_PASSAGE = (
    "The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris, France. "
    "It is named after the engineer Gustave Eiffel, whose company designed and built the tower "
    "from 1887 to 1889 as the centrepiece of the 1889 World's Fair."
)
PROMPTS = {
    "code edit": [
        ChatMessage(
            "user",
            "Rewrite this function so that its parameter is called size instead of window. "
            "Reply with the code only.\n\n" + _CODE,
        )
    ],
    "document answer": [
        ChatMessage("system", "Answer from the passage, quoting it."),
        ChatMessage("user", f"Passage: {_PASSAGE}\n\nQuestion: Who is the tower named after?"),
    ],
    "free chat": [ChatMessage("user", "Tell me a short story about a lighthouse keeper.")],
}


@pytest.fixture(scope="module")
def model(starter: Path) -> Iterator[LlamaCppModel]:
    m = LlamaCppModel(starter, make_plan(read_gguf(starter), RESOURCES, requested_ctx=2048))
    yield m
    m.close()


def _reply(model: LlamaCppModel, messages: list[ChatMessage], **kw: Any) -> tuple[str, Any]:
    model.reset()
    text, final = collect(model.chat(messages, GenerationParams(max_tokens=160, **kw)))
    assert final.finish_reason in ("stop", "length"), final.error
    return text, final.stats


@pytest.mark.parametrize("kind", list(PROMPTS))
def test_greedy_replies_are_byte_identical_with_and_without_speculation(
    model: LlamaCppModel, kind: str
) -> None:
    plain, plain_stats = _reply(model, PROMPTS[kind], temperature=0.0, speculation="off")
    assert plain_stats.draft_tokens == 0
    fast, _ = _reply(model, PROMPTS[kind], temperature=0.0, speculation="exact")
    assert fast == plain
    # "auto" (and "on"): the reply arrives and the counts add up; past the cells where batches
    # are exact a near-tie may flip, so its words are not compared.
    for mode in ("auto", "on"):
        _forced, stats = _reply(model, PROMPTS[kind], temperature=0.0, speculation=mode)
        assert stats.completion_tokens > 0
        assert stats.accepted_tokens <= stats.draft_tokens


def test_sampled_replies_with_a_seed_are_identical_with_and_without_speculation(
    model: LlamaCppModel,
) -> None:
    """The sampler draws once per token in the same order either way, so a seeded reply at
    temperature above 0 is the same text, guesses or not."""
    messages = PROMPTS["code edit"]
    for seed in (1, 2, 3):
        plain, _ = _reply(model, messages, temperature=0.8, seed=seed, speculation="off")
        fast, _ = _reply(model, messages, temperature=0.8, seed=seed, speculation="exact")
        assert fast == plain


def test_guesses_are_checked_where_batches_are_exact(model: LlamaCppModel) -> None:
    """A reply that copies its prompt sends guesses and keeps some; the counts reach the stats.
    Where this build's batches round differently from single steps, "exact" sends none."""
    model._draft_policy = DraftPolicy(cost=0.05)  # as if batches were nearly free here
    text, stats = _reply(
        model,
        [ChatMessage("user", "Repeat exactly: " + _CODE)],
        temperature=0.0,
        speculation="exact",
    )
    if not model.exact_cells:
        assert stats.draft_tokens == 0
        return
    assert stats.draft_tokens > 0
    assert 0 < stats.accepted_tokens <= stats.draft_tokens
    plain, _ = _reply(
        model, [ChatMessage("user", "Repeat exactly: " + _CODE)], temperature=0.0, speculation="off"
    )
    assert text == plain


def test_auto_speculates_where_batches_round_differently_and_exact_does_not(
    model: LlamaCppModel,
) -> None:
    """On a build whose batches round differently from single steps (as if measured so at
    load), "auto" still checks guesses where the policy expects them to pay; "exact" sends
    none."""
    model._draft_policy = DraftPolicy(cost=0.05)
    exact_cells, model.exact_cells = model.exact_cells, 0
    try:
        messages = [ChatMessage("user", "Repeat exactly: " + _CODE)]
        _, auto = _reply(model, messages, temperature=0.0, speculation="auto")
        _, exact = _reply(model, messages, temperature=0.0, speculation="exact")
    finally:
        model.exact_cells = exact_cells
    assert auto.draft_tokens > 0 and 0 < auto.accepted_tokens <= auto.draft_tokens
    assert exact.draft_tokens == 0


def test_a_reply_with_logprobs_and_guesses_reports_every_token(model: LlamaCppModel) -> None:
    model._draft_policy = DraftPolicy(cost=0.05)
    messages = [ChatMessage("user", "Repeat exactly: " + _CODE)]

    def scored(mode: Speculation) -> tuple[list[Any], Any]:
        model.reset()
        params = GenerationParams(
            temperature=0.0, repeat_penalty=1.0, max_tokens=40, logprobs=2, speculation=mode
        )
        chunks = list(model.chat(messages, params))
        return [lp for c in chunks for lp in c.logprobs], chunks[-1].stats

    fast, stats = scored("exact")
    assert len(fast) == stats.completion_tokens
    assert all(lp.logprob <= 0 and not math.isnan(lp.logprob) for lp in fast)
    # Greedy without a penalty: each chosen token is the most likely one at its position.
    assert all(lp.top and lp.top[0][0] == lp.token for lp in fast)
    if model.exact_cells:
        assert stats.draft_tokens > 0
        plain, _ = scored("off")
        assert [(lp.token, lp.logprob, lp.top) for lp in fast] == [
            (lp.token, lp.logprob, lp.top) for lp in plain
        ]
