"""lm-evaluation-harness, unmodified, against ``cove serve``: its ``local-completions`` model on
the task Cove ships (``assets/eval/everyday.yaml``, 200 questions, 800 choices) at each
``--batch-size`` (1: a prompt a request; 8: eight prompts as one list, read in parallel
sequences), beside llama.cpp scoring the same choices in this process through llama-cpp-python
(the same library build, run the way the host's status says the model runs: flash attention,
threads). Reported: each run's accuracy against the accuracy llama.cpp's own log-likelihoods
give, the largest difference between a choice's log-likelihood from the harness and from
llama.cpp, how many choices differ by more than 1e-3, and the wall time of each run against
llama.cpp scoring the 800 choices one by one in process (the baseline of the same run). Also how
far flash attention off moves the same log-likelihoods (llama.cpp both ways).

    python -m venv /tmp/lmeval && /tmp/lmeval/bin/pip install 'lm-eval[api]==0.4.13'
    .venv/bin/python bench/bench_eval_harness.py --lm-eval /tmp/lmeval/bin/lm_eval \\
        [--model starter] [--batch-size 1 8] [--limit N] [--json]

The harness tokenizes with Cove's ``/tokenize`` (its ``remote`` tokenizer, found by itself) and
splits each prompt as it does: the question alone, then question and answer together, the
answer's tokens being those past the question's; llama.cpp's figures here are split the same way
with llama.cpp's own tokenizer. The server runs with a data folder of its own and no measuring
in the background, so nothing else uses the cores while it is timed.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from bench.bench_parallel import free_port, model_path  # noqa: E402

TASK_DIR = ROOT / "assets" / "eval"
TASK = "cove_everyday"
SEQUENCES = 8


def serve(model: str, port: int, data: Path) -> subprocess.Popen[bytes]:
    cmd = [sys.executable, "-m", "engine.cli", "serve", "--model", model, "--port", str(port),
           "--parallel", str(SEQUENCES), "--ctx", "1024", "--no-background-measuring"]  # fmt: skip
    env = {**os.environ, "COVE_DATA_DIR": str(data)}
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"cove serve exited with {proc.returncode}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/v1/models", timeout=2).status_code == 200:
                return proc
        except httpx.HTTPError:
            pass
        time.sleep(0.25)  # a server starting: polled, not waited on as a signal
    proc.kill()
    raise RuntimeError("cove serve did not answer within 300 s")


def harness(lm_eval: str, port: int, batch: int, limit: int | None, out: Path) -> float:
    """Run the harness; its wall time."""
    args = [lm_eval, "--model", "local-completions", "--model_args",
            f"model=starter,base_url=http://127.0.0.1:{port}/v1/completions,num_concurrent=1,"
            "tokenized_requests=False", "--tasks", TASK, "--include_path", str(TASK_DIR),
            "--batch_size", str(batch), "--log_samples", "--output_path", str(out)]  # fmt: skip
    if limit:
        args += ["--limit", str(limit)]
    env = {**os.environ, "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1"}
    started = time.perf_counter()
    # data_files in the YAML is relative: the harness resolves it from where it runs.
    subprocess.run(args, cwd=TASK_DIR, env=env, check=True, capture_output=True)
    return time.perf_counter() - started


def samples(out: Path) -> list[dict[str, Any]]:
    """The harness's logged samples, by question."""
    (path,) = out.rglob(f"samples_{TASK}_*.jsonl")
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    return sorted(rows, key=lambda r: r["doc_id"])


def pairs(row: dict[str, Any]) -> list[tuple[str, str]]:
    return [(a["arg_0"], a["arg_1"]) for a in row["arguments"].values()]


