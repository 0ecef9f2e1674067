"""Cove's engine against llama.cpp's own ``llama-bench``, same model, same threads, same run.

Measures
  * prompt processing tokens/s: Cove evaluating a ~512-token prompt vs llama-bench pp512
  * decode tokens/s: Cove generating 128 tokens (sampling and detokenizing included) vs tg128
  * time to first token of a follow-up message in a ~1,500-token conversation vs the same
    message in a fresh chat (KV-cache reuse keeps it close to 1x)

Each figure is the median of ``--repeat`` runs; ratios are Cove / baseline.

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

from engine.backends.llama_cpp import LlamaCppModel  # noqa: E402
from engine.gguf import read_gguf  # noqa: E402
from engine.loader import current_resources  # noqa: E402
from engine.models import resolve_model  # noqa: E402
from engine.planner import make_plan  # noqa: E402
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


def run_llama_bench(binary: Path, model: Path, threads: int, repeat: int) -> dict[str, float]:
    cmd = [
        str(binary), "-m", str(model), "-t", str(threads), "-p", "512", "-n", "128",
        "-b", "512", "-ub", "512", "-fa", "1", "-r", str(repeat), "-o", "json",
    ]  # fmt: skip
    out = subprocess.run(cmd, capture_output=True, text=True, check=True)
    rows = json.loads(out.stdout)
    result: dict[str, float] = {}
    for row in rows:
        key = "pp512" if row["n_prompt"] == 512 and row["n_gen"] == 0 else "tg128"
        samples = row.get("samples_ts") or [row["avg_ts"]]
        result[key] = statistics.median(samples)
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


def cove_prompt_speed(model: LlamaCppModel, repeat: int) -> tuple[float, int]:
    text = prompt_of(model, 512)
    rates, n = [], 0
    for _ in range(repeat):
        model.reset()
        final = drain(model.complete(text, GenerationParams(temperature=0.0, max_tokens=1)))
        assert final.stats is not None
        rates.append(final.stats.prompt_tokens_per_s)
        n = final.stats.prompt_tokens
    return statistics.median(rates), n


def cove_decode_speed(model: LlamaCppModel, repeat: int) -> float:
    rates = []
    for _ in range(repeat):
        model.reset()
        final = drain(model.chat([ChatMessage("user", STORY)], GREEDY))
        assert final.stats is not None
        if final.stats.completion_tokens < 64:
            raise RuntimeError("the reply was too short to measure decoding")
        rates.append(final.stats.decode_tokens_per_s)
    return statistics.median(rates)


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


def cove_follow_up(model: LlamaCppModel, repeat: int) -> dict[str, float]:
    history = conversation(model, 1500)
    follow_up = ChatMessage("user", "Summarise what you told me in one sentence.")
    params = GenerationParams(temperature=0.0, max_tokens=8)
    long_ttft, fresh_ttft = [], []
    cached = evaluated = 0
    for _ in range(repeat):
        model.reset()
        drain(model.chat(history, GenerationParams(temperature=0.0, max_tokens=1)))
        final = drain(model.chat([*history, follow_up], params))
        assert final.stats is not None
        long_ttft.append(final.stats.ttft_s)
        cached = final.stats.cached_tokens
        evaluated = final.stats.prompt_tokens - cached
        model.reset()
        fresh = drain(model.chat([history[0], follow_up], params))
        assert fresh.stats is not None
        fresh_ttft.append(fresh.stats.ttft_s)
    return {
        "conversation_tokens": float(model.count_tokens([*history, follow_up])),
        "reused_tokens": float(cached),
        "evaluated_tokens": float(evaluated),
        "follow_up_ttft_s": statistics.median(long_ttft),
        "fresh_ttft_s": statistics.median(fresh_ttft),
    }


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

    baseline = run_llama_bench(find_llama_bench(args.llama_bench), path, threads, args.repeat)
    with LlamaCppModel(path, plan) as model:
        drain(model.complete("Warm up.", GenerationParams(temperature=0.0, max_tokens=4)))
        pp, pp_tokens = cove_prompt_speed(model, args.repeat)
        tg = cove_decode_speed(model, args.repeat)
        follow = cove_follow_up(model, args.repeat)
    result = {
        "model": path.name,
        "threads": threads,
        "repeat": args.repeat,
        "llama_bench_pp512_tps": round(baseline["pp512"], 1),
        "cove_prompt_tps": round(pp, 1),
        "cove_prompt_tokens": pp_tokens,
        "prompt_ratio": round(pp / baseline["pp512"], 3),
        "llama_bench_tg128_tps": round(baseline["tg128"], 1),
        "cove_decode_tps": round(tg, 1),
        "decode_ratio": round(tg / baseline["tg128"], 3),
        **{k: round(v, 4) for k, v in follow.items()},
        "follow_up_ratio": round(follow["follow_up_ttft_s"] / follow["fresh_ttft_s"], 3),
    }
    print(json.dumps(result, indent=2))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
