"""Predicted against measured speed, in the same run, on every real model here.

The speed probe runs first, in a fresh data folder: the machine's bandwidth and arithmetic
rate, and the starter once (engine/speed/starter.py), which is all the speed model
knows. Every model is then predicted (prompt reading, and replies at a short and a long depth)
before it is loaded, and measured through Cove's engine: a ~256-token prompt and a 32-token reply,
then the conversation extended to ~2,000 tokens and another reply (``--repeat`` rounds, medians).
The Qwen2.5 0.5B and the ONNX build are predicted from the starter's calibration alone; the
starter's own figures check the calibration's fit to another run of it. llama.cpp's ``llama-bench``
at the same depths is the baseline for the GGUF models (Cove's measured speed against the runtime's
own).

    python bench/bench_predict.py [--repeat 3] [--json out.json] [--no-llama-bench]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.bench_engine import find_llama_bench  # noqa: E402
from engine.types import GenerationParams, GenerationStats  # noqa: E402

SHARED = ROOT.parent / "shared"
QWEN = "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
CTX = 4096
SHORT_PROMPT = 256
LONG_DEPTH = 2000
REPLY = 32
TOLERANCE = 0.25


def models() -> list[tuple[str, Path]]:
    from engine.library.names import resolve_model

    found = [("SmolLM2-135M Q4_1 (GGUF, the starter)", resolve_model("starter"))]
    onnx = SHARED / "models" / "smollm2-135m-instruct-onnx-int4-cpu"
    if onnx.is_dir():
        found.append(("SmolLM2-135M int4 (ONNX)", onnx))
    fetch = SHARED / "tools" / "fetch-test-models.sh"
    if fetch.exists():
        out = subprocess.run(["bash", str(fetch), sys.executable], capture_output=True, text=True)
        for line in out.stdout.splitlines():
            name, _, path = line.partition("\t")
            if name == QWEN and Path(path).exists():
                found.append(("Qwen2.5-Coder-0.5B Q4_K_M (GGUF)", Path(path)))
    return found


def counting(start: int, tokens: int) -> tuple[str, int]:
    numbers = max(tokens // 3, 8)
    return "".join(f"{n}, " for n in range(start, start + numbers)), start + numbers


def run(model: Any, prompt: str) -> tuple[str, GenerationStats]:
    params = GenerationParams(temperature=0.0, max_tokens=REPLY, repeat_penalty=1.0)
    text, final = [], None
    for chunk in model.complete(prompt, params, threading.Event()):
        if chunk.is_terminal:
            final = chunk
            break
        text.append(chunk.text)
    assert final is not None and final.stats is not None, final
    return "".join(text), final.stats


def measure(path: Path, plan: Any, repeat: int) -> dict[str, float]:
    """Medians over ``repeat`` rounds: prompt from the start, the short reply, the prompt read
    deep in the conversation, the long reply; and the depths they were at."""
    from engine.backends import backend_for

    rows: list[dict[str, float]] = []
    model: Any = backend_for(path).load(path, plan)
    try:
        for _ in range(repeat):
            model.reset()
            first, after = counting(1, SHORT_PROMPT)
            reply, near = run(model, first)
            more, _ = counting(after, LONG_DEPTH - near.prompt_tokens - REPLY)
            _deep_reply, deep = run(model, first + reply + more)
            extra = deep.prompt_tokens - deep.cached_tokens
            rows.append(
                {
                    "prompt_tps": near.prompt_tokens_per_s,
                    "prompt_depth": near.prompt_tokens / 2,
                    "near_tps": near.decode_tokens_per_s,
                    "near_depth": near.prompt_tokens + near.completion_tokens / 2,
                    "deep_prompt_tps": deep.prompt_tokens_per_s,
                    "deep_prompt_depth": deep.cached_tokens + extra / 2,
                    "deep_tps": deep.decode_tokens_per_s,
                    "deep_depth": deep.prompt_tokens + deep.completion_tokens / 2,
                }
            )
    finally:
        model.close()
    return {k: statistics.median(r[k] for r in rows) for k in rows[0]}


def predicted(info: Any, plan: Any, profile: Any, m: dict[str, float]) -> dict[str, float]:
    from engine.speed.facts import facts_for
    from engine.speed.predict import decode_tps, parts_for_plan, prompt_tps, rates_on, runtime_of

    facts = facts_for(info)
    assert facts is not None
    rates = rates_on(profile, runtime_of(plan), parts_for_plan(plan, profile))
    return {
        "prompt_tps": prompt_tps(rates, facts, m["prompt_depth"]),
        "near_tps": decode_tps(rates, facts, m["near_depth"]),
        "deep_prompt_tps": prompt_tps(rates, facts, m["deep_prompt_depth"]),
        "deep_tps": decode_tps(rates, facts, m["deep_depth"]),
    }


def llama_bench(
    binary: Path, path: Path, depths: tuple[int, int], threads: int
) -> dict[str, float]:
    """llama-bench's own figures at the same depths: pp256 at depth 0, tg32 at both depths."""
    near, deep = depths
    cmd = [
        str(binary), "-m", str(path), "-t", str(threads), "-r", "3", "-fa", "1",
        "-p", str(SHORT_PROMPT), "-n", str(REPLY), "-d", f"0,{near},{deep}", "-o", "json",
    ]  # fmt: skip
    out = subprocess.run(cmd, capture_output=True, text=True, check=True)
    found: dict[str, float] = {}
    for row in json.loads(out.stdout):
        depth, n_gen = row.get("n_depth", 0), row["n_gen"]
        if n_gen == 0 and depth == 0:
            found["prompt_tps"] = row["avg_ts"]
        elif n_gen and depth == near:
            found["near_tps"] = row["avg_ts"]
        elif n_gen and depth == deep:
            found["deep_tps"] = row["avg_ts"]
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--no-llama-bench", action="store_true")
    parser.add_argument("--llama-bench", metavar="PATH")
    args = parser.parse_args()
    os.environ["COVE_DATA_DIR"] = tempfile.mkdtemp(prefix="cove-bench-predict-")
    os.environ.pop("COVE_NO_SPEED_CALIBRATION", None)

    from engine.backends.loader import plan_model
    from engine.hardware import probe_hardware
    from engine.speed.machine import profile_for

    report = probe_hardware()
    profile = profile_for(report, again=True)
    assert profile is not None
    cpu = profile.device("cpu")
    assert cpu is not None
    print(
        f"probe: {cpu.bandwidth / 1e9:.1f} GB/s, {cpu.flops / 1e9:.0f} GFLOPS; "
        + "; ".join(f"{k}: {c.source}" for k, c in profile.calibrations.items()),
        flush=True,
    )
    binary = None if args.no_llama_bench else find_llama_bench(args.llama_bench)
    results: list[dict[str, Any]] = []
    for label, path in models():
        _p, info, plan = plan_model(str(path), ctx=CTX)
        m = measure(path, plan, args.repeat)
        p = predicted(info, plan, profile, m)
        row: dict[str, Any] = {"model": label, "measured": m, "predicted": p}
        row["ratio"] = {k: p[k] / m[k] for k in p}
        if binary is not None and path.suffix == ".gguf":
            depths = (round(m["near_depth"]), round(m["deep_depth"]))
            row["llama_bench"] = llama_bench(binary, path, depths, plan.threads)
        results.append(row)
        print(json.dumps(row), flush=True)
    print()
    print(
        "| model | figure | depth | predicted tok/s | measured tok/s | predicted / measured "
        "| llama-bench tok/s |"
    )
    print("|---|---|---:|---:|---:|---:|---:|")
    names = {
        "prompt_tps": ("prompt", "prompt_depth"),
        "near_tps": ("reply, short", "near_depth"),
        "deep_prompt_tps": ("prompt, deep", "deep_prompt_depth"),
        "deep_tps": ("reply, long", "deep_depth"),
    }
    worst = 0.0
    for row in results:
        for key, (words, depth) in names.items():
            ratio = row["ratio"][key]
            worst = max(worst, abs(ratio - 1))
            base = row.get("llama_bench", {}).get(key)
            print(
                f"| {row['model']} | {words} | {row['measured'][depth]:.0f} | "
                f"{row['predicted'][key]:.1f} | {row['measured'][key]:.1f} | {ratio:.2f} | "
                f"{f'{base:.1f}' if base else '–'} |"
            )
    print(f"\nlargest error: {worst:.0%} (goal: within {TOLERANCE:.0%})")
    if args.json:
        args.json.write_text(
            json.dumps({"profile": profile.to_dict(), "results": results}, indent=2)
        )
    return 0 if worst <= TOLERANCE else 1


if __name__ == "__main__":
    sys.exit(main())
