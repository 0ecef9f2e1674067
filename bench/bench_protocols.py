"""Each protocol's route against ``/v1/chat/completions``, same model, same prompt, same run:
time to the first token of text and decode tokens/s, measured by the client as each protocol's
client reads its stream (SSE events or NDJSON lines). Rounds interleave the routes so that a
machine whose load drifts disturbs them alike; figures are medians, ratios are route / chat.

    python bench/bench_protocols.py [--model starter] [--rounds 7] [--tokens 64] [--json out]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from engine.client.local import LocalEngine  # noqa: E402

PROMPT = "Write a long story about a lighthouse keeper who finds a map."


def routes(model: str, tokens: int) -> dict[str, tuple[str, dict[str, Any], Callable[[str], bool]]]:
    """Per route: path, request, and whether a stream line carries text."""
    ask = [{"role": "user", "content": PROMPT}]
    greedy = {"temperature": 0}
    return {
        "chat completions": ("/v1/chat/completions",
                             {"model": model, "messages": ask, "max_tokens": tokens,
                              "stream": True, **greedy},
                             lambda line: '"content":"' in line),
        "responses": ("/v1/responses",
                      {"model": model, "input": PROMPT, "max_output_tokens": tokens,
                       "stream": True, **greedy},
                      lambda line: "response.output_text.delta" in line and '"delta"' in line),
        "anthropic messages": ("/v1/messages",
                               {"model": model, "messages": ask, "max_tokens": tokens,
                                "stream": True, **greedy},
                               lambda line: '"text_delta"' in line),
        "ollama chat": ("/api/chat",
                        {"model": model, "messages": ask,
                         "options": {"num_predict": tokens, **greedy}},
                        lambda line: '"content":"' in line and '"done":false' in line),
    }  # fmt: skip


def measure(url: str, body: dict[str, Any], texty: Callable[[str], bool],
            headers: dict[str, str]) -> tuple[float, float, int]:  # fmt: skip
    """(seconds to the first text, text pieces per second after it, pieces)."""
    started = time.perf_counter()
    first = last = None
    pieces = 0
    with httpx.stream("POST", url, json=body, headers=headers, timeout=600) as r:
        r.raise_for_status()
        for line in r.iter_lines():
            if line and texty(line):
                now = time.perf_counter()
                first = first or now
                last = now
                pieces += 1
    assert first is not None and last is not None, "no text came back"
    rate = (pieces - 1) / (last - first) if pieces > 1 and last > first else 0.0
    return first - started, rate, pieces


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--model", default="starter")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--tokens", type=int, default=64)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    engine = LocalEngine.start(extra_args=("--stream-flush-ms", "0"))
    try:
        status = engine.client.load(args.model)
        assert status.model is not None
        root = engine.base_url[: -len("/v1")]
        headers = {"Authorization": f"Bearer {engine._token}"}
        table = routes(status.model, args.tokens)
        for path, body, texty in table.values():  # warm: the prompt in the cache for everyone
            measure(root + path, body, texty, headers)
        results: dict[str, dict[str, list[float]]] = {n: {"ttft": [], "rate": []} for n in table}
        for _ in range(args.rounds):
            for name, (path, body, texty) in table.items():
                ttft, rate, _pieces = measure(root + path, body, texty, headers)
                results[name]["ttft"].append(ttft)
                results[name]["rate"].append(rate)
    finally:
        engine.stop()
        engine.client.close()
    base = results["chat completions"]
    summary = {}
    print(f"{'route':20} {'first text (ms)':>16} {'ratio':>6} {'pieces/s':>9} {'ratio':>6}")
    for name, got in results.items():
        ttft, rate = statistics.median(got["ttft"]), statistics.median(got["rate"])
        ttft_ratio = ttft / statistics.median(base["ttft"])
        rate_ratio = rate / statistics.median(base["rate"])
        summary[name] = {"ttft_ms": round(ttft * 1000, 1), "ttft_ratio": round(ttft_ratio, 3),
                         "rate": round(rate, 1), "rate_ratio": round(rate_ratio, 3)}  # fmt: skip
        print(f"{name:20} {ttft * 1000:16.1f} {ttft_ratio:6.2f} {rate:9.1f} {rate_ratio:6.2f}")
    if args.json:
        report = {"model": args.model, "rounds": args.rounds, "summary": summary, "raw": results}
        args.json.write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
