"""Prompts scored as a list, as evaluation harnesses send a batch of choices: each scored in a
sequence of its own, several at once, and each giving exactly what it gives alone and what
llama.cpp gives in this process (the same way of running: flash attention as the host's plan
has it, the prompt evaluated in slices of ``SCORE_SLICE`` tokens), to the last bit; also while
another reply streams beside them. A real engine host on loopback, the real starter model."""

from __future__ import annotations

import json
import random
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import httpx
import pytest

from engine.client.local import LocalEngine
from engine.generation.sampling import token_logprob
from engine.generation.scoring import SCORE_SLICE
from engine.planner.plan import Plan

pytestmark = pytest.mark.slow

SEQUENCES = 4
CTX = 1024
# Lists scored: random choices of the prompts below, two to six at a time (more than the
# sequences: the rest wait for a free one), some prompts twice in a list. Rows read out of their
# order, or prompts computed in one step together, showed in most lists of prompts of different
# lengths; hundreds are scored alone, and a few beside a reply that streams (it must outlast them).
LISTS = 200
LISTS_BESIDE_A_REPLY = 10

# Prompts of mixed lengths, from one token to past one slice of ``SCORE_SLICE``: sent as text,
# or as token ids, which lets some end in the end-of-text token (as a harness's choice ending a
# document does).
TEXTS = (
    "Hi",
    "Question: What colour do you get by mixing blue and yellow?\nAnswer: green",
    "The harbour office is on the north quay, beside the crane.",
    "def mean(values):\n    return sum(values) / len(values)\n",
    " ".join(f"Berth {n} takes boats up to {8 + n} metres, posts {100 + n}." for n in range(7)),
)


Scores = list[float | None]


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LocalEngine, Plan]]:
    engine = LocalEngine.start(
        log_path=tmp_path_factory.mktemp("host") / "engine.log",
        extra_args=("--parallel", str(SEQUENCES)),
    )
    status = engine.client.load("starter", ctx=CTX)
    assert status.plan is not None and status.parallel == SEQUENCES
    yield engine, status.plan
    engine.stop()
    engine.client.close()


@pytest.fixture(scope="module")
def prompts(host: tuple[LocalEngine, Plan], starter: Path) -> list[str | list[int]]:
    import llama_cpp

    engine, _plan = host
    vocab = llama_cpp.Llama(model_path=str(starter), vocab_only=True, verbose=False)
    try:
        eos = int(vocab.token_eos())
    finally:
        vocab.close()
    ids = [tokenize(engine, text) for text in TEXTS]
    assert len(ids[0]) <= 3 and len(ids[-1]) > SCORE_SLICE
    return [*TEXTS, *ids[1:3], *([*t, eos] for t in ids[:2]), [*ids[3], eos]]


@pytest.fixture(scope="module")
def alone(host: tuple[LocalEngine, Plan], prompts: list[str | list[int]]) -> list[Scores]:
    """Each prompt scored by itself."""
    engine, _plan = host
    return [scored(engine, [p])[0] for p in prompts]


def post(engine: LocalEngine, path: str, body: dict[str, Any]) -> httpx.Response:
    return httpx.post(
        f"http://127.0.0.1:{engine.port}{path}",
        headers={"Authorization": f"Bearer {engine.token}"},
        json=body,
        timeout=300,
    )


def tokenize(engine: LocalEngine, text: str) -> list[int]:
    r = post(engine, "/tokenize", {"prompt": text, "add_special_tokens": True})
    assert r.status_code == 200, r.text
    ids: list[int] = r.json()["tokens"]
    return ids


def scored(engine: LocalEngine, prompts: Sequence[str | list[int]]) -> list[Scores]:
    """Each prompt's tokens' log-probabilities, the prompts sent as one list."""
    body = {"model": "starter", "prompt": list(prompts), "echo": True, "logprobs": 0,
            "max_tokens": 0, "temperature": 0}  # fmt: skip
    r = post(engine, "/v1/completions", body)
    assert r.status_code == 200, r.text
    choices = r.json()["choices"]
    assert [c["index"] for c in choices] == list(range(len(prompts)))
    return [c["logprobs"]["token_logprobs"] for c in choices]


