"""One long prompt: Cove's time to first token against llama.cpp's own ``llama-server`` with
flash attention on and with it off, on the same model, same machine, same run, rounds
interleaved, each run on a freshly started server (nothing cached).

    .venv/bin/python bench/bench_long_prompt.py [--model starter] [--tokens 8000]
        [--rounds 3] [--json]

The prompt is what agents send, as they sent it (tests/fixtures/clients/): Claude Code's system
prompt and its tools' descriptions, then Codex CLI's instructions, cut to about ``--tokens``
tokens, then one question; 16 tokens are generated at temperature 0. Reported, medians over
rounds: the time to first token on each server, the prompt reading speed each reports, and
Cove's time over the best of llama-server's two (the issue's target: at most 1.05x).
llama-server is built by ../shared/tools/build-llama-bench.sh; both get one sequence and the
same context.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.bench_parallel import free_port, llama_server_path, model_path, port_of, running

CLIENTS = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "clients"


def agent_text(tokens: int) -> str:
    """About ``tokens`` tokens (4 characters a token) of what agents send."""
    claude = json.loads((CLIENTS / "claude-code-1.json").read_text(encoding="utf-8"))["body"]
    codex = json.loads((CLIENTS / "codex-1.json").read_text(encoding="utf-8"))["body"]
    parts = [s["text"] for s in claude["system"]]
    parts += [f"{t['name']}: {t.get('description', '')}" for t in claude["tools"]]
    parts += [codex["input"][0]["content"][0]["text"]]
    return "\n\n".join(parts)[: tokens * 4]


def ask(url: str, model: str, text: str) -> dict[str, Any]:
    body = {
        "model": model,
        "stream": True,
        "stream_options": {"include_usage": True},
        "max_tokens": 16,
        "temperature": 0,
        "messages": [
            {"role": "system", "content": text},
            {"role": "user", "content": "In one sentence, what are you?"},
        ],
    }
    start = time.perf_counter()
    first: float | None = None
    reading: float | None = None
    prompt_tokens = 0
    with httpx.stream("POST", url + "/v1/chat/completions", json=body, timeout=3600) as r:
        if r.status_code != 200:
            raise RuntimeError(f"{url}: {r.status_code} {r.read()[:300]!r}")
        for line in r.iter_lines():
            if not line.startswith("data: ") or line == "data: [DONE]":
                continue
            data = json.loads(line[6:])
            choices = data.get("choices") or []
            if first is None and choices and (choices[0].get("delta") or {}).get("content"):
                first = time.perf_counter() - start
            usage = data.get("usage") or {}
            prompt_tokens = int(usage.get("prompt_tokens") or prompt_tokens)
            timings = data.get("timings") or (data.get("cove") or {}).get("timings") or {}
            speed = timings.get("prompt_per_second") or timings.get("prompt_tokens_per_s")
            reading = float(speed) if speed else reading
    return {"ttft": first if first is not None else time.perf_counter() - start,
            "reading": reading or 0.0, "prompt_tokens": prompt_tokens}  # fmt: skip


def commands(model: Path, ctx: int) -> dict[str, list[str]]:
    server = str(llama_server_path())
    out: dict[str, list[str]] = {}
    port = free_port()
    cove = [sys.executable, "-m", "engine.cli", "serve", "--model", str(model), "--ctx", str(ctx)]
    out["cove"] = [*cove, "--parallel", "1", "--port", str(port), "--state-cache-mb", "0"]
    for name, flag in (("llama-server fa on", "on"), ("llama-server fa off", "off")):
        port = free_port()
        out[name] = [server, "-m", str(model), "-c", str(ctx), "-np", "1", "-fa", flag,
                     "--port", str(port), "--no-webui"]  # fmt: skip
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="starter")
    parser.add_argument("--tokens", type=int, default=8000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--ctx", type=int, default=16384)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    model = model_path(args.model)
    text = agent_text(args.tokens)
    cmds = commands(model, args.ctx)
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in cmds}
    for round_ in range(args.rounds):
        order = list(cmds) if round_ % 2 == 0 else list(reversed(cmds))
        for name in order:
            with running(cmds[name], port_of(cmds[name])) as url:
                result = ask(url, str(model), text)
            runs[name].append(result)
            print(f"round {round_ + 1} {name}: first token {result['ttft']:.1f} s, "
                  f"{result['prompt_tokens']} prompt tokens read at {result['reading']:.0f} "
                  "tokens/s", flush=True)  # fmt: skip
    table: dict[str, Any] = {"model": model.name, "rounds": args.rounds, "servers": {}}
    for name, results in runs.items():
        table["servers"][name] = {
            "ttft_s": round(statistics.median(r["ttft"] for r in results), 2),
            "prompt_tokens_per_s": round(statistics.median(r["reading"] for r in results), 1),
            "prompt_tokens": results[0]["prompt_tokens"],
        }
    best = min(v["ttft_s"] for k, v in table["servers"].items() if k != "cove")
    table["ratio"] = round(table["servers"]["cove"]["ttft_s"] / best, 3)
    if args.json:
        print(json.dumps(table, indent=2))
    else:
        print(f"\n{table['model']}, medians of {args.rounds} rounds")
        print("| server | prompt tokens | first token | reading |")
        print("|---|---:|---:|---:|")
        for name, v in table["servers"].items():
            print(f"| {name} | {v['prompt_tokens']} | {v['ttft_s']:.1f} s | "
                  f"{v['prompt_tokens_per_s']:.0f} tokens/s |")  # fmt: skip
        print(f"\nCove over the best llama-server: {table['ratio']:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
