"""``logit_bias`` and ``ignore_eos`` on the real starter model, alone and on a sequence of a shared
context (engine/backends/llama/sampling.py ``_InPlace``), and as the OpenAI routes read them
(engine/host/protocols/params.py)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from engine.backends.llama import LlamaCppBackend
from engine.backends.llama.parallel import ParallelLlamaCpp
from engine.backends.llama.single import LlamaCppModel
from engine.errors import InvalidRequest
from engine.formats.gguf import read_gguf
from engine.host.protocols.params import parse_params
from engine.host.protocols.wire import parse_chat
from engine.planner.gguf import make_plan
from engine.planner.plan import Device, Resources, with_parallel
from engine.types import ChatMessage, GenerationParams
from tests.conftest import collect

RESOURCES = Resources(cpu=Device("CPU RAM", "cpu", 16 * 2**30, 24 * 2**30), threads=2)
ASK = [ChatMessage("user", "Tell me about the sea.")]
GREEDY = GenerationParams(temperature=0.0, max_tokens=8)
SAMPLED = GenerationParams(temperature=0.8, seed=11, max_tokens=8)


def load(path: Path, parallel: int) -> Any:
    plan = with_parallel(make_plan(read_gguf(path), RESOURCES, requested_ctx=1024), parallel)
    return LlamaCppBackend().load(path, plan)


@pytest.fixture(scope="module", params=["alone", "a sequence of a shared context"])
def model(request: pytest.FixtureRequest, starter: Path) -> Iterator[Any]:
    loaded = load(starter, 1 if request.param == "alone" else 2)
    assert isinstance(loaded, ParallelLlamaCpp if request.param != "alone" else LlamaCppModel)
    yield loaded
    loaded.close()


@pytest.fixture(scope="module")
def end_token(starter: Path) -> int:
    value = read_gguf(starter).metadata["tokenizer.ggml.eos_token_id"]
    assert isinstance(value, int)
    return value


@pytest.mark.parametrize("params", [GREEDY, SAMPLED], ids=["greedy", "sampled"])
def test_a_forced_end_ends_the_reply_and_ignore_eos_runs_it_to_max_tokens(
    model: Any, end_token: int, params: GenerationParams
) -> None:
    forced = replace(params, logit_bias=((end_token, 100.0),))
    text, final = collect(model.chat(ASK, forced))
    assert final.error is None and final.finish_reason == "stop"
    assert text == "" and final.stats is not None and final.stats.completion_tokens <= 1

    # The end token is forbidden outright, whatever bias the request gave it.
    text, final = collect(model.chat(ASK, replace(forced, ignore_eos=True)))
    assert final.error is None and final.finish_reason == "length"
    assert final.stats is not None and final.stats.completion_tokens == params.max_tokens
    assert text


def test_a_bias_of_100_makes_the_token_every_choice(model: Any) -> None:
    sea = model.tokenize(" sea")
    assert len(sea) == 1
    params = replace(SAMPLED, max_tokens=4, logit_bias=((sea[0], 100.0),))
    text, final = collect(model.chat(ASK, params))
    assert final.finish_reason == "length"
    assert text.split() == ["sea"] * 4


def test_forbidding_tokens_under_a_grammar_is_refused(model: Any, end_token: int) -> None:
    """A grammar that could only go on with a forbidden token would leave nothing to draw."""
    from engine.tools.constrain import ANY_JSON_OBJECT, grammar_for

    json_only = replace(GREEDY, grammar=grammar_for(ANY_JSON_OBJECT))
    for params in (
        replace(json_only, ignore_eos=True),
        replace(json_only, logit_bias=((end_token, float("-inf")),)),
    ):
        _, final = collect(model.chat(ASK, params))
        assert final.finish_reason == "error" and final.error and "grammar" in final.error
    _, final = collect(model.chat(ASK, replace(json_only, logit_bias=((end_token, -2.0),))))
    assert final.error is None


def test_a_token_outside_the_vocabulary_is_a_clear_error(model: Any) -> None:
    params = replace(GREEDY, logit_bias=((10_000_000, 1.0),))
    _, final = collect(model.chat(ASK, params))
    assert final.finish_reason == "error"
    assert final.error is not None and "not in this model's vocabulary" in final.error


def test_biases_in_place_pick_what_llama_cpps_logit_bias_sampler_picks(
    starter: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same seeded draws as llama.cpp's own chain with its logit-bias sampler first, then
    the repetition penalty, top-k, top-p, min-p, temperature and the draw (its sampler order)."""
    from engine.backends.llama import sequence
    from engine.backends.llama.sampling import NativeSampler, make_chain

    with load(starter, 1) as model:
        common = model.tokenize(" the the, and a of to in is")
        bias = tuple(
            sorted(
                {
                    t: b for t, b in zip(common, (-3.0, 2.5, -1e9, 4.0, 1.5, -2.0), strict=False)
                }.items()
            )
        )
        params = GenerationParams(temperature=0.9, seed=5, max_tokens=48, logit_bias=bias)
        ours, final = collect(model.chat(ASK, params))
        assert final.stats is not None and final.stats.completion_tokens > 16

        made: list[Any] = []

        def native(m: LlamaCppModel, _chain: Any, *_: Any) -> NativeSampler:
            lib = m.model.lib
            both = lib.llama_sampler_chain_init(lib.llama_sampler_chain_default_params())
            pairs = (lib.llama_logit_bias * len(bias))(
                *(lib.llama_logit_bias(t, b) for t, b in bias)
            )
            n_vocab = lib.llama_vocab_n_tokens(m.model.vocab)
            first = lib.llama_sampler_init_logit_bias(n_vocab, len(bias), pairs)
            lib.llama_sampler_chain_add(both, first)
            # A chain is a sampler too: the whole chain, penalty included, now belongs to both.
            lib.llama_sampler_chain_add(
                both, make_chain(lib, m.model.vocab, params, m._penalty_window(params))
            )
            made.append(both)
            return NativeSampler(m, both)

        monkeypatch.setattr(sequence, "NativeSampler", native)
        model.reset()
        theirs, _ = collect(model.chat(ASK, params))
        for chain in made:
            model.model.lib.llama_sampler_free(chain)
    assert made and ours == theirs


