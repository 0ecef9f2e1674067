"""Memory planner validation: predicted vs measured peak RSS of a real load plus a generation.

For each context size a fresh process loads the model with the planner's plan, fills the context
with a prompt (so that every KV cell is written), generates 64 tokens and reports its peak
resident set (VmHWM). The prediction is the plan's total for the CPU.

    python bench/bench_memory.py [--model starter] [--ctx 2048 4096 8192] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

CHILD = r"""
import json, sys, threading
from engine.backends.loader import load_model
from engine.types import GenerationParams

ctx = int(sys.argv[1])
loaded = load_model(sys.argv[2], ctx=ctx)
model = loaded.model
# Fill the context: a prompt of ctx - 160 tokens, then 64 generated tokens.
words = ("the quick brown fox jumps over the lazy dog " * (ctx // 4)).split()
prompt = " ".join(words)
ids = model.tokenize(prompt)[: ctx - 160]
text = prompt
while len(model.tokenize(text)) > ctx - 160:
    text = text[: int(len(text) * 0.95)]
final = None
for chunk in model.complete(text, GenerationParams(temperature=0.0, max_tokens=64)):
    if chunk.is_terminal:
        final = chunk
status = open("/proc/self/status").read()
hwm = next(int(l.split()[1]) * 1024 for l in status.splitlines() if l.startswith("VmHWM"))
print(json.dumps({
    "ctx": ctx,
    "predicted": loaded.plan.total_bytes,
    "measured_peak_rss": hwm,
    "prompt_tokens": final.stats.prompt_tokens,
    "completion_tokens": final.stats.completion_tokens,
    "finish": final.finish_reason,
}))
model.close()
"""


def measure(model: str, ctx: int) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(ctx), model],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    row: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    row["error_pct"] = (
        100.0 * (row["predicted"] - row["measured_peak_rss"]) / row["measured_peak_rss"]
    )
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", default="starter")
    parser.add_argument("--ctx", type=int, nargs="+", default=[2048, 4096, 8192])
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    rows = [measure(args.model, ctx) for ctx in args.ctx]
    print(f"{'ctx':>6} {'predicted MiB':>14} {'measured MiB':>13} {'error':>7}")
    for r in rows:
        print(
            f"{int(r['ctx']):>6} {r['predicted'] / 2**20:>14.1f} "
            f"{r['measured_peak_rss'] / 2**20:>13.1f} {r['error_pct']:>+6.1f}%"
        )
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
