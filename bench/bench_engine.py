"""Cove's engine against llama.cpp's own ``llama-bench``, same model, same threads, same run.

Measures
  * prompt processing tokens/s: Cove evaluating a ~512-token prompt vs llama-bench pp512
  * decode tokens/s: Cove generating 128 tokens (sampling and detokenizing included) vs tg128
  * time to first token of a follow-up message in a ~1,500-token conversation vs the same
    message in a fresh chat (KV-cache reuse keeps it close to 1x)

Each figure is the median of ``--repeat`` rounds; ratios are Cove / baseline. Every round runs
llama-bench and then Cove back to back, so that a machine whose load drifts (a shared or busy
computer) disturbs both sides of a ratio alike instead of whichever happened to run second. The
native cost of the follow-up (llama-bench evaluating the same number of new tokens at the same
depth, against the fresh prompt at depth 0) is measured too: it is the floor Cove's ratio can reach.

    python bench/bench_engine.py [--model starter] [--threads N] [--repeat 5] [--json out.json]

``llama-bench`` is built once by ../shared/tools/build-llama-bench.sh (about 5 minutes on 2 cores;
cached) unless ``--llama-bench PATH`` or ``$COVE_LLAMA_BENCH`` points at one.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from engine.backends.llama.single import LlamaCppModel  # noqa: E402
from engine.backends.loader import current_resources  # noqa: E402
from engine.formats.gguf import read_gguf  # noqa: E402
from engine.library.names import resolve_model  # noqa: E402
from engine.planner.gguf import make_plan  # noqa: E402
from engine.types import ChatMessage, Chunk, GenerationParams  # noqa: E402

BUILD_SCRIPT = ROOT.parent / "shared" / "tools" / "build-llama-bench.sh"
CTX = 4096
GREEDY = GenerationParams(temperature=0.0, repeat_penalty=1.0, max_tokens=128)
STORY = "Write a long, detailed story about a lighthouse keeper who finds a map."


def find_llama_bench(explicit: str | None) -> Path:
    if explicit:
        return Path(explicit)
    if os.environ.get("COVE_LLAMA_BENCH"):
        return Path(os.environ["COVE_LLAMA_BENCH"])
    out = subprocess.run(
        ["bash", str(BUILD_SCRIPT), sys.executable], capture_output=True, text=True, check=True
    )
    return Path(out.stdout.strip().splitlines()[-1]) / "llama-bench"


def run_llama_bench(
    binary: Path, model: Path, threads: int, *, prompt: int, gen: int, depth: int = 0
) -> dict[str, float]:
    """One llama-bench run (after its own warm-up) of ``pp{prompt}`` and/or ``tg{gen}`` at
    ``depth`` tokens already in the KV cache; tokens/s keyed by test name."""
    cmd = [
        str(binary), "-m", str(model), "-t", str(threads), "-p", str(prompt), "-n", str(gen),
        "-d", str(depth), "-b", "512", "-ub", "512", "-fa", "1", "-r", "1", "-o", "json",
    ]  # fmt: skip
    out = subprocess.run(cmd, capture_output=True, text=True, check=True)
    result: dict[str, float] = {}
    for row in json.loads(out.stdout):
        name = f"pp{row['n_prompt']}" if row["n_gen"] == 0 else f"tg{row['n_gen']}"
        samples = row.get("samples_ts") or [row["avg_ts"]]
        result[name] = statistics.median(samples)
    return result


def drain(chunks: Any) -> Chunk:
    final: Chunk | None = None
    for chunk in chunks:
        if chunk.is_terminal:
            final = chunk
    assert final is not None and final.stats is not None, "stream without a terminal chunk"
    if final.finish_reason == "error":
        raise RuntimeError(final.error)
    return final


def prompt_of(model: LlamaCppModel, n_tokens: int) -> str:
    """Plain text that tokenizes to about ``n_tokens`` tokens."""
    text = " ".join(f"word{i} is followed by another word." for i in range(n_tokens))
    while len(model.tokenize(text)) > n_tokens:
        text = text[: int(len(text) * 0.97)]
    return text


def cove_prompt_speed(model: LlamaCppModel, text: str) -> tuple[float, int]:
    model.reset()
    final = drain(model.complete(text, GenerationParams(temperature=0.0, max_tokens=1)))
    assert final.stats is not None
    return final.stats.prompt_tokens_per_s, final.stats.prompt_tokens


def cove_decode_speed(model: LlamaCppModel) -> float:
    model.reset()
    final = drain(model.chat([ChatMessage("user", STORY)], GREEDY))
    assert final.stats is not None
    if final.stats.completion_tokens < 64:
        raise RuntimeError("the reply was too short to measure decoding")
    return final.stats.decode_tokens_per_s


def conversation(model: LlamaCppModel, n_tokens: int) -> list[ChatMessage]:
    msgs = [ChatMessage("system", "You are a helpful assistant.")]
    i = 0
    while model.count_tokens(msgs) < n_tokens:
        msgs.append(ChatMessage("user", f"Tell me fact number {i} about the ocean."))
        msgs.append(
            ChatMessage(
                "assistant",
                f"Fact {i}: the ocean covers most of the planet, holds most of its water, "
                "and its currents carry heat from the equator towards the poles, which shapes "
                "the weather on every continent.",
            )
        )
        i += 1
    return msgs


def cove_follow_up(model: LlamaCppModel, history: list[ChatMessage]) -> dict[str, float]:
    """TTFT of a follow-up in the long conversation (its history already cached, as after the
    previous reply) and of the same message in a fresh chat."""
    follow_up = ChatMessage("user", "Summarise what you told me in one sentence.")
    params = GenerationParams(temperature=0.0, max_tokens=8)
    model.reset()
    drain(model.chat(history, GenerationParams(temperature=0.0, max_tokens=1)))
    final = drain(model.chat([*history, follow_up], params))
    assert final.stats is not None
    model.reset()
    fresh = drain(model.chat([history[0], follow_up], params))
    assert fresh.stats is not None
    return {
        "conversation_tokens": float(final.stats.prompt_tokens),
        "reused_tokens": float(final.stats.cached_tokens),
        "evaluated_tokens": float(final.stats.prompt_tokens - final.stats.cached_tokens),
        "fresh_tokens": float(fresh.stats.prompt_tokens),
        "follow_up_ttft_s": final.stats.ttft_s,
        "fresh_ttft_s": fresh.stats.ttft_s,
    }


def median_of(rows: list[dict[str, float]], key: str) -> float:
    return statistics.median(row[key] for row in rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", default="starter")
    parser.add_argument("--threads", type=int)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--llama-bench")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()

    path = resolve_model(args.model)
    resources = current_resources()
    plan = make_plan(read_gguf(path), resources, requested_ctx=CTX)
    if args.threads:
        from dataclasses import replace

        plan = replace(plan, threads=args.threads)
    threads = plan.threads

    binary = find_llama_bench(args.llama_bench)
    load_before = os.getloadavg()
    rounds: list[dict[str, float]] = []
    with LlamaCppModel(path, plan) as model:
        drain(model.complete("Warm up.", GenerationParams(temperature=0.0, max_tokens=4)))
        text = prompt_of(model, 512)
        history = conversation(model, 1500)
        for _ in range(args.repeat):
            row = run_llama_bench(binary, path, threads, prompt=512, gen=128)
            row["cove_pp"], row["cove_prompt_tokens"] = cove_prompt_speed(model, text)
            row["cove_tg"] = cove_decode_speed(model)
            row.update(cove_follow_up(model, history))
            # The same work natively: the new tokens at the conversation's depth, and the fresh
            # prompt at depth 0 (prompt tokens / (tokens/s) = seconds).
            new, depth = int(row["evaluated_tokens"]), int(row["reused_tokens"])
            fresh = int(row["fresh_tokens"])
            deep = run_llama_bench(binary, path, threads, prompt=new, gen=0, depth=depth)
            shallow = run_llama_bench(binary, path, threads, prompt=fresh, gen=0)
            row["native_follow_up_s"] = new / deep[f"pp{new}"]
            row["native_fresh_s"] = fresh / shallow[f"pp{fresh}"]
            rounds.append(row)
    load_after = os.getloadavg()

    pp_native, pp = median_of(rounds, "pp512"), median_of(rounds, "cove_pp")
    tg_native, tg = median_of(rounds, "tg128"), median_of(rounds, "cove_tg")
    follow, fresh_s = median_of(rounds, "follow_up_ttft_s"), median_of(rounds, "fresh_ttft_s")
    native_follow = median_of(rounds, "native_follow_up_s")
    native_fresh = median_of(rounds, "native_fresh_s")
    result = {
        "model": path.name,
        "threads": threads,
        "repeat": args.repeat,
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in load_after],
        "llama_bench_pp512_tps": round(pp_native, 1),
        "cove_prompt_tps": round(pp, 1),
        "cove_prompt_tokens": int(median_of(rounds, "cove_prompt_tokens")),
        "prompt_ratio": round(pp / pp_native, 3),
        "llama_bench_tg128_tps": round(tg_native, 1),
        "cove_decode_tps": round(tg, 1),
        "decode_ratio": round(tg / tg_native, 3),
        "conversation_tokens": int(median_of(rounds, "conversation_tokens")),
        "reused_tokens": int(median_of(rounds, "reused_tokens")),
        "evaluated_tokens": int(median_of(rounds, "evaluated_tokens")),
        "fresh_tokens": int(median_of(rounds, "fresh_tokens")),
        "follow_up_ttft_s": round(follow, 4),
        "fresh_ttft_s": round(fresh_s, 4),
        "follow_up_ratio": round(follow / fresh_s, 3),
        "llama_bench_follow_up_s": round(native_follow, 4),
        "llama_bench_fresh_s": round(native_fresh, 4),
        "llama_bench_follow_up_ratio": round(native_follow / native_fresh, 3),
        "rounds": rounds,
    }
    print(json.dumps({k: v for k, v in result.items() if k != "rounds"}, indent=2))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