def test_without_a_penalty_the_chain_adds_the_biases_and_draws_what_in_place_draws(
    starter: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With no repetition penalty the biases (ignore_eos's forbidden ends among them) are the
    native chain's first sampler instead of being written into the logits and put back; the
    seeded draws are the same either way."""
    from engine.backends.llama import sequence
    from engine.backends.llama.sampling import NativeSampler
    from engine.backends.llama.sampling import make_chain as plain_chain

    with load(starter, 1) as model:
        common = model.tokenize(" the the, and a of to in is")
        bias = dict(zip(common, (-3.0, 2.5, float("-inf"), 4.0, 1.5, -2.0), strict=False))
        params = GenerationParams(
            temperature=0.9,
            seed=5,
            max_tokens=48,
            repeat_penalty=1.0,
            logit_bias=tuple(sorted(bias.items())),
            ignore_eos=True,
        )
        chained, final = collect(model.chat(ASK, params))
        assert final.stats is not None and final.stats.completion_tokens == 48

        made_with: list[Any] = []

        def without_bias(lib: Any, vocab: Any, p: GenerationParams, window: int, *rest: Any) -> Any:
            made_with.append(rest)
            return plain_chain(lib, vocab, p, window)

        def in_place(m: LlamaCppModel, chain: Any, *_: Any) -> NativeSampler:
            return NativeSampler(m, chain, 1.0, 0, m._biases(params))

        monkeypatch.setattr(sequence, "make_chain", without_bias)
        monkeypatch.setattr(sequence, "NativeSampler", in_place)
        model.reset()
        written, _ = collect(model.chat(ASK, params))
    assert made_with and made_with[0] and made_with[0][0]  # the chain was to carry the biases
    assert chained == written


def test_the_openai_fields_are_read_in_both_forms() -> None:
    body: dict[str, Any] = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    body["ignore_eos"] = True
    request = parse_chat({**body, "logit_bias": {"15": -100, "7": 2.5}})
    assert request.params.logit_bias == ((7, 2.5), (15, float("-inf")))
    assert request.params.ignore_eos
    listed = parse_params({"logit_bias": [[15, False], [7, -1]]})
    assert listed.logit_bias == ((7, -1.0), (15, float("-inf")))
    assert parse_params({}).logit_bias == () and not parse_params({}).ignore_eos
    too_long = {"9" * 5000: 1}  # no int() of thousands of digits
    for bad in (
        {"x": 1},
        {"-3": 1},
        {"5": 101},
        {"5": "a lot"},
        [[5]],
        12,
        {"5": True},
        [["5", 1]],  # llama-server tokenizes a string there: only ids are taken
        {str(2**40): 1},
        too_long,
    ):
        with pytest.raises(InvalidRequest, match="logit_bias"):
            parse_params({"logit_bias": bad})
    with pytest.raises(InvalidRequest, match="ignore_eos"):
        parse_params({"ignore_eos": "yes"})


def test_runtimes_that_give_logits_bias_them_the_same_way() -> None:
    """Core ML's sampler (engine/generation/sampling.py): biases added first, the end tokens
    forbidden with ignore_eos, a token beyond the logits refused."""
    import numpy as np

    from engine.generation.sampling import LogitSampler

    logits = np.array([5.0, 1.0, 0.5, 4.0], dtype=np.float32)
    assert LogitSampler(GREEDY).choose(logits, []) == 0
    assert LogitSampler(replace(GREEDY, logit_bias=((0, -2.0),))).choose(logits, []) == 3
    assert LogitSampler(replace(GREEDY, logit_bias=((2, 100.0),))).choose(logits, []) == 2
    ends = (0,)
    assert LogitSampler(GREEDY, ends).choose(logits, []) == 0  # ends count only with ignore_eos
    assert LogitSampler(replace(GREEDY, ignore_eos=True), ends).choose(logits, []) == 3
    sampled = LogitSampler(
        replace(SAMPLED, ignore_eos=True, logit_bias=((3, float("-inf")),)), ends
    )
    assert {sampled.choose(logits, []) for _ in range(50)} <= {1, 2}
    with pytest.raises(InvalidRequest, match="vocabulary"):
        LogitSampler(replace(GREEDY, logit_bias=((4, 1.0),))).choose(logits, [])


def test_cove_s_own_client_sends_both_fields_as_the_host_reads_them() -> None:
    from engine.client.http_client import _sampling

    params = replace(SAMPLED, logit_bias=((3, float("-inf")), (9, 2.0)), ignore_eos=True)
    body = _sampling(params)
    assert body["logit_bias"] == {"3": -100.0, "9": 2.0} and body["ignore_eos"] is True
    assert parse_params(body).logit_bias == params.logit_bias
    assert "logit_bias" not in _sampling(SAMPLED) and "ignore_eos" not in _sampling(SAMPLED)