def lists(prompts: list[str | list[int]], seed: int, count: int) -> list[list[int]]:
    """``count`` lists of indices into ``prompts``."""
    rng = random.Random(seed)
    return [
        [rng.randrange(len(prompts)) for _ in range(rng.randint(2, SEQUENCES + 2))]
        for _ in range(count)
    ]


def differences(
    engine: LocalEngine,
    prompts: list[str | list[int]],
    alone: list[Scores],
    seed: int,
    count: int,
) -> list[str]:
    """Every choice of every list that is not its prompt's score alone, said in words."""
    found = []
    for n, picked in enumerate(lists(prompts, seed, count)):
        together = scored(engine, [prompts[i] for i in picked])
        for place, (i, ours) in enumerate(zip(picked, together, strict=True)):
            if ours != alone[i]:
                apart = max(
                    (
                        abs(a - b)
                        for a, b in zip(ours, alone[i], strict=False)
                        if a is not None and b is not None
                    ),
                    default=float("inf"),
                )
                found.append(f"list {n}, place {place}, prompt {i}: off by {apart:.3g}")
    return found


def test_each_prompt_alone_is_what_llama_cpp_gives(
    host: tuple[LocalEngine, Plan],
    prompts: list[str | list[int]],
    alone: list[Scores],
    starter: Path,
) -> None:
    import llama_cpp

    engine, plan = host
    llm = llama_cpp.Llama(
        model_path=str(starter),
        logits_all=True,
        n_ctx=CTX,
        n_batch=SCORE_SLICE,
        flash_attn=plan.flash_attn,
        n_threads=plan.threads,
        n_threads_batch=plan.threads,
        verbose=False,
    )
    try:
        for prompt, ours in zip(prompts, alone, strict=True):
            tokens = tokenize(engine, prompt) if isinstance(prompt, str) else prompt
            llm.n_tokens = 0  # evaluated afresh: ``eval`` drops the cells from here on
            llm.eval(tokens)
            theirs = [
                token_logprob(llm.scores[i - 1], tokens[i], 0, lambda _t: b"").logprob
                for i in range(1, len(tokens))
            ]
            # The first token has nothing before it to be scored by.
            assert ours == [None, *theirs], prompt
    finally:
        llm.close()


def test_every_prompt_of_a_list_scores_as_it_does_alone(
    host: tuple[LocalEngine, Plan], prompts: list[str | list[int]], alone: list[Scores]
) -> None:
    engine, _plan = host
    assert differences(engine, prompts, alone, seed=1, count=LISTS) == []


def test_a_list_scores_the_same_beside_a_reply_being_streamed(
    host: tuple[LocalEngine, Plan], prompts: list[str | list[int]], alone: list[Scores]
) -> None:
    engine, _plan = host
    streaming = threading.Event()  # the reply's first tokens came
    leave = threading.Event()  # its client goes away
    ended: list[str] = []

    def stream() -> None:
        body = {"model": "starter", "prompt": "Once upon a time", "stream": True,
                "max_tokens": CTX // 2, "ignore_eos": True, "temperature": 0}  # fmt: skip
        with httpx.stream(
            "POST",
            f"http://127.0.0.1:{engine.port}/v1/completions",
            headers={"Authorization": f"Bearer {engine.token}"},
            json=body,
            timeout=300,
        ) as r:
            for line in r.iter_lines():
                if line.startswith("data: {"):
                    finish = json.loads(line[6:])["choices"][0]["finish_reason"]
                    if finish is not None:
                        ended.append(finish)
                    streaming.set()
                if leave.is_set():
                    break
        streaming.set()

    reader = threading.Thread(target=stream)
    reader.start()
    try:
        assert streaming.wait(120) and not ended
        found = differences(engine, prompts, alone, seed=2, count=LISTS_BESIDE_A_REPLY)
        beside = not ended  # still streaming when the last list was answered
    finally:
        leave.set()
        reader.join(120)
    assert beside, "the reply ended before the lists were scored: make it longer"
    assert found == []
