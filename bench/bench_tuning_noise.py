"""The measured choice on a busy machine: the way Cove chooses for a model with a busy-loop
process on one core, against the way it chooses on the idle machine, over several runs; and the
same for the one-pass measurement Cove made before (each way measured once, one after the
other), in the same run. llama.cpp's own ``llama-bench`` says which way is faster on the idle
machine, at the start of a chat and halfway into the context (flash attention on and off).

    python bench/bench_tuning_noise.py [--model starter] [--ctx 8192] [--runs 3] [--json out.json]

A choice "within noise" keeps the runtime's default; a run counts as stable when every busy
choice is the idle choice or within noise. ``llama-bench`` is built once by
../shared/tools/build-llama-bench.sh (cached), or named by ``--llama-bench`` or
``$COVE_LLAMA_BENCH``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.bench_engine import find_llama_bench  # noqa: E402
from engine.hardware import probe_hardware  # noqa: E402
from engine.library.names import resolve_model  # noqa: E402
from engine.planner.plan import resources_from  # noqa: E402
from engine.tuning import Choice, choose  # noqa: E402
from engine.tuning.configs import Way  # noqa: E402
from engine.tuning.figures import Measurement  # noqa: E402
from engine.tuning.load import LoadMeter, is_busy  # noqa: E402
from engine.tuning.measure import measure_once  # noqa: E402
from engine.tuning.store import TuningStore  # noqa: E402
from engine.tuning.ways import ways_to_run  # noqa: E402

BUSY_LIMIT_S = 900  # the busy loop stops by itself after this long, whatever happens here


@contextmanager
def busy_core() -> Iterator[None]:
    """A process that keeps one core busy (pinned to the last core) until the block ends."""
    loop = (
        "import os, time\n"
        "os.sched_setaffinity(0, {max(os.sched_getaffinity(0))})\n"
        f"end = time.monotonic() + {BUSY_LIMIT_S}\n"
        "while time.monotonic() < end: pass\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", loop])
    try:
        yield
    finally:
        proc.kill()
        proc.wait()


def cove_choice(model: Path, ctx: int, store: Path) -> Choice:
    report = probe_hardware()
    choice = choose(
        model,
        resources_from(report),
        report,
        ctx=ctx,
        measure_now=True,
        remeasure=True,
        store=TuningStore(store),
        siblings=(),
    )
    assert choice is not None
    return choice


def one_pass_choice(model: Path, ctx: int) -> tuple[str, float, dict[str, float]]:
    """Cove's measurement before: each way once, one after the other, the fastest turn wins."""
    report = probe_hardware()
    ways: list[Way] = ways_to_run(model, resources_from(report), ctx=ctx)
    turns: dict[str, float] = {}
    shares = []
    for way in ways:
        meter = LoadMeter().start()
        sample, load_s = measure_once(Path(way.config.path), way.plan)
        shares.append(meter.others_share())
        m = Measurement(way.config, load_s, (sample,))
        turns[way.config.label] = m.turn_s(way.plan.n_ctx)
    best = min(turns, key=lambda label: turns[label])
    return best, statistics.mean(shares), turns


def llama_bench_ways(binary: Path, model: Path, threads: int, depth: int) -> dict[str, Any]:
    """Decode tokens/s with flash attention on and off, at depth 0 and at ``depth``."""
    result: dict[str, Any] = {}
    for fa in (1, 0):
        cmd = [
            str(binary), "-m", str(model), "-t", str(threads), "-p", "0", "-n", "64",
            "-d", f"0,{depth}", "-fa", str(fa), "-r", "3", "-o", "json",
        ]  # fmt: skip
        out = subprocess.run(cmd, capture_output=True, text=True, check=True)
        for row in json.loads(out.stdout):
            key = f"fa{'on' if fa else 'off'}_depth{row['n_depth']}"
            result[key] = round(row["avg_ts"], 1)
    return result


def label(choice: Choice) -> str:
    return f"{choice.config.label}{' (within noise)' if choice.within_noise else ''}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default="starter")
    parser.add_argument("--ctx", type=int, default=8192)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--llama-bench")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    model = resolve_model(args.model)
    store = Path(os.environ.get("TMPDIR", "/tmp")) / "cove-bench-tuning.json"
    rows: list[dict[str, Any]] = []
    for run in range(args.runs):
        # Idle and busy alternate, so a drift in the machine's own state falls on both alike.
        idle = cove_choice(model, args.ctx, store)
        with busy_core():
            busy = cove_choice(model, args.ctx, store)
            old_busy, old_share, old_turns = one_pass_choice(model, args.ctx)
        old_idle, _share, _turns = one_pass_choice(model, args.ctx)
        row = {
            "run": run + 1,
            "idle": label(idle),
            "idle_load": round(max(m.others_cpu for m in idle.measurements), 3),
            "busy": label(busy),
            "busy_load": round(max(m.others_cpu for m in busy.measurements), 3),
            "busy_provisional": busy.provisional,
            "stable": busy.config == idle.config or busy.within_noise or idle.within_noise,
            "rounds": min(m.runs for m in busy.measurements),
            "one_pass_idle": old_idle,
            "one_pass_busy": old_busy,
            "one_pass_busy_load": round(old_share, 3),
            "one_pass_busy_counted_busy": is_busy(old_share),
            "one_pass_turns_busy": {k: round(v, 3) for k, v in old_turns.items()},
            "idle_turns": {m.config.label: m.spread(args.ctx) for m in idle.measurements},
            "busy_turns": {m.config.label: m.spread(args.ctx) for m in busy.measurements},
        }
        rows.append(row)
        print(json.dumps(row), flush=True)
    threads = probe_hardware().cpu.physical_cores or 1
    baseline = llama_bench_ways(find_llama_bench(args.llama_bench), model, threads, args.ctx // 2)
    summary = {
        "model": model.name,
        "ctx": args.ctx,
        "runs": args.runs,
        "stable_runs": sum(r["stable"] for r in rows),
        "one_pass_flips": sum(r["one_pass_busy"] != r["one_pass_idle"] for r in rows),
        "llama_bench_tokens_per_s": baseline,
    }
    print(json.dumps(summary), flush=True)
    if args.json:
        args.json.write_text(json.dumps({"rows": rows, "summary": summary}, indent=2))


if __name__ == "__main__":
    main()
