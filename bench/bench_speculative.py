"""Prompt-lookup speculation against plain decoding, in the same process, interleaved.

Three kinds of reply, each asked with speculation off and on in alternating order:

- documents: questions of tests/support/corpus answered from the five passages the window's
  retrieval finds (the grounded prompt of engine/documents/answer.py);
- code: "rewrite this function with one change" on functions of Cove's own source;
- chat: open questions with nothing to copy.

Reported per kind and model: median decode rate of each mode, the median of the per-prompt
ratios, the share of guesses kept, and how many replies differed from plain decoding (greedy).
``auto`` is what Cove does by default: speculation only where this build evaluates a batch bit
for bit as single steps. ``on`` forces it where a batch rounds differently, to show the speed
left there and what it costs in identical output.

    python bench/bench_speculative.py [--model starter|PATH] [--modes off,auto] [--json OUT]
"""

from __future__ import annotations

import argparse
import ast
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from engine.types import ChatMessage, GenerationParams, Speculation  # noqa: E402

N_CTX = 4096
TOP_K = 5
CODE_SOURCES = (
    ("engine/generation/state_cache.py", ("_common_prefix", "_read_header", "_is_prefix")),
    ("engine/generation/speculation.py", ("propose", "length", "timed_batch")),
    ("engine/units.py", ()),
)
RENAMES = ("result", "value", "count", "items", "data", "n")
CHAT = (
    "Tell me a short story about a lighthouse keeper.",
    "What are three good habits for getting better sleep?",
    "Explain why the sky is blue to a ten-year-old.",
    "Write a friendly note inviting a neighbour to dinner.",
    "What should I pack for a weekend hiking trip?",
    "Give me some ideas for a rainy afternoon with children.",
)


def document_prompts(limit: int) -> list[list[ChatMessage]]:
    from bench.embed_cache import CachedEncoder
    from bench.eval_retrieval import ENCODER, generated_set, open_index
    from engine.documents.answer import build_messages
    from engine.documents.embeddings import EmbeddingModel

    root, questions = generated_set()
    answerable = [q for q in questions if q["answers"]][:limit]
    with EmbeddingModel.load(ENCODER) as model:
        db, retriever = open_index("generated", root, CachedEncoder(model))
        try:
            return [
                build_messages(q["question"], retriever.search(q["question"], TOP_K), N_CTX)
                for q in answerable
            ]
        finally:
            db.close()


def code_prompts(limit: int) -> list[list[ChatMessage]]:
    prompts: list[list[ChatMessage]] = []
    for rel, wanted in CODE_SOURCES:
        source = (ROOT / rel).read_text(encoding="utf-8")
        for node in ast.walk(ast.parse(source)):
            if not isinstance(node, ast.FunctionDef) or (wanted and node.name not in wanted):
                continue
            code = ast.get_source_segment(source, node) or ""
            if not 150 < len(code) < 2500:
                continue
            old = next((a.arg for a in node.args.args if a.arg != "self"), None)
            if old is None:
                continue
            new = next(n for n in RENAMES if n != old and n not in code)
            ask = (
                f"Rewrite this Python function with one change: rename the parameter `{old}` "
                f"to `{new}`. Keep everything else exactly as it is. Reply with the code "
                f"only.\n\n```python\n{code}\n```"
            )
            prompts.append([ChatMessage("user", ask)])
    return prompts[:limit]


def chat_prompts(limit: int) -> list[list[ChatMessage]]:
    return [[ChatMessage("user", q)] for q in CHAT[:limit]]


def run(
    model: Any, messages: list[ChatMessage], mode: Speculation, max_tokens: int
) -> dict[str, Any]:
    model.reset()
    params = GenerationParams(temperature=0.0, max_tokens=max_tokens, speculation=mode)
    text: list[str] = []
    first = end = None
    final = None
    for chunk in model.chat(messages, params):
        now = time.perf_counter()
        if chunk.is_terminal:
            final = chunk
            continue
        if first is None:
            first = now
        end = now
        text.append(chunk.text)
    assert final is not None and final.stats is not None, "no terminal chunk"
    s = final.stats
    return {
        "text": "".join(text),
        "tokens": s.completion_tokens,
        "rate": s.decode_tokens_per_s,
        "decode_s": (end - first) if first is not None and end is not None else 0.0,
        "draft": s.draft_tokens,
        "accepted": s.accepted_tokens,
    }


def measure(
    model: Any, kind: str, prompts: list[list[ChatMessage]], modes: list[Speculation],
    max_tokens: int, rounds: int,
) -> dict[str, Any]:  # fmt: skip
    rows: dict[str, list[dict[str, Any]]] = {m: [] for m in modes}
    for r in range(rounds):
        for messages in prompts:
            order = modes if r % 2 == 0 else list(reversed(modes))
            for mode in order:
                rows[mode].append(run(model, messages, mode, max_tokens))
    base = rows["off"]
    out: dict[str, Any] = {"prompts": len(prompts), "rounds": rounds}
    for mode in modes:
        got = rows[mode]
        ratios = [g["rate"] / b["rate"] for g, b in zip(got, base, strict=True) if b["rate"] > 0]
        drafted = sum(g["draft"] for g in got)
        out[mode] = {
            "median_tokens_per_s": round(statistics.median(g["rate"] for g in got), 2),
            "median_ratio": round(statistics.median(ratios), 3) if ratios else None,
            "draft_tokens": drafted,
            "accepted_tokens": sum(g["accepted"] for g in got),
            "acceptance": round(sum(g["accepted"] for g in got) / drafted, 3) if drafted else None,
            "differs_from_off": sum(g["text"] != b["text"] for g, b in zip(got, base, strict=True)),
            "median_reply_tokens": statistics.median(g["tokens"] for g in got),
        }
    print(f"{kind}: " + json.dumps({m: out[m] for m in modes}), flush=True)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", default="starter")
    parser.add_argument("--modes", default="off,auto")
    parser.add_argument("--prompts", type=int, default=6, help="per kind")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--max-tokens", type=int, default=192)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    modes: list[Speculation] = [m for m in args.modes.split(",") if m in ("off", "auto", "on")]
    if "off" not in modes:
        modes.insert(0, "off")

    from engine.backends import backend_for
    from engine.backends.loader import plan_model

    path, _info, plan = plan_model(args.model, ctx=N_CTX)
    model: Any = backend_for(path).load(path, plan)
    kinds = {
        "documents": document_prompts(args.prompts),
        "code": code_prompts(args.prompts),
        "chat": chat_prompts(args.prompts),
    }
    result: dict[str, Any] = {
        "model": path.name,
        "exact_cells": model.capabilities.exact_cells,
        "threads": plan.threads,
        "max_tokens": args.max_tokens,
        "kinds": {},
    }
    exact = result["exact_cells"]
    print(f"{path.name}: batches bit-exact here up to {exact} cached tokens", flush=True)
    try:
        for kind, prompts in kinds.items():
            result["kinds"][kind] = measure(
                model, kind, prompts, modes, args.max_tokens, args.rounds
            )
    finally:
        model.close()
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
