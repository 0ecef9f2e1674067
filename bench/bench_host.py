"""The speed a user gets: decoding through the engine host (client -> HTTP/SSE on loopback -> host
process), as ``cove chat`` runs it, against llama.cpp's own ``llama-bench`` tg128 and Cove's engine
in-process, same model, same threads, interleaved rounds in one run.

Per round: llama-bench tg128 (its own process), then the in-process engine, the host as it ships
and the host handing every token to the connection on its own (``--stream-flush-ms 0``), in
alternating order, each a fresh 128-token greedy reply. Reported (medians over the rounds):
  * decode tokens/s as the engine measures it (what ``cove chat --stats json`` prints), and as the
    caller sees it (between the first and last text chunk on the caller's clock);
  * time to first token;
  * CPU time per generated token of each process: the host, and the client reading the stream.

    python bench/bench_host.py [--model starter] [--repeat 7] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import psutil

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.bench_engine import find_llama_bench, run_llama_bench  # noqa: E402
from engine.backends.loader import load_model  # noqa: E402
from engine.client.local import LocalEngine  # noqa: E402
from engine.library.names import resolve_model  # noqa: E402
from engine.types import ChatMessage, Chunk, GenerationParams  # noqa: E402

CTX = 2048
TOKENS = 128
PARAMS = GenerationParams(temperature=0.0, repeat_penalty=1.0, max_tokens=TOKENS)


def prompt(i: int) -> list[ChatMessage]:
    return [
        ChatMessage("system", f"Session {i}. You are a helpful assistant."),
        ChatMessage("user", "Write a long, detailed story about a lighthouse keeper."),
    ]


def cpu_s(process: psutil.Process) -> float:
    times = process.cpu_times()
    return float(times.user + times.system)


def measure(stream: Iterable[Chunk], host: psutil.Process | None) -> dict[str, float]:
    me = psutil.Process()
    client_cpu, host_cpu = cpu_s(me), cpu_s(host) if host else 0.0
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
    if tokens < TOKENS // 2:
        raise RuntimeError(f"the reply was too short to measure decoding ({tokens} tokens)")
    return {
        "engine_tps": final.stats.decode_tokens_per_s,
        # Tokens after the first, over the time after the first text arrived.
        "caller_tps": (tokens - 1) / (last - first) if last > first else 0.0,
        "ttft_s": first - started,
        "tokens": tokens,
        "pieces": pieces,
        "client_cpu_ms_per_token": (cpu_s(me) - client_cpu) * 1000 / tokens,
        "host_cpu_ms_per_token": (cpu_s(host) - host_cpu) * 1000 / tokens if host else 0.0,
    }


def through(engine: LocalEngine) -> Callable[[list[ChatMessage]], Iterable[Chunk]]:
    return lambda msgs: engine.client.chat(msgs, PARAMS)


def run(model: str, repeat: int, llama_bench: str | None) -> dict[str, Any]:
    path = resolve_model(model)
    binary = find_llama_bench(llama_bench)
    loaded = load_model(model, ctx=CTX)
    threads = loaded.plan.threads
    # The host as it ships, and the same host handing every token to the connection on its own
    # (what it did before text was coalesced), for the comparison in one run.
    engines = {
        "host": LocalEngine.start(),
        "host_every_token": LocalEngine.start(extra_args=("--stream-flush-ms", "0")),
    }
    processes: dict[str, psutil.Process | None] = {"in_process": None}
    modes: dict[str, Callable[[list[ChatMessage]], Iterable[Chunk]]] = {
        "in_process": lambda msgs: loaded.model.chat(msgs, PARAMS),
    }
    for name, engine in engines.items():
        engine.client.load(model, ctx=CTX)
        assert engine.pid is not None
        processes[name] = psutil.Process(engine.pid)
        modes[name] = through(engine)
    rows: dict[str, list[dict[str, float]]] = {name: [] for name in modes}
    native: list[float] = []
    load_before = os.getloadavg()
    try:
        for name, fn in modes.items():  # warm-up: page in weights, fill caches
            measure(fn(prompt(-1)), processes[name])
        for i in range(repeat):
            native.append(run_llama_bench(binary, path, threads, prompt=0, gen=TOKENS)["tg128"])
            order = list(modes) if i % 2 == 0 else list(reversed(modes))
            for name in order:
                rows[name].append(measure(modes[name](prompt(i)), processes[name]))
    finally:
        for engine in engines.values():
            engine.stop()
        loaded.model.close()
    tg = statistics.median(native)
    summary: dict[str, Any] = {
        "model": path.name,
        "threads": threads,
        "repeat": repeat,
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "llama_bench_tg128_tps": round(tg, 1),
    }
    for name, runs in rows.items():
        med = {key: statistics.median(r[key] for r in runs) for key in runs[0]}
        summary[name] = {key: round(value, 4) for key, value in med.items()}
        summary[name]["engine_ratio"] = round(med["engine_tps"] / tg, 3)
        summary[name]["caller_ratio"] = round(med["caller_tps"] / tg, 3)
    summary["rounds"] = {"llama_bench_tg128_tps": native, **rows}
    return summary


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="starter")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--llama-bench", help="path to llama-bench (default: build or reuse one)")
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args()
    s = run(args.model, args.repeat, args.llama_bench)
    print(
        f"{s['model']}, {s['threads']} threads, {s['repeat']} interleaved rounds, medians; "
        f"load average {s['load_average_before'][0]} -> {s['load_average_after'][0]}"
    )
    print(f"llama-bench tg{TOKENS}: {s['llama_bench_tg128_tps']:.1f} tok/s")
    head = ("", "engine tok/s", "x bench", "caller tok/s", "x bench", "TTFT ms", "CPU ms/token")
    print("{:16} {:>13} {:>8} {:>13} {:>8} {:>8} {:>22}".format(*head))
    for name in ("in_process", "host", "host_every_token"):
        r = s[name]
        cpu = f"client {r['client_cpu_ms_per_token']:.2f}"
        if name != "in_process":
            cpu += f", host {r['host_cpu_ms_per_token']:.2f}"
        print(
            f"{name:16} {r['engine_tps']:>13.1f} {r['engine_ratio']:>8.3f} "
            f"{r['caller_tps']:>13.1f} {r['caller_ratio']:>8.3f} {r['ttft_s'] * 1000:>8.1f} "
            f"{cpu:>22}"
        )
    if args.json:
        args.json.write_text(json.dumps(s, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
