"""Many clients at once: Cove's continuous batching against llama.cpp's own ``llama-server -np``
on the same model, same machine, same run, rounds interleaved (Cove, llama-server, llama-server,
Cove, ...).

    .venv/bin/python bench/bench_parallel.py [--model starter] [--clients 1 2 4 8 16]
        [--rounds 3] [--tokens 128] [--json]
    .venv/bin/python bench/bench_parallel.py --admission [--model M]

Each client streams a request for a story (temperature 0.8 and the same sampling settings on
both servers, ``SAMPLING``; its own seed, ``ignore_eos`` so
that every reply is ``--tokens`` long on both servers) through ``/v1/chat/completions``; all
start together. Reported per server and number of clients, the
median over rounds of: the aggregate decode rate (completion tokens of all clients over the
wall time from the first request to the last token), and the p50 and p95 time to the first
token. Both servers get the same context per sequence (``--ctx``) and as many sequences as the
most clients.

``--admission``: 32 clients against ``--parallel 4 --max-queue 64`` (all must complete, each
stream ending with ``[DONE]``), then the longest gap between two tokens of three running streams
while a 3,000-token prompt is admitted, for both servers.

llama-server is built by ../shared/tools/build-llama-bench.sh (the llama.cpp that the installed
llama-cpp-python vendors).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
MODEL = [""]  # the name requests send: the model's path (Cove resolves it; llama-server ignores it)
# The sampling every request names, so that both servers draw with the same chain: llama-server's
# defaults (top-k 40, top-p 0.95, min-p 0.05, no repetition penalty). Cove's own default
# repetition penalty is 1.1, which a request leaving it out gets (``--repeat-penalty 1.1``).
SAMPLING: dict[str, float] = {"top_k": 40, "top_p": 0.95, "min_p": 0.05, "repeat_penalty": 1.0}
BUILD = ROOT.parent / "shared" / "tools" / "build-llama-bench.sh"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def llama_server_path() -> Path:
    """llama-server from the llama.cpp that Cove's llama-cpp-python vendors. On a CPU with AMX,
    built a second time as Cove's own build is (packaging/llama_cpp_wheel.sh: native, AMX left
    out), since llama.cpp's AMX kernels crash on some of these machines (ggml-org/llama.cpp#20824)
    and would not be the same code anyway."""
    out = subprocess.run(
        ["bash", str(BUILD), sys.executable], check=True, capture_output=True, text=True
    )
    built = Path(out.stdout.strip().splitlines()[-1])
    if " amx" not in Path("/proc/cpuinfo").read_text(errors="replace"):
        return built / "llama-server"
    source = built.parents[1]
    no_amx = source / "build-noamx" / "bin" / "llama-server"
    if not no_amx.exists():
        flags = "-mno-amx-tile -mno-amx-int8 -mno-amx-bf16"
        env = {**os.environ, "CFLAGS": flags, "CXXFLAGS": flags}
        configure = ["cmake", "-B", "build-noamx", "-DCMAKE_BUILD_TYPE=Release"]
        configure += ["-DLLAMA_CURL=OFF", "-DGGML_RPC=ON"]
        subprocess.run(configure, cwd=source, env=env, check=True, capture_output=True)
        build = ["cmake", "--build", "build-noamx", "-j", str(os.cpu_count() or 2)]
        build += ["--target", "llama-server"]
        subprocess.run(build, cwd=source, env=env, check=True, capture_output=True)
    return no_amx


def model_path(name: str) -> Path:
    from engine.library.names import resolve_model

    return resolve_model(name)


@contextlib.contextmanager
def running(cmd: list[str], port: int) -> Iterator[str]:
    # Cove runs the planner's way (flash attention on, as llama-server's "auto" on a CPU), with
    # no measuring of other ways in the pauses between bursts.
    env = {**os.environ, "COVE_NO_TUNING": "1"}
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError(f"{cmd[0]} exited with {proc.returncode}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(url + "/v1/models", timeout=2).status_code == 200:
                    break
            time.sleep(0.25)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()


async def stream(
    client: httpx.AsyncClient,
    url: str,
    prompt: str,
    seed: int,
    tokens: int,
    gaps: list[float] | None = None,
    strict: bool = True,
) -> dict[str, Any]:
    body = {
        "model": MODEL[0],
        "stream": True,
        "stream_options": {"include_usage": True},
        "max_tokens": tokens,
        "temperature": 0.8,
        "seed": seed,
        # Every reply runs to max_tokens on both servers, so that a round's work does not depend
        # on where each server's draws happen to end a story.
        "ignore_eos": True,
        **SAMPLING,
        "messages": [{"role": "user", "content": prompt}],
    }
    start = time.perf_counter()
    first: float | None = None
    last = start
    usage: dict[str, Any] = {}
    done = False
    async with client.stream("POST", url + "/v1/chat/completions", json=body) as r:
        if r.status_code != 200 and not strict:
            return {"status": r.status_code, "done": False}
        if r.status_code != 200:
            raise RuntimeError(f"{url}: {r.status_code} {(await r.aread())[:300]!r}")
        async for line in r.aiter_lines():
            if line == "data: [DONE]":
                done = True
                continue
            if not line.startswith("data: "):
                continue
            data = json.loads(line[6:])
            if data.get("usage"):
                usage = data["usage"]
            choices = data.get("choices") or []
            if choices and (choices[0].get("delta") or {}).get("content"):
                now = time.perf_counter()
                if first is None:
                    first = now - start
                elif gaps is not None:
                    gaps.append(now - last)
                last = now
    return {
        "status": 200,
        "done": done,
        "ttft_s": first if first is not None else last - start,
        "end": last,
        "start": start,
        "tokens": int(usage.get("completion_tokens") or 0),
    }


async def burst(url: str, n: int, tokens: int, round_: int) -> dict[str, float]:
    async with httpx.AsyncClient(timeout=3600) as client:
        began = time.perf_counter()
        results = await asyncio.gather(
            *(
                stream(
                    client,
                    url,
                    f"Write a long, detailed story of at least 400 words about a fox called {i}.",
                    1000 * round_ + i,
                    tokens,
                )
                for i in range(n)
            )
        )
    ends = max(r["end"] for r in results)
    ttfts = sorted(r["ttft_s"] for r in results)
    total = sum(r["tokens"] for r in results)
    return {
        "aggregate_tps": total / (ends - began),
        "ttft_p50": statistics.median(ttfts),
        "ttft_p95": ttfts[min(len(ttfts) - 1, round(0.95 * (len(ttfts) - 1)))],
        "tokens": total,
    }


def servers(model: Path, ctx: int, slots: int, threads: int) -> dict[str, list[str]]:
    cove_port, llama_port = free_port(), free_port()
    cove = [sys.executable, "-m", "engine.cli", "serve", "--model", str(model)]
    cove += ["--ctx", str(ctx), "--parallel", str(slots), "--port", str(cove_port)]
    cove += ["--state-cache-mb", "0"]
    llama = [str(llama_server_path()), "-m", str(model), "-c", str(ctx * slots)]
    llama += ["-np", str(slots), "-t", str(threads), "--port", str(llama_port), "--no-webui"]
    return {"cove": cove, "llama-server": llama}


def port_of(cmd: list[str]) -> int:
    return int(cmd[cmd.index("--port") + 1])


def compare(args: argparse.Namespace) -> dict[str, Any]:
    model = model_path(args.model)
    MODEL[0] = str(model)
    slots = max(args.clients)
    cmds = servers(model, args.ctx, slots, os.cpu_count() or 2)
    runs: dict[str, dict[int, list[dict[str, float]]]] = {
        name: {n: [] for n in args.clients} for name in cmds
    }
    for round_ in range(args.rounds):
        order = list(cmds) if round_ % 2 == 0 else list(reversed(cmds))
        for name in order:
            with running(cmds[name], port_of(cmds[name])) as url:
                asyncio.run(burst(url, 1, 8, 0))  # warm up
                for n in args.clients:
                    result = asyncio.run(burst(url, n, args.tokens, round_))
                    runs[name][n].append(result)
                    print(f"round {round_ + 1} {name} {n} clients: {fmt(result)}", flush=True)
    table: dict[str, Any] = {
        "model": model.name,
        "ctx": args.ctx,
        "tokens": args.tokens,
        "rounds": args.rounds,
        "rows": [],
    }
    for n in args.clients:
        row: dict[str, Any] = {"clients": n}
        for name in cmds:
            for key in ("aggregate_tps", "ttft_p50", "ttft_p95"):
                row[f"{name}:{key}"] = round(statistics.median(r[key] for r in runs[name][n]), 3)
        row["ratio_tps"] = round(row["cove:aggregate_tps"] / row["llama-server:aggregate_tps"], 3)
        row["ratio_ttft_p95"] = round(row["cove:ttft_p95"] / row["llama-server:ttft_p95"], 3)
        table["rows"].append(row)
    return table


async def admission_run(url: str, tokens: int) -> dict[str, Any]:
    async with httpx.AsyncClient(timeout=3600) as client:
        many = await asyncio.gather(
            *(
                stream(client, url, f"Say a sentence about {i}.", i, 16, strict=False)
                for i in range(32)
            )
        )
        gaps: list[float] = []
        running_ = [
            asyncio.create_task(stream(client, url, f"Tell a long story {i}.", i, tokens, gaps))
            for i in range(3)
        ]
        await asyncio.sleep(1.0)  # the three are decoding
        before = len(gaps)
        long_prompt = "Summarise this. " + " ".join(f"item {i} is fine;" for i in range(500))
        admitted = await stream(client, url, long_prompt, 99, 8)
        during = gaps[before:]
        await asyncio.gather(*running_)
    return {
        "completed": sum(1 for r in many if r["status"] == 200 and r["done"]),
        "refused": sum(1 for r in many if r["status"] != 200),
        "long_prompt_ttft_s": round(admitted["ttft_s"], 2),
        "longest_gap_s": round(max(during, default=0.0), 3),
        "median_gap_s": round(statistics.median(gaps), 3) if gaps else None,
    }


def admission(args: argparse.Namespace) -> dict[str, Any]:
    model = model_path(args.model)
    MODEL[0] = str(model)
    cmds = servers(model, max(args.ctx, 4096), 4, os.cpu_count() or 2)
    cmds["cove"] += ["--max-queue", "64"]
    out: dict[str, Any] = {"model": model.name}
    for name, cmd in cmds.items():
        with running(cmd, port_of(cmd)) as url:
            out[name] = asyncio.run(admission_run(url, args.tokens))
            print(name, out[name], flush=True)
    return out


def fmt(r: dict[str, float]) -> str:
    return (f"{r['aggregate_tps']:.1f} tok/s, first token p50 {r['ttft_p50']:.2f} s "
            f"p95 {r['ttft_p95']:.2f} s ({r['tokens']:.0f} tokens)")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="starter")
    parser.add_argument("--clients", type=int, nargs="+", default=[1, 2, 4, 8, 16])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--tokens", type=int, default=128)
    parser.add_argument("--ctx", type=int, default=2048)
    parser.add_argument("--admission", action="store_true")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--repeat-penalty", type=float, default=1.0)
    args = parser.parse_args(argv)
    SAMPLING["repeat_penalty"] = args.repeat_penalty
    result = admission(args) if args.admission else compare(args)
    if args.json:
        print(json.dumps(result, indent=2))
    elif not args.admission:
        print(f"\n{result['model']}, {result['tokens']} tokens a client, medians of "
              f"{result['rounds']} rounds, sampling {SAMPLING}")  # fmt: skip
        print("| clients | llama-server tok/s | Cove tok/s | ratio | llama-server p50/p95 first "
              "token | Cove p50/p95 first token |")  # fmt: skip
        print("|---:|---:|---:|---:|---:|---:|")
        for row in result["rows"]:
            print(f"| {row['clients']} | {row['llama-server:aggregate_tps']:.1f} | "
                  f"{row['cove:aggregate_tps']:.1f} | {row['ratio_tps']:.2f}x | "
                  f"{row['llama-server:ttft_p50']:.2f} / {row['llama-server:ttft_p95']:.2f} s | "
                  f"{row['cove:ttft_p50']:.2f} / {row['cove:ttft_p95']:.2f} s |")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
