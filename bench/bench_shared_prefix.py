"""Many clients with one long system prompt: Cove against llama.cpp's own ``llama-server -np``
on the same model, same machine, same run, rounds interleaved (Cove, llama-server,
llama-server, Cove, ...), each round on freshly started servers (nothing cached before it).

    .venv/bin/python bench/bench_shared_prefix.py [--model starter] [--clients 8]
        [--rounds 3] [--tokens 32] [--prefix-tokens 2800] [--json]

The system prompt is the start of Codex CLI's own instructions as it sent them
(tests/fixtures/clients/codex-1.json), cut to about ``--prefix-tokens`` tokens; each client adds a
question of its own and streams ``--tokens`` tokens at temperature 0 (``ignore_eos``: every
reply is as long on both servers). Two arrivals: all clients at the same moment ("together"),
and one a second ("1 s apart"). Reported, medians over rounds: the p95 time to first token and
the total time (first request sent to last token received), and their ratios Cove / llama-server.

Replies: after the bursts, each server answers the same requests one at a time; "same" counts
the burst's replies equal to those (temperature 0: what batching and sharing change, if
anything). llama-server runs with ``--cache-reuse 256`` and its prompt cache (on by default);
it is built by ../shared/tools/build-llama-bench.sh.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.bench_parallel import free_port, llama_server_path, model_path, port_of, running

ROOT = Path(__file__).resolve().parents[1]
MODEL = [""]  # the name requests send: the model's path (Cove resolves it; llama-server ignores it)
CAPTURED = ROOT / "tests" / "fixtures" / "clients" / "codex-1.json"
TOPICS = (
    "tests", "git", "files", "shell commands", "code review", "errors", "plans", "style",
    "patches", "sandboxing", "approvals", "tools", "docs", "refactoring", "logs", "builds",
)  # fmt: skip


def system_prompt(tokens: int) -> str:
    """The start of Codex's instructions, about ``tokens`` long (4 characters a token)."""
    body = json.loads(CAPTURED.read_text(encoding="utf-8"))["body"]
    text = body["input"][0]["content"][0]["text"]
    return str(text[: tokens * 4])


def question(i: int) -> str:
    return f"In one sentence: what do you do about {TOPICS[i % len(TOPICS)]}? ({i})"


def requests(system: str, n: int, tokens: int) -> list[dict[str, Any]]:
    return [
        {
            "model": MODEL[0],
            "stream": True,
            "max_tokens": tokens,
            "temperature": 0,
            "ignore_eos": True,
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": question(i)},
            ],
        }
        for i in range(n)
    ]


async def one(url: str, body: dict[str, Any], delay: float) -> dict[str, Any]:
    """One client: its own connection (llama-server closes one left idle)."""
    await asyncio.sleep(delay)
    async with httpx.AsyncClient(timeout=3600) as client:
        return await _streamed(client, url, body)


async def _streamed(client: httpx.AsyncClient, url: str, body: dict[str, Any]) -> dict[str, Any]:
    start = time.perf_counter()
    first: float | None = None
    parts: list[str] = []
    async with client.stream("POST", url + "/v1/chat/completions", json=body) as r:
        if r.status_code != 200:
            raise RuntimeError(f"{url}: {r.status_code} {(await r.aread())[:300]!r}")
        async for line in r.aiter_lines():
            if not line.startswith("data: ") or line == "data: [DONE]":
                continue
            choices = json.loads(line[6:]).get("choices") or []
            piece = (choices[0].get("delta") or {}).get("content") if choices else None
            if piece:
                first = first if first is not None else time.perf_counter() - start
                parts.append(piece)
    return {"ttft": first if first is not None else time.perf_counter() - start,
            "end": time.perf_counter(), "text": "".join(parts)}  # fmt: skip


