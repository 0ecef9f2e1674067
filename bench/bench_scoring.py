"""Scoring prompts (``/v1/completions`` with ``echo`` and ``logprobs``) on Cove against
llama-cpp-python's own server, question by question, as lm-evaluation-harness scores a multiple
choice task: each answer's log-likelihood is the sum of its tokens' log-probabilities after the
question, and the answer with the highest sum is the model's pick.

    cove serve --model starter --port 8080 &
    .venv/bin/python -m llama_cpp.server --model PATH.gguf --port 8081 --n_ctx 2048 &
    .venv/bin/python bench/bench_scoring.py --cove http://127.0.0.1:8080 \\
        --llama-cpp http://127.0.0.1:8081 [--questions tests/fixtures/eval/tiny_mc.jsonl] [--json]

llama-cpp-python's server pairs each echoed token with the logits of its own position (those
that predict the token after it) unless the prompt starts with a BOS token, whose row it skips;
the starter's metadata adds none. Each prompt is therefore sent to both with the model's BOS text
in front (the same tokens either way), where both report every token after it from the position
before; the first token after the BOS, which llama-cpp-python leaves null, is not compared.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import httpx

QUESTIONS = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "eval" / "tiny_mc.jsonl"


def post(client: httpx.Client, url: str, body: dict[str, Any]) -> dict[str, Any]:
    r = client.post(url, json=body, timeout=300)
    r.raise_for_status()
    answer: dict[str, Any] = r.json()
    return answer


def echoed(client: httpx.Client, base: str, prompt: str) -> list[float | None]:
    """lm-evaluation-harness's request: the prompt echoed, one token generated after it."""
    body = {
        "model": "starter",
        "prompt": prompt,
        "echo": True,
        "logprobs": 1,
        "max_tokens": 1,
        "temperature": 0,
        "seed": 1234,
    }
    values: list[float | None] = post(client, f"{base}/v1/completions", body)["choices"][0][
        "logprobs"
    ]["token_logprobs"]
    return values[:-1]  # the generated token's


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cove", required=True, help="Cove's base URL")
    ap.add_argument("--llama-cpp", required=True, help="llama-cpp-python server's base URL")
    ap.add_argument("--questions", type=Path, default=QUESTIONS)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rows = [json.loads(line) for line in args.questions.read_text().splitlines() if line.strip()]
    client = httpx.Client()
    bos = httpx.get(f"{args.cove}/tokenizer_info", timeout=60).json()["bos_token"] or ""
    worst = 0.0
    compared = 0
    right = {"cove": 0, "llama-cpp-python": 0}
    questions = []
    for row in rows:
        context = f"Question: {row['question']}\nAnswer:"
        n_context = len(tokens(client, args.cove, context))
        sums: dict[str, list[float]] = {"cove": [], "llama-cpp-python": []}
        for choice in row["choices"]:
            text = context + " " + choice
            n_answer = len(tokens(client, args.cove, text)) - n_context
            ours = echoed(client, args.cove, bos + text)
            theirs = echoed(client, args.llama_cpp, bos + text)
            assert len(ours) == len(theirs), (len(ours), len(theirs))
            for a, b in zip(ours[1:], theirs[1:], strict=True):
                assert a is not None and b is not None
                worst = max(worst, abs(a - b))
                compared += 1
            for name, values in (("cove", ours), ("llama-cpp-python", theirs)):
                sums[name].append(sum(v for v in values[-n_answer:] if v is not None))
        for name, picked in sums.items():
            right[name] += picked.index(max(picked)) == row["answer"]
        questions.append({"question": row["question"], **sums})
    report = {
        "questions": len(rows),
        "tokens_compared": compared,
        "max_abs_difference": worst,
        "accuracy": {name: n / len(rows) for name, n in right.items()},
        "per_question": questions,
    }
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(f"{len(rows)} questions, {compared} token log-probabilities compared")
        print(f"largest difference: {worst:.2e}")
        for name, acc in report["accuracy"].items():  # type: ignore[attr-defined]
            print(f"accuracy ({name}): {acc:.2f}")
    return 0


def tokens(client: httpx.Client, base: str, text: str) -> list[int]:
    ids: list[int] = post(
        client, f"{base}/tokenize", {"prompt": text, "add_special_tokens": False}
    )["tokens"]
    return ids


if __name__ == "__main__":
    sys.exit(main())