def timed_scoring(port: int, questions: list[list[tuple[str, str]]], rounds: int) -> dict[str, Any]:
    """The same prompts scored straight through ``/v1/completions`` (no harness around it): one
    a request, and eight a request; the median seconds of ``rounds``, interleaved."""
    import statistics

    url = f"http://127.0.0.1:{port}"
    with httpx.Client(timeout=600) as client:
        prompts = [
            client.post(f"{url}/tokenize", json={"prompt": c + a}).json()["tokens"]
            for choices in questions
            for c, a in choices
        ]

        def score(size: int) -> float:
            started = time.perf_counter()
            for first in range(0, len(prompts), size):
                body = {"model": "starter", "prompt": prompts[first : first + size],
                        "echo": True, "logprobs": 0, "max_tokens": 0}  # fmt: skip
                client.post(f"{url}/v1/completions", json=body).raise_for_status()
            return time.perf_counter() - started

        times: dict[int, list[float]] = {1: [], SEQUENCES: []}
        for round_ in range(rounds):
            for size in (1, SEQUENCES) if round_ % 2 == 0 else (SEQUENCES, 1):
                times[size].append(score(size))
    return {str(size): statistics.median(t) for size, t in times.items()}


def harness_logliks(row: dict[str, Any]) -> list[float]:
    return [float(r[0][0]) for r in row["resps"]]


def llama_cpp_logliks(
    model: Path, questions: list[list[tuple[str, str]]], *, flash_attn: bool, threads: int
) -> tuple[list[list[float]], float]:
    """Each choice's log-likelihood as llama.cpp computes it in this process, and the seconds
    the scoring took (the model loaded before)."""
    import llama_cpp
    import numpy as np

    from engine.generation.scoring import SCORE_SLICE

    llm = llama_cpp.Llama(model_path=str(model), logits_all=True, n_ctx=1024, n_batch=SCORE_SLICE,
                          flash_attn=flash_attn, n_threads=threads, n_threads_batch=threads,
                          verbose=False)  # fmt: skip
    try:
        started = time.perf_counter()
        found = []
        for choices in questions:
            row = []
            for context, continuation in choices:
                kept = context.rstrip()  # spaces at the question's end go with the answer
                continuation = context[len(kept) :] + continuation
                before = len(llm.tokenize(kept.encode(), add_bos=True, special=True))
                tokens = llm.tokenize((kept + continuation).encode(), add_bos=True, special=True)
                llm.n_tokens = 0  # evaluated afresh
                llm.eval(tokens)
                logits = np.asarray(llm.scores[: len(tokens)], dtype=np.float64)
                peak = logits.max(axis=1, keepdims=True)
                logprobs = logits - peak - np.log(np.exp(logits - peak).sum(axis=1, keepdims=True))
                row.append(
                    float(sum(logprobs[i - 1][tokens[i]] for i in range(before, len(tokens))))
                )
            found.append(row)
        return found, time.perf_counter() - started
    finally:
        llm.close()


