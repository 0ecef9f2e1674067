"""Scoring a prompt through ``/v1/completions`` (``echo`` with ``logprobs``), as evaluation
harnesses ask for it: a real engine host on loopback answering up to three prompts at once, the
real starter model, and llama-cpp-python's own log-probabilities for the same tokens."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import pytest

from engine.client.local import LocalEngine

pytestmark = pytest.mark.slow

QUESTION = "Question: Which planet is known as the red planet?\nAnswer:"
ANSWERS = (" Mars", " Venus", " Jupiter")
CTX = 2048


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalEngine]:
    engine = LocalEngine.start(
        log_path=tmp_path_factory.mktemp("host") / "engine.log",
        extra_args=("--parallel", "3"),
    )
    engine.client.load("starter", ctx=CTX)
    yield engine
    engine.stop()
    engine.client.close()


def post(host: LocalEngine, path: str, body: dict[str, Any]) -> httpx.Response:
    return httpx.post(
        f"http://127.0.0.1:{host.port}{path}",
        headers={"Authorization": f"Bearer {host._token}"},
        json=body,
        timeout=120,
    )


def score(host: LocalEngine, prompt: object, **extra: Any) -> dict[str, Any]:
    body = {
        "model": "starter",
        "prompt": prompt,
        "echo": True,
        "logprobs": 1,
        "max_tokens": 0,
        "temperature": 0,
        **extra,
    }
    r = post(host, "/v1/completions", body)
    assert r.status_code == 200, r.text
    answer: dict[str, Any] = r.json()
    return answer


def tokenize(host: LocalEngine, text: str) -> list[int]:
    r = post(host, "/tokenize", {"prompt": text, "add_special_tokens": True})
    assert r.status_code == 200, r.text
    ids: list[int] = r.json()["tokens"]
    return ids


def close(a: list[float | None], b: list[float | None], tol: float) -> bool:
    assert len(a) == len(b)
    return all(
        (x is None and y is None) or (x is not None and y is not None and abs(x - y) <= tol)
        for x, y in zip(a, b, strict=True)
    )


def test_echo_with_max_tokens_0_scores_the_prompt_alone(host: LocalEngine) -> None:
    text = QUESTION + ANSWERS[0]
    answer = score(host, text, logprobs=3)
    (choice,) = answer["choices"]
    assert choice["text"] == text and choice["finish_reason"] == "length"
    lp = choice["logprobs"]
    n = len(tokenize(host, text))
    assert len(lp["tokens"]) == n and "".join(lp["tokens"]) == text
    assert lp["token_logprobs"][0] is None and lp["top_logprobs"][0] is None
    assert all(isinstance(v, float) and v <= 0 for v in lp["token_logprobs"][1:])
    for token, chosen, top in zip(
        lp["tokens"][1:], lp["token_logprobs"][1:], lp["top_logprobs"][1:], strict=True
    ):
        # The three most likely tokens, and the token itself where it is not among them.
        assert 3 <= len(top) <= 4 and top[token] == chosen
        assert all(v <= 0 for v in top.values())
    assert lp["text_offset"] == [sum(len(t) for t in lp["tokens"][:i]) for i in range(n)]
    usage = answer["usage"]
    assert usage["prompt_tokens"] == n and usage["completion_tokens"] == 0


def test_a_list_of_prompts_gives_one_choice_each_in_order(host: LocalEngine) -> None:
    texts = [QUESTION + a for a in ANSWERS]
    ids = tokenize(host, texts[1])
    prompts: list[object] = [texts[0], ids, texts[2]]
    together = score(host, prompts)["choices"]
    assert [c["index"] for c in together] == [0, 1, 2]
    assert [c["text"] for c in together] == texts
    assert [c["finish_reason"] for c in together] == ["length"] * 3
    for prompt, choice in zip(prompts, together, strict=True):
        alone = score(host, prompt)["choices"][0]["logprobs"]
        assert choice["logprobs"]["tokens"] == alone["tokens"]
        assert close(choice["logprobs"]["token_logprobs"], alone["token_logprobs"], 1e-4)


def test_the_numbers_are_llama_cpp_pythons_own(host: LocalEngine, starter: Path) -> None:
    import llama_cpp

    text = QUESTION + ANSWERS[0]
    ours = score(host, text)["choices"][0]["logprobs"]["token_logprobs"]
    llm = llama_cpp.Llama(
        model_path=str(starter), logits_all=True, n_ctx=512, flash_attn=True, verbose=False
    )
    try:
        tokens = llm.tokenize(text.encode(), special=True)
        assert tokens == tokenize(host, text)
        llm.eval(tokens)
        rows = llama_cpp.Llama.logits_to_logprobs(llm.scores[: len(tokens)])
    finally:
        llm.close()
    theirs: list[float | None] = [None]
    theirs += [float(rows[i - 1][tokens[i]]) for i in range(1, len(tokens))]
    assert close(ours, theirs, 1e-3), np.max(np.abs(np.array(ours[1:]) - np.array(theirs[1:])))


def test_max_tokens_1_appends_the_generated_token(host: LocalEngine) -> None:
    text = QUESTION + ANSWERS[0]
    prompt_only = score(host, text)["choices"][0]["logprobs"]
    answer = score(host, text, max_tokens=1, ignore_eos=True)
    (choice,) = answer["choices"]
    lp = choice["logprobs"]
    n = len(prompt_only["tokens"])
    assert len(lp["tokens"]) == n + 1 and choice["finish_reason"] == "length"
    assert lp["tokens"][:n] == prompt_only["tokens"]
    assert close(lp["token_logprobs"][:n], prompt_only["token_logprobs"], 1e-4)
    assert lp["token_logprobs"][n] <= 0 and lp["text_offset"][n] == len(text)
    assert choice["text"] == text + lp["tokens"][n]
    assert answer["usage"]["completion_tokens"] == 1


@pytest.fixture(scope="module")
def eos(starter: Path) -> int:
    import llama_cpp

    vocab = llama_cpp.Llama(model_path=str(starter), vocab_only=True, verbose=False)
    try:
        return int(vocab.token_eos())
    finally:
        vocab.close()


# A prompt whose one-token answer is the end of the text (a bias of 100 on the end-of-text token
# draws it whatever the starter would say; its log-probability is the model's, before the bias).
ANSWERED = "Question: What colour do you get by mixing blue and yellow?\nAnswer: green"


def ends_at_once(eos: int, **extra: Any) -> dict[str, Any]:
    return {"max_tokens": 1, "logit_bias": {str(eos): 100}, **extra}


def test_an_answer_that_is_the_end_of_the_text_is_listed_after_the_prompt(
    host: LocalEngine, starter: Path, eos: int
) -> None:
    import llama_cpp

    prompt_only = score(host, ANSWERED, logprobs=2)["choices"][0]["logprobs"]
    answer = score(host, ANSWERED, logprobs=2, **ends_at_once(eos))
    (choice,) = answer["choices"]
    lp = choice["logprobs"]
    n = len(prompt_only["tokens"])
    assert choice["text"] == ANSWERED and choice["finish_reason"] == "stop"
    assert lp["tokens"] == [*prompt_only["tokens"], ""]
    assert lp["token_logprobs"][:n] == prompt_only["token_logprobs"]
    assert lp["text_offset"] == [*prompt_only["text_offset"], len(ANSWERED)]
    end = lp["token_logprobs"][n]
    assert end < 0 and lp["top_logprobs"][n][""] <= 0 and len(lp["top_logprobs"][n]) <= 3
    assert answer["usage"]["completion_tokens"] == 1
    # The model's own log-probability of the end after the prompt, as llama.cpp gives it.
    tokens = tokenize(host, ANSWERED)
    llm = llama_cpp.Llama(
        model_path=str(starter), logits_all=True, n_ctx=512, flash_attn=True, verbose=False
    )
    try:
        llm.eval(tokens)
        rows = llama_cpp.Llama.logits_to_logprobs(llm.scores[: len(tokens)])
    finally:
        llm.close()
    assert abs(end - float(rows[-1][eos])) <= 1e-3


def test_the_end_of_the_text_is_listed_in_streams_and_lists_too(
    host: LocalEngine, eos: int
) -> None:
    whole = score(host, ANSWERED, **ends_at_once(eos))["choices"][0]
    n = len(whole["logprobs"]["tokens"])
    # Echoed, as a stream and in a list of prompts: the same choice.
    streamed = events(host, {"prompt": ANSWERED, "echo": True, "logprobs": 1, "stream": True,
                             "temperature": 0, **ends_at_once(eos)})  # fmt: skip
    (ours,) = [c for e in streamed for c in e["choices"]]
    assert ours["logprobs"] == whole["logprobs"] and ours["finish_reason"] == "stop"
    assert streamed[-1]["usage"]["completion_tokens"] == 1
    listed = score(host, [ANSWERED, ANSWERED], **ends_at_once(eos))
    assert [c["logprobs"]["tokens"][-1] for c in listed["choices"]] == ["", ""]
    assert listed["usage"]["completion_tokens"] == 2
    # Not echoed: the reply's one token is the end, streamed as a piece of no text.
    plain = {"prompt": ANSWERED, "logprobs": 1, "temperature": 0, **ends_at_once(eos)}
    r = post(host, "/v1/completions", {"model": "starter", **plain})
    assert r.status_code == 200, r.text
    (alone,) = r.json()["choices"]
    assert alone["text"] == "" and alone["finish_reason"] == "stop"
    assert alone["logprobs"]["tokens"] == [""] and alone["logprobs"]["text_offset"] == [0]
    # Read after the prompt's cached cells rather than scored with it: the same token, within
    # what a batch of another size changes.
    end = whole["logprobs"]["token_logprobs"][n - 1]
    assert close(alone["logprobs"]["token_logprobs"], [end], 1e-4)
    assert r.json()["usage"]["completion_tokens"] == 1
    pieces = events(host, {**plain, "stream": True})
    sent = [c["logprobs"] for e in pieces for c in e["choices"] if c["logprobs"] is not None]
    assert [b["tokens"] for b in sent] == [[""]] and sent[0]["text_offset"] == [0]
    assert close(sent[0]["token_logprobs"], [end], 1e-4)
    assert pieces[-1]["choices"][0]["finish_reason"] == "stop"
    assert pieces[-1]["usage"]["completion_tokens"] == 1


def test_max_tokens_0_appends_nothing_streamed_or_not(host: LocalEngine) -> None:
    n = len(tokenize(host, ANSWERED))
    whole = score(host, ANSWERED)
    streamed = events(host, {"prompt": ANSWERED, "echo": True, "logprobs": 1, "max_tokens": 0,
                             "stream": True})  # fmt: skip
    (ours,) = [c for e in streamed for c in e["choices"]]
    for choice, usage in ((whole["choices"][0], whole["usage"]), (ours, streamed[-1]["usage"])):
        assert len(choice["logprobs"]["tokens"]) == n and choice["text"] == ANSWERED
        assert choice["finish_reason"] == "length" and usage["completion_tokens"] == 0
    assert ours["logprobs"] == whole["choices"][0]["logprobs"]


def events(host: LocalEngine, body: dict[str, Any]) -> list[dict[str, Any]]:
    """A streamed completion's events, up to ``[DONE]`` (without the keep-alive comments a
    quiet stream sends)."""
    r = post(host, "/v1/completions", {"model": "starter", **body})
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
    lines = [line[6:] for line in r.text.split("\n\n") if line.startswith("data: ")]
    assert lines[-1] == "[DONE]"
    return [json.loads(line) for line in lines[:-1]]


def test_echo_without_logprobs_repeats_the_prompt(host: LocalEngine) -> None:
    (choice,) = score(host, QUESTION, logprobs=None)["choices"]
    assert choice["text"] == QUESTION and choice["logprobs"] is None


@pytest.mark.parametrize(
    ("path", "body", "needle"),
    [
        (
            "/v1/chat/completions",
            {"messages": [{"role": "user", "content": "Hi"}], "echo": True},
            "'echo' is for /v1/completions",
        ),
        ("/v1/completions", {"prompt": "Hi", "echo": True, "logprobs": 21}, "'logprobs'"),
        ("/v1/completions", {"prompt": "Hi", "max_tokens": 0}, "needs 'echo'"),
        # An echo answered as a stream still fails with its status code, before any event.
        ("/v1/completions", {"prompt": [1, 10**9], "echo": True, "stream": True}, "vocabulary"),
        ("/v1/completions", {"prompt": [1, 10**9], "echo": True}, "vocabulary"),
        ("/v1/completions", {"prompt": [], "echo": True}, "'prompt'"),
    ],
)
def test_bad_scoring_requests_are_a_clear_400(
    host: LocalEngine, path: str, body: dict[str, Any], needle: str
) -> None:
    r = post(host, path, {"model": "starter", **body})
    assert r.status_code == 400, r.text
    assert needle in r.json()["error"]["message"]


def test_the_tokenizer_endpoints(host: LocalEngine) -> None:
    info = httpx.get(
        f"http://127.0.0.1:{host.port}/tokenizer_info",
        headers={"Authorization": f"Bearer {host._token}"},
        timeout=30,
    ).json()
    assert info["eos_token"] and info["model_max_length"] == CTX
    ids = post(host, "/tokenize", {"prompt": QUESTION, "add_special_tokens": False}).json()
    assert ids["count"] == len(ids["tokens"]) > 0
    back = post(host, "/detokenize", {"tokens": ids["tokens"]}).json()
    assert back["prompt"] == QUESTION == back["content"]


def test_echo_and_several_prompts_stream_as_one_event_a_choice(host: LocalEngine) -> None:
    prompts = [QUESTION + a for a in ANSWERS[:2]]
    whole = score(host, prompts)
    sent = events(host, {"prompt": prompts, "echo": True, "logprobs": 1, "max_tokens": 0,
                         "stream": True})  # fmt: skip
    streamed = [c for e in sent for c in e["choices"]]
    assert [c["index"] for c in streamed] == [0, 1]
    for ours, theirs in zip(streamed, whole["choices"], strict=True):
        assert ours["text"] == theirs["text"] and ours["finish_reason"] == "length"
        assert ours["logprobs"]["tokens"] == theirs["logprobs"]["tokens"]
        assert close(ours["logprobs"]["token_logprobs"], theirs["logprobs"]["token_logprobs"], 1e-4)
    assert counts(sent[-1]["usage"]) == counts(whole["usage"]) and "usage" not in sent[0]


def counts(usage: dict[str, Any]) -> dict[str, Any]:
    """A response's usage without how fast its prompts were read (which two runs never share)."""
    cove = {
        k: v for k, v in usage["cove"].items() if k not in ("prompt_read_s", "prompt_tokens_per_s")
    }
    return {**usage, "cove": cove}
