"""What the process boundary costs: Cove's engine in-process vs the same engine behind the host
(client -> HTTP/SSE on loopback -> host), same model, same threads, interleaved in one run.

Measures, as the caller sees them (first and last text chunk on the caller's clock):
  * decode tokens/s of a 128-token greedy reply (target: the host costs <= 5 %)
  * time to first token of a fresh chat (no KV-cache reuse: every repeat has a new prefix)

    python bench/bench_host.py [--model starter] [--repeat 7] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from engine.loader import load_model  # noqa: E402
from engine.local_engine import LocalEngine  # noqa: E402
from engine.types import ChatMessage, Chunk, GenerationParams  # noqa: E402

CTX = 2048
TOKENS = 128
PARAMS = GenerationParams(temperature=0.0, repeat_penalty=1.0, max_tokens=TOKENS)


def prompt(i: int) -> list[ChatMessage]:
    return [
        ChatMessage("system", f"Session {i}. You are a helpful assistant."),
        ChatMessage("user", "Write a long, detailed story about a lighthouse keeper."),
    ]


def measure(stream: Iterable[Chunk]) -> dict[str, float]:
    started = time.perf_counter()
    first = last = None
    pieces = 0
    final: Chunk | None = None
    for chunk in stream:
        if chunk.is_terminal:
            final = chunk
            break
        now = time.perf_counter()
        first = first or now
        last = now
        pieces += 1
    assert final is not None and final.stats is not None, "no terminal chunk"
    assert first is not None and last is not None, "no text"
    tokens = final.stats.completion_tokens
    return {
        "ttft_s": first - started,
        # Tokens after the first, over the time after the first text arrived.
        "decode_tps": (tokens - 1) / (last - first) if last > first else 0.0,
        "tokens": tokens,
        "pieces": pieces,
    }


def run(model: str, repeat: int) -> dict[str, Any]:
    loaded = load_model(model, ctx=CTX)
    engine = LocalEngine.start()
    engine.client.load(model, ctx=CTX)
    modes: dict[str, Callable[[list[ChatMessage]], Iterable[Chunk]]] = {
        "in_process": lambda msgs: loaded.model.chat(msgs, PARAMS),
        "host": lambda msgs: engine.client.chat(msgs, PARAMS),
    }
    results: dict[str, list[dict[str, float]]] = {name: [] for name in modes}
    try:
        for fn in modes.values():  # warm-up: page in weights, fill caches
            measure(fn(prompt(-1)))
        for i in range(repeat):
            order = list(modes) if i % 2 == 0 else list(reversed(modes))
            for name in order:
                results[name].append(measure(modes[name](prompt(i))))
    finally:
        engine.stop()
        loaded.model.close()
    summary: dict[str, Any] = {"model": model, "repeat": repeat, "ctx": CTX, "tokens": TOKENS}
    for name, rows in results.items():
        summary[name] = {
            "decode_tps": statistics.median(r["decode_tps"] for r in rows),
            "ttft_s": statistics.median(r["ttft_s"] for r in rows),
        }
    ratio = summary["host"]["decode_tps"] / summary["in_process"]["decode_tps"]
    summary["decode_ratio"] = ratio
    summary["boundary_cost_pct"] = (1 - ratio) * 100
    summary["ttft_ratio"] = summary["host"]["ttft_s"] / summary["in_process"]["ttft_s"]
    summary["ttft_added_ms"] = (summary["host"]["ttft_s"] - summary["in_process"]["ttft_s"]) * 1000
    return summary


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="starter")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args()
    s = run(args.model, args.repeat)
    print(f"model {s['model']}, {s['repeat']} interleaved repeats, medians")
    print(f"{'':12} {'decode tok/s':>14} {'TTFT ms':>10}")
    for name in ("in_process", "host"):
        print(f"{name:12} {s[name]['decode_tps']:>14.1f} {s[name]['ttft_s'] * 1000:>10.1f}")
    print(
        f"host / in-process: decode {s['decode_ratio']:.3f}x "
        f"(boundary cost {s['boundary_cost_pct']:.1f} %, target <= 5 %), "
        f"TTFT {s['ttft_ratio']:.2f}x (+{s['ttft_added_ms']:.1f} ms)"
    )
    if args.json:
        args.json.write_text(json.dumps(s, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
