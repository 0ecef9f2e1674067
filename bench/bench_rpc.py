"""One model split across machines (llama.cpp RPC through Cove's TLS tunnels) against the same
model unsplit, in the same run, on loopback.

Two ``cove worker`` processes are started on this machine (one CPU thread each); the model is
loaded unsplit, then split with one worker, then with both (layers dealt by free memory, as
``cove serve --worker`` deals them), and each replies ``--reply`` tokens at temperature 0 to the
same prompt, ``--repeat`` times (medians). The bytes through the tunnels are counted: per token
generated (a reply's bytes less those of reading the prompt alone, per extra token) and to load
the model. llama.cpp's own ``llama-bench`` (unsplit, tg at the same length) is the baseline.

On one machine the split cannot be faster: the workers share this machine's cores and memory
bandwidth with it. What this measures is the cost of the protocol and the tunnels; across real
machines each adds its own memory bandwidth, and the network's latency is added per layer hop.

    python bench/bench_rpc.py [--repeat 3] [--reply 64] [--json out.json] [--no-llama-bench]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import statistics
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.bench_engine import find_llama_bench, run_llama_bench  # noqa: E402
from bench.bench_predict import models  # noqa: E402
from engine.types import GenerationParams, GenerationStats  # noqa: E402
from tests.support.remote_process import CoveProcess, free_port  # noqa: E402

PROMPT = "Write a long story about a lighthouse keeper and the sea. " * 4
CTX = 2048


def start_worker(folder: Path) -> tuple[CoveProcess, str]:
    """A ``cove worker`` on loopback with one thread, and its ``HOST:PORT=KEY``."""
    port = free_port()
    proc = CoveProcess(folder, "worker", "--host", "127.0.0.1", "--port", str(port),
                       "--threads", "1")  # fmt: skip
    key = proc.value("key:")
    proc.wait_for("listening:")
    return proc, f"127.0.0.1:{port}={key}"


def reply(model: Any, tokens: int) -> GenerationStats:
    from engine.types import ChatMessage

    params = GenerationParams(temperature=0.0, max_tokens=tokens, speculation="off")
    final: Any = None
    model.reset()
    for chunk in model.chat([ChatMessage("user", PROMPT)], params, threading.Event()):
        if chunk.is_terminal:
            final = chunk
    assert final is not None and final.stats is not None, final
    stats: GenerationStats = final.stats
    return stats


def measure(path: Path, plan: Any, forwards: list[Any], repeat: int, n: int) -> dict[str, float]:
    from engine.backends import backend_for

    def moved() -> int:
        return sum(int(f.sent + f.received) for f in forwards)

    before = moved()
    model: Any = backend_for(path).load(path, plan)
    loaded = moved() - before
    rows = []
    try:
        for _ in range(repeat):
            start = moved()
            reply(model, 1)
            prompt_only = moved() - start
            start = moved()
            stats = reply(model, n)
            per_token = (moved() - start - prompt_only) / max(stats.completion_tokens - 1, 1)
            rows.append(
                {
                    "decode_tps": stats.decode_tokens_per_s,
                    "prompt_tps": stats.prompt_tokens_per_s,
                    "bytes_per_token": per_token,
                    "tokens": stats.completion_tokens,
                }
            )
    finally:
        model.close()
    result = {k: statistics.median(r[k] for r in rows) for k in rows[0]}
    result["load_bytes"] = loaded
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--reply", type=int, default=64)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--no-llama-bench", action="store_true")
    parser.add_argument("--llama-bench", metavar="PATH")
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="cove-bench-rpc-"))
    os.environ["COVE_DATA_DIR"] = str(home / "host")

    from engine.backends.loader import current_resources, plan_model
    from engine.native.rpc import add_server
    from engine.remote.pins import trust
    from engine.remote.split import WorkerShare, plan_with_workers
    from engine.remote.tunnel import Forward, Loop, WorkerAddress, worker_info
    from engine.remote.worker import RpcChild

    procs, shares, forwards = [], [], []
    direct: RpcChild | None = None
    loop = Loop()
    try:
        for name in ("left", "right"):
            proc, spec = start_worker(home / name)
            procs.append(proc)
            w = WorkerAddress.parse(spec)
            trusted = trust(w.host, w.port)
            info = worker_info(w, trusted)
            forward = Forward(w, trusted, lambda where, what: print("lost", where, what))
            loop.run(forward.start()).result()
            add_server(forward.endpoint)
            forwards.append(forward)
            shares.append(WorkerShare.from_info(forward.endpoint, w.address, info))
        # llama.cpp's RPC server on loopback with nothing in between (the third RPC device).
        direct = RpcChild(threads=1)
        add_server(f"127.0.0.1:{direct.ensure()}")
        binary = None if args.no_llama_bench else find_llama_bench(args.llama_bench)
        results = []
        for label, path in models():
            if path.suffix != ".gguf":
                continue
            _p, _info, plain = plan_model(str(path), ctx=CTX)
            row: dict[str, Any] = {"model": label}
            row["unsplit"] = measure(path, plain, forwards, args.repeat, args.reply)
            for k in (1, 2):
                plan = plan_with_workers(str(path), CTX, current_resources(), shares[:k])
                row[f"split_{k}"] = measure(path, plan, forwards[:k], args.repeat, args.reply)
                row[f"split_{k}"]["layers"] = list(plan.tensor_split)
            # The same split as with one worker, to llama.cpp's RPC server directly (no TLS, no
            # tunnels): what the tunnels cost.
            plan = plan_with_workers(str(path), CTX, current_resources(), shares[:1])
            direct_plan = dataclasses.replace(plan, tensor_split=(0, 0, *plan.tensor_split))
            row["direct_1"] = measure(path, direct_plan, [], args.repeat, args.reply)
            row["direct_1"]["layers"] = list(plan.tensor_split)
            if binary is not None:
                base = run_llama_bench(binary, path, plain.threads, prompt=0, gen=args.reply)
                row["llama_bench_tg"] = next(iter(base.values()))
            results.append(row)
            print(json.dumps(row), flush=True)
    finally:
        for proc in procs:
            proc.stop()
        if direct is not None:
            direct.stop()
        loop.stop()
    print()
    print("| model | how | decode tok/s | vs unsplit | prompt tok/s | bytes per token | "
          "loaded through tunnels | llama-bench tg (unsplit) |")  # fmt: skip
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for row in results:
        plain_tps = row["unsplit"]["decode_tps"]
        for how, words in (("unsplit", "unsplit"), ("split_1", "1 worker"),
                           ("split_2", "2 workers"),
                           ("direct_1", "1 RPC server, no tunnel")):  # fmt: skip
            m = row[how]
            layers = f" ({'+'.join(map(str, m['layers']))} layers)" if "layers" in m else ""
            print(
                f"| {row['model']} | {words}{layers} | {m['decode_tps']:.1f} | "
                f"{m['decode_tps'] / plain_tps:.2f} | {m['prompt_tps']:.0f} | "
                f"{m['bytes_per_token'] / 1024:.1f} KiB | {m['load_bytes'] / 2**20:.0f} MiB | "
                f"{row.get('llama_bench_tg', 0):.1f} |"
            )
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
