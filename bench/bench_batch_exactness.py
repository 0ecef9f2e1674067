"""How often a greedy reply changes with the way it is computed, on real models: a reply beside
seven others in one batch (continuous batching) against the same reply alone, a reply with
speculation "auto" (guesses checked in batches wherever they pay) against plain decoding, and,
as the yardstick of what rounding alone does, plain decoding on 1 thread against 2.

    .venv/bin/python bench/bench_batch_exactness.py [--model starter] [--prompts 16]
        [--tokens 64] [--json]

A reply "differs" when its token ids are not the same; the first differing token says how far
the two agreed. Every difference comes from a near-tie between two tokens flipped by a sum
taken in another order; neither side is more right than the other.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

TOPICS = (
    "a lighthouse keeper", "the history of bread", "how a bicycle gear works", "a fox in winter",
    "why the sky is blue", "a recipe for soup", "the rules of chess", "a letter to a neighbour",
    "how vaccines work", "a trip to the mountains", "sorting a list in Python", "a rainy day",
    "the life of a bee", "how to tie a knot", "a short poem about the sea", "a job interview",
)  # fmt: skip


def prompts(n: int) -> list[str]:
    return [f"Write a few sentences about {TOPICS[i % len(TOPICS)]}." for i in range(n)]


def tokens_of(model: Any, text: str, params: Any) -> list[int]:
    from engine.types import ChatMessage

    out = []
    for chunk in model.chat([ChatMessage("user", text)], params):
        out.append(chunk.text)
    ids: list[int] = model.tokenize("".join(out))
    return ids


def first_difference(a: list[int], b: list[int]) -> int | None:
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return i
    return None if len(a) == len(b) else min(len(a), len(b))


def compare(pairs: list[tuple[list[int], list[int]]]) -> dict[str, Any]:
    firsts = [first_difference(a, b) for a, b in pairs]
    differing = [f for f in firsts if f is not None]
    return {
        "replies": len(pairs),
        "differ": len(differing),
        "first_difference_median": statistics.median(differing) if differing else None,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="starter")
    parser.add_argument("--prompts", type=int, default=16)
    parser.add_argument("--tokens", type=int, default=64)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    from engine.backends.llama import LlamaCppBackend
    from engine.backends.loader import plan_model
    from engine.planner.plan import with_parallel
    from engine.types import GenerationParams

    path, _, plan = plan_model(args.model, ctx=2048)
    texts = prompts(args.prompts)
    plain = GenerationParams(temperature=0.0, max_tokens=args.tokens, speculation="off")
    result: dict[str, Any] = {"model": path.name, "tokens": args.tokens}

    # Beside seven others: the parallel model, alone and then eight at once.
    model = LlamaCppBackend().load(path, with_parallel(plan, 8))
    try:
        alone = [tokens_of(model, t, plain) for t in texts]
        together: list[list[int]] = [[] for _ in texts]
        for start in range(0, len(texts), 8):

            def run(i: int) -> None:
                together[i] = tokens_of(model, texts[i], plain)

            threads = [threading.Thread(target=run, args=(i,))
                       for i in range(start, min(start + 8, len(texts)))]  # fmt: skip
            for t in threads:
                t.start()
            for t in threads:
                t.join()
        result["beside_7_others"] = compare(list(zip(alone, together, strict=True)))
    finally:
        model.close()

    # Speculation "auto" against plain decoding, and 1 thread against 2, one sequence each.
    single = LlamaCppBackend().load(path, plan)
    try:
        reference = [tokens_of(single, t, plain) for t in texts]
        guessed = [tokens_of(single, t, replace(plain, speculation="auto")) for t in texts]
        result["speculation_auto"] = compare(list(zip(reference, guessed, strict=True)))
    finally:
        single.close()
    one = LlamaCppBackend().load(path, replace(plan, threads=1))
    try:
        threaded = [tokens_of(one, t, plain) for t in texts]
        result["one_thread_against_two"] = compare(list(zip(reference, threaded, strict=True)))
    finally:
        one.close()
    print(json.dumps(result, indent=2) if args.json else result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