async def burst(url: str, bodies: list[dict[str, Any]], spacing: float) -> dict[str, Any]:
    began = time.perf_counter()
    results = await asyncio.gather(*(one(url, b, i * spacing) for i, b in enumerate(bodies)))
    alone = [await one(url, b, 0) for b in bodies]  # one at a time, for "same"
    ttfts = sorted(r["ttft"] for r in results)
    return {
        "ttft_p95": ttfts[min(len(ttfts) - 1, round(0.95 * (len(ttfts) - 1)))],
        "total": max(r["end"] for r in results) - began,
        "same": sum(r["text"] == a["text"] for r, a in zip(results, alone, strict=True)),
    }


def commands(model: Path, ctx: int, slots: int) -> dict[str, list[str]]:
    cove_port, llama_port = free_port(), free_port()
    cove = [sys.executable, "-m", "engine.cli", "serve", "--model", str(model), "--ctx", str(ctx)]
    cove += ["--parallel", str(slots), "--port", str(cove_port), "--state-cache-mb", "0"]
    llama = [str(llama_server_path()), "-m", str(model), "-c", str(ctx * slots)]
    llama += ["-np", str(slots), "-t", str(os.cpu_count() or 2), "--port", str(llama_port)]
    llama += ["--no-webui", "--cache-reuse", "256"]
    return {"cove": cove, "llama-server": llama}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="starter")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--tokens", type=int, default=32)
    parser.add_argument("--prefix-tokens", type=int, default=2800)
    parser.add_argument("--ctx", type=int, default=4096)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    model = model_path(args.model)
    MODEL[0] = str(model)
    system = system_prompt(args.prefix_tokens)
    bodies = requests(system, args.clients, args.tokens)
    arrivals = {"together": 0.0, "1 s apart": 1.0}
    runs: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for round_ in range(args.rounds):
        cmds = commands(model, args.ctx, args.clients)
        order = list(cmds) if round_ % 2 == 0 else list(reversed(cmds))
        for arrival, spacing in arrivals.items():
            for name in order:
                with running(cmds[name], port_of(cmds[name])) as url:
                    result = asyncio.run(burst(url, bodies, spacing))
                runs.setdefault(arrival, {}).setdefault(name, []).append(result)
                print(f"round {round_ + 1} {arrival} {name}: p95 first token "
                      f"{result['ttft_p95']:.1f} s, total {result['total']:.1f} s, same "
                      f"{result['same']}/{args.clients}", flush=True)  # fmt: skip
    table: dict[str, Any] = {"model": model.name, "clients": args.clients, "rows": []}
    for arrival, by_server in runs.items():
        row: dict[str, Any] = {"arrival": arrival}
        for name, results in by_server.items():
            for key in ("ttft_p95", "total"):
                row[f"{name}:{key}"] = round(statistics.median(r[key] for r in results), 2)
            row[f"{name}:same"] = min(r["same"] for r in results)
        row["ratio_ttft_p95"] = round(row["cove:ttft_p95"] / row["llama-server:ttft_p95"], 3)
        row["ratio_total"] = round(row["cove:total"] / row["llama-server:total"], 3)
        table["rows"].append(row)
    if args.json:
        print(json.dumps(table, indent=2))
    else:
        print(f"\n{table['model']}, {args.clients} clients, medians of {args.rounds} rounds")
        print("| arrival | llama-server p95 first token / total | Cove p95 first token "
              "/ total | ratio first token | ratio total | same (llama, Cove) |")  # fmt: skip
        print("|---|---:|---:|---:|---:|---:|")
        for r in table["rows"]:
            print(f"| {r['arrival']} | {r['llama-server:ttft_p95']:.1f} / "
                  f"{r['llama-server:total']:.1f} s | {r['cove:ttft_p95']:.1f} / "
                  f"{r['cove:total']:.1f} s | {r['ratio_ttft_p95']:.2f}x | "
                  f"{r['ratio_total']:.2f}x | "
                  f"{r['llama-server:same']}, {r['cove:same']} |")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