def accuracy(logliks: list[list[float]], rows: list[dict[str, Any]]) -> tuple[float, float]:
    """acc and acc_norm (per character of the answer, as the harness's ``acc_norm``)."""
    acc = norm = 0
    for values, row in zip(logliks, rows, strict=True):
        gold = int(row["target"])
        # The harness's acc_norm divides by the choice's length, without the delimiter before it.
        lengths = [len(c.removeprefix(" ")) for _ctx, c in pairs(row)]
        acc += max(range(len(values)), key=values.__getitem__) == gold
        per_char = [v / n for v, n in zip(values, lengths, strict=True)]
        norm += max(range(len(values)), key=per_char.__getitem__) == gold
    return acc / len(rows), norm / len(rows)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lm-eval", required=True, help="the harness's lm_eval command")
    ap.add_argument("--model", default="starter")
    ap.add_argument("--batch-size", type=int, nargs="+", default=[1, 8])
    ap.add_argument("--limit", type=int, default=None, help="the first N questions only")
    ap.add_argument("--rounds", type=int, default=3, help="of the timed scoring")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()

    model = model_path(args.model)
    runs: dict[int, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="cove-bench-eval-") as scratch:
        port = free_port()
        proc = serve(str(model), port, Path(scratch) / "data")
        try:
            status = httpx.get(f"http://127.0.0.1:{port}/cove/v1/status").json()
            (resident,), plan = status["residents"], status["plan"]
            for batch in args.batch_size:
                out = Path(scratch) / f"batch-{batch}"
                seconds = harness(args.lm_eval, port, batch, args.limit, out)
                results = json.loads(next(out.rglob("results_*.json")).read_text())
                runs[batch] = {
                    "seconds": seconds,
                    "samples": samples(out),
                    "acc": results["results"][TASK]["acc,none"],
                    "acc_norm": results["results"][TASK]["acc_norm,none"],
                }
            questions = [pairs(r) for r in runs[args.batch_size[0]]["samples"]]
            straight = timed_scoring(port, questions, args.rounds)
        finally:
            proc.terminate()
            proc.wait(60)

    rows = runs[args.batch_size[0]]["samples"]
    flash = bool(resident["flash_attn"])
    reference, reference_s = llama_cpp_logliks(
        model, questions, flash_attn=flash, threads=int(plan["threads"])
    )
    other, _ = llama_cpp_logliks(
        model, questions, flash_attn=not flash, threads=int(plan["threads"])
    )
    ref_acc, ref_norm = accuracy(reference, rows)
    moved = [abs(a - b) for ra, rb in zip(reference, other, strict=True)
             for a, b in zip(ra, rb, strict=True)]  # fmt: skip
    report: dict[str, Any] = {
        "model": model.name,
        "questions": len(rows),
        "choices": sum(len(q) for q in questions),
        "ran_as": {
            k: resident[k]
            for k in (
                "backend",
                "device",
                "flash_attn",
                "kv_type",
                "n_batch",
                "n_ubatch",
                "parallel",
            )
        },
        "llama_cpp": {"acc": ref_acc, "acc_norm": ref_norm, "seconds": reference_s},
        "flash_attn_switched": {
            "mean_abs_difference": sum(moved) / len(moved),
            "max_abs_difference": max(moved),
            "acc": accuracy(other, rows)[0],
        },
        "runs": {},
        "scoring_seconds": {
            "llama_cpp_one_by_one": reference_s,
            **{f"cove_{n}_a_request": v for n, v in straight.items()},
            **{f"cove_{n}_a_request_over_llama_cpp": v / reference_s for n, v in straight.items()},
        },
    }
    for batch, run in runs.items():
        ours = [harness_logliks(r) for r in run["samples"]]
        apart = [abs(a - b) for ro, rr in zip(ours, reference, strict=True)
                 for a, b in zip(ro, rr, strict=True)]  # fmt: skip
        report["runs"][str(batch)] = {
            "acc": run["acc"],
            "acc_norm": run["acc_norm"],
            "acc_from_its_logliks": accuracy(ours, run["samples"])[0],
            "max_abs_difference": max(apart),
            "choices_off_by_more_than_1e-3": sum(d > 1e-3 for d in apart),
            "seconds": run["seconds"],
            "seconds_over_llama_cpp": run["seconds"] / reference_s,
        }
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(f"{report['model']}: {report['questions']} questions, {report['choices']} choices; "
              f"ran as {report['ran_as']}")  # fmt: skip
        print(f"llama.cpp in process: acc {ref_acc:.3f}, acc_norm {ref_norm:.3f}, "
              f"{reference_s:.1f} s")  # fmt: skip
        for batch, r in report["runs"].items():
            print(
                f"lm-eval batch {batch}: acc {r['acc']:.3f}, acc_norm {r['acc_norm']:.3f}, "
                f"largest difference {r['max_abs_difference']:.2e}, "
                f"{r['choices_off_by_more_than_1e-3']} off by more than 1e-3, "
                f"{r['seconds']:.1f} s ({r['seconds_over_llama_cpp']:.2f}x llama.cpp)"
            )
        for name, value in report["scoring_seconds"].items():
            print(f"scoring, {name.replace('_', ' ')}: {value:.2f}")
        f = report["flash_attn_switched"]
        print(f"flash attention switched: mean |difference| {f['mean_abs_difference']:.3f}, "
              f"largest {f['max_abs_difference']:.3f}, acc {f['acc']:.3f}")  # fmt: skip
    return 0 if all(math.isfinite(r["max_abs_difference"]) for r in report["runs"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
