"""Document answers end to end: for every question of a set, what a person asking it in Cove gets,
"Not in your documents." or an answer, through the same path as the window (the five best
passages, the retrieval-side check of engine/documents/answerable.py, then the grounded prompt
to a real chat model on a real engine host).

Reported per set and model: the share of unanswerable questions answered "Not in your
documents." (by the retrieval check, by the model itself, both), and the share of answerable
questions that still get an answer. Replies are cut at --max-tokens: whether a model declines
shows in its first words.

    python bench/eval_answers.py [--set real|heldout|generated|all] [--model starter|PATH]
                                 [--json out]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.embed_cache import CachedEncoder  # noqa: E402
from bench.eval_retrieval import ENCODER, generated_set, open_index, real_set  # noqa: E402
from engine.documents.answer import build_messages, said_not_found  # noqa: E402
from engine.documents.answerable import judge  # noqa: E402
from engine.documents.embeddings import EmbeddingModel  # noqa: E402
from engine.types import GenerationParams  # noqa: E402

TOP_K = 5  # as the window asks (app/chat/document_answers.py)


def reply(client: Any, messages: Any, max_tokens: int) -> str:
    params = GenerationParams(temperature=0.0, max_tokens=max_tokens)
    parts = [chunk.text for chunk in client.chat(messages, params) if chunk.text]
    return "".join(parts).strip()


def evaluate(
    name: str, encoder: Any, client: Any, n_ctx: int, max_tokens: int, limit: int | None
) -> dict[str, Any]:
    root, questions = generated_set() if name == "generated" else real_set(name)
    if limit:
        answerable = [q for q in questions if q["answers"]][:limit]
        questions = answerable + [q for q in questions if not q["answers"]][:limit]
    db, retriever = open_index(name, root, encoder)
    rows: list[dict[str, Any]] = []
    seconds: list[float] = []
    try:
        for q in questions:
            sources = retriever.search(q["question"], TOP_K)
            verdict = judge(retriever, q["question"], sources)
            row: dict[str, Any] = {"id": q["id"], "answerable": bool(q["answers"])}
            if not verdict.answerable:
                row.update(outcome="not_found", by="retrieval", reply=None)
            else:
                started = time.perf_counter()
                text = reply(client, build_messages(q["question"], sources, n_ctx), max_tokens)
                seconds.append(time.perf_counter() - started)
                declined = said_not_found(text)
                row.update(
                    outcome="not_found" if declined else "answer",
                    by="model" if declined else None,
                    reply=text,
                )
            rows.append(row)
            print(
                f"  {row['id']:6} {row['outcome']:9} {row['by'] or '':9} "
                f"{(row['reply'] or '')[:70]!r}",
                flush=True,
            )
    finally:
        db.close()
    unanswerable = [r for r in rows if not r["answerable"]]
    answerable = [r for r in rows if r["answerable"]]

    def share(items: list[dict[str, Any]], **match: Any) -> float:
        hits = [r for r in items if all(r.get(k) == v for k, v in match.items())]
        return len(hits) / max(len(items), 1)

    return {
        "set": name,
        "unanswerable": len(unanswerable),
        "unanswerable_not_found": share(unanswerable, outcome="not_found"),
        "unanswerable_by_retrieval": share(unanswerable, by="retrieval"),
        "unanswerable_by_model": share(unanswerable, by="model"),
        "answerable": len(answerable),
        "answerable_answered": share(answerable, outcome="answer"),
        "answerable_declined_by_model": share(answerable, by="model"),
        "median_reply_s": statistics.median(seconds) if seconds else None,
        "rows": rows,
    }


def main() -> int:
    from engine.client.local import LocalEngine

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--set", choices=("generated", "real", "heldout", "all"), default="all")
    parser.add_argument("--model", default="starter", help="a catalog id, a name, or a path")
    parser.add_argument("--max-tokens", type=int, default=48)
    parser.add_argument("--limit", type=int, help="at most this many of each kind of question")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    names = ("generated", "real", "heldout") if args.set == "all" else (args.set,)
    report: dict[str, Any] = {"model": args.model, "max_tokens": args.max_tokens, "sets": {}}
    engine = LocalEngine.start()
    try:
        status = engine.client.load(args.model)
        n_ctx = status.n_ctx or 2048
        report["model_loaded"] = status.model
        report["n_ctx"] = n_ctx
        with EmbeddingModel.load(ENCODER) as model:
            encoder = CachedEncoder(model)
            for name in names:
                print(f"== {name} ({status.model}) ==", flush=True)
                result = evaluate(name, encoder, engine.client, n_ctx, args.max_tokens, args.limit)
                report["sets"][name] = result
                print(
                    f"unanswerable -> not in your documents: {result['unanswerable_not_found']:.2f}"
                    f" of {result['unanswerable']} (retrieval check "
                    f"{result['unanswerable_by_retrieval']:.2f}, model "
                    f"{result['unanswerable_by_model']:.2f}); answerable answered: "
                    f"{result['answerable_answered']:.2f} of {result['answerable']} (model "
                    f"declined {result['answerable_declined_by_model']:.2f})",
                    flush=True,
                )
    finally:
        engine.stop()
        engine.client.close()
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
