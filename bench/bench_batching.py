"""How many replies at once pay: Cove's measurement for ``--parallel auto``
(engine/tuning/batching.py) against llama.cpp's own ``llama-batched-bench`` on the same model,
same machine, same run, rounds interleaved.

Both decode one token per sequence per step after a 128-token prompt; the aggregate decode
speed (all sequences together) is reported per count with the gain of each doubling, and the
count ``--parallel auto`` would choose from each tool's figures.

    python bench/bench_batching.py --model starter
    python bench/bench_batching.py --model /path/to/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from statistics import median

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.bench_parallel import llama_server_path, model_path  # noqa: E402
from engine.backends.llama.single import LlamaCppModel  # noqa: E402
from engine.backends.loader import plan_model  # noqa: E402
from engine.planner.plan import AUTO_PARALLEL  # noqa: E402
from engine.tuning.batching import (  # noqa: E402
    DEPTH,
    STEPS,
    WARM_STEPS,
    counts_up_to,
    measure_round,
    parallel_from,
)


def batched_bench() -> Path:
    """llama-batched-bench, built beside the llama-server the other benchmarks use."""
    server = llama_server_path()
    binary = server.parent / "llama-batched-bench"
    if not binary.exists():
        build = server.parents[1]
        cmd = ["cmake", "--build", str(build), "-j", str(os.cpu_count() or 2)]
        subprocess.run([*cmd, "--target", "llama-batched-bench"], check=True, capture_output=True)
    return binary


def llama_round(
    binary: Path, model: Path, counts: list[int], threads: int, fa: bool
) -> dict[int, float]:
    cmd = [str(binary), "-m", str(model), "-t", str(threads), "-npp", str(DEPTH)]
    cmd += ["-ntg", str(STEPS), "-npl", ",".join(map(str, counts))]
    cmd += ["-c", str(max(counts) * (DEPTH + STEPS + 8)), "-fa", "on" if fa else "off"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    speeds: dict[int, float] = {}
    for line in out.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 10 and re.fullmatch(r"\d+", cells[2]):
            speeds[int(cells[2])] = float(cells[7])  # B, S_TG t/s
    return speeds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="starter")
    parser.add_argument("--most", type=int, default=16, help="the largest count measured")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    path = model_path(args.model)
    _, _, plan = plan_model(str(path), ctx=2048)
    counts = counts_up_to(args.most)
    binary = batched_bench()
    model = LlamaCppModel(path, plan)
    cove: list[dict[int, float]] = []
    llama: list[dict[int, float]] = []
    try:
        for r in range(args.rounds):
            first, second = ("cove", "llama") if r % 2 == 0 else ("llama", "cove")
            for who in (first, second):
                if who == "cove":
                    cove.append(measure_round(model.model, counts, reverse=r % 2 == 1)[0])
                else:
                    llama.append(llama_round(binary, path, counts, plan.threads, plan.flash_attn))
    finally:
        model.close()
    med_c = {n: median(r[n] for r in cove) for n in counts}
    med_l = {n: median(r[n] for r in llama if n in r) for n in counts}
    floor = min(AUTO_PARALLEL, counts[-1])
    result = {
        "model": path.name,
        "threads": plan.threads,
        "flash_attn": plan.flash_attn,
        "depth": DEPTH,
        "steps": STEPS,
        "warm_steps": WARM_STEPS,
        "cove": {str(n): round(v, 1) for n, v in med_c.items()},
        "llama_batched_bench": {str(n): round(v, 1) for n, v in med_l.items()},
        "cove_chooses": parallel_from(med_c, floor)[0],
        "llama_figures_choose": parallel_from(med_l, floor)[0],
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"{path.name}, {plan.threads} threads, flash attention {plan.flash_attn}")
    print("| count | llama-batched-bench tok/s | gain | Cove tok/s | gain | ratio |")
    print("|---:|---:|---:|---:|---:|---:|")
    for i, n in enumerate(counts):
        gl = med_l[n] / med_l[counts[i - 1]] if i else 1.0
        gc = med_c[n] / med_c[counts[i - 1]] if i else 1.0
        ratio = med_c[n] / med_l[n]
        print(f"| {n} | {med_l[n]:.1f} | {gl:.2f}x | {med_c[n]:.1f} | {gc:.2f}x | {ratio:.2f}x |")
    print(
        f"--parallel auto from Cove's figures: {result['cove_chooses']}; "
        f"from llama-batched-bench's: {result['llama_figures_choose']}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
