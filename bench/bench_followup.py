"""Follow-up time to first token in a long conversation, by sliding-window cache policy.

A conversation of about ``--tokens`` prompt tokens gets a reply, then a short follow-up. With the
KV cache reused the follow-up evaluates only its new tokens; without, the whole conversation
again. Each policy (window-sized cache, full-size cache) runs in a fresh process, and each also
measures the follow-up after ``reset()`` (no reuse), interleaved, as the baseline.

    python bench/bench_followup.py --model MODEL.gguf [--ctx 8192] [--tokens 6000] [--runs 3]
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
import json, sys
from dataclasses import replace
from engine.backends import backend_for
from engine.backends.loader import plan_model
from engine.types import ChatMessage, GenerationParams

model_name = sys.argv[1]
ctx, tokens, runs = (int(a) for a in sys.argv[2:5])
swa_full = sys.argv[5] == "1"
path, _info, plan = plan_model(model_name, ctx=ctx)
plan = replace(plan, swa_full=swa_full)
model = backend_for(path).load(path, plan)
params = GenerationParams(temperature=0.0, max_tokens=16)
words = "the quick brown fox jumps over the lazy dog and a dog of the fox is in it "
history = [ChatMessage("user", words * max(1, tokens // 20))]
while model.count_tokens(history) > tokens:
    history = [ChatMessage("user", history[0].content[: int(len(history[0].content) * 0.95)])]

def ask(messages):
    text, final = "", None
    for chunk in model.chat(messages, params):
        text += chunk.text
        if chunk.is_terminal:
            final = chunk
    return text, final.stats

rows = []
for run in range(runs):
    model.reset()
    reply, first = ask(history)
    follow = history + [ChatMessage("assistant", reply), ChatMessage("user", f"and then {run}?")]
    _t, reused = ask(follow)
    model.reset()
    _t, cold = ask(follow)
    rows.append({"prompt_tokens": reused.prompt_tokens, "cached": reused.cached_tokens,
                 "ttft_reused_s": reused.ttft_s, "ttft_cold_s": cold.ttft_s,
                 "first_turn_ttft_s": first.ttft_s})
print(json.dumps({"swa_full": swa_full, "n_ctx": plan.n_ctx, "rows": rows}))
model.close()
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", required=True)
    parser.add_argument("--ctx", type=int, default=8192)
    parser.add_argument("--tokens", type=int, default=6000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    results = []
    for swa_full in (False, True):
        out = subprocess.run(
            [sys.executable, "-c", CHILD, args.model, str(args.ctx), str(args.tokens),
             str(args.runs), "1" if swa_full else "0"],
            capture_output=True, text=True, check=True, cwd=ROOT,
        )  # fmt: skip
        results.append(json.loads(out.stdout.strip().splitlines()[-1]))
    print(f"{'cache':>12} {'prompt':>7} {'reused':>7} {'follow-up TTFT':>15} {'no reuse':>9}")
    for result in results:
        cache = "full-size" if result["swa_full"] else "window-sized"
        for row in result["rows"]:
            print(
                f"{cache:>12} {row['prompt_tokens']:>7} {row['cached']:>7} "
                f"{row['ttft_reused_s']:>14.3f}s {row['ttft_cold_s']:>8.2f}s"
            )
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
