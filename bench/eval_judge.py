"""Can the loaded chat model tell whether the best passages answer a question? For every
question of a set that passes the retrieval check (engine/documents/answerable.py), the model is
asked about each of the best passages: "Does this passage answer the question? yes or no", and
the log-probabilities of its first token give a score (log P(yes) - log P(no)); a question's
score is its best passage's. Reported on both sets, at a range of cut-offs: the share of
unanswerable questions the cut-off would turn into "Not in your documents." beside the share of
answerable ones it would wrongly refuse, so that no cut-off is chosen on one set alone.

    python bench/eval_judge.py [--set real|generated|all] [--model starter|PATH] [--passages 3]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.embed_cache import CachedEncoder  # noqa: E402
from bench.eval_retrieval import ENCODER, generated_set, open_index, real_set  # noqa: E402
from engine.documents.answerable import judge  # noqa: E402
from engine.documents.embeddings import EmbeddingModel  # noqa: E402

TOP_K = 5
PASSAGE_CHARS = 1200
CUTS = (-6.0, -4.0, -2.0, -1.0, 0.0, 1.0, 2.0)
ASK = (
    "Passage:\n{passage}\n\nQuestion: {question}\n\n"
    "Does the passage contain the answer to the question? Answer with one word: yes or no."
)


def yes_score(base: str, headers: dict[str, str], model: str, question: str, passage: str) -> float:
    body = {
        "model": model,
        "messages": [
            {
                "role": "user",
                "content": ASK.format(passage=passage[:PASSAGE_CHARS], question=question),
            }
        ],
        "max_tokens": 1,
        "temperature": 0.0,
        "logprobs": True,
        "top_logprobs": 20,
    }
    reply = httpx.post(f"{base}/chat/completions", json=body, headers=headers, timeout=600)
    reply.raise_for_status()
    content = reply.json()["choices"][0]["logprobs"]["content"]
    yes = no = 0.0
    for alt in content[0]["top_logprobs"] if content else []:
        word = alt["token"].strip().lower()
        if word in ("yes", "y"):
            yes += math.exp(alt["logprob"])
        elif word in ("no", "n"):
            no += math.exp(alt["logprob"])
    return math.log(max(yes, 1e-9)) - math.log(max(no, 1e-9))


def evaluate(name: str, encoder: Any, base: str, headers: dict[str, str], model: str,
             passages: int) -> dict[str, Any]:  # fmt: skip
    root, questions = generated_set() if name == "generated" else real_set()
    db, retriever = open_index(name, root, encoder)
    rows = []
    try:
        for q in questions:
            sources = retriever.search(q["question"], TOP_K)
            verdict = judge(retriever, q["question"], sources)
            row: dict[str, Any] = {"id": q["id"], "answerable": bool(q["answers"])}
            if not verdict.answerable:
                row["checked_out"] = True
            else:
                started = time.perf_counter()
                scores = [yes_score(base, headers, model, q["question"], s.text)
                          for s in sources[:passages]]  # fmt: skip
                row.update(checked_out=False, score=max(scores), scores=scores,
                           seconds=time.perf_counter() - started)  # fmt: skip
            rows.append(row)
            print(
                f"  {row['id']:6} {row['answerable']!s:5} {row.get('score', 'check')}", flush=True
            )
    finally:
        db.close()
    unanswerable = [r for r in rows if not r["answerable"]]
    answerable = [r for r in rows if r["answerable"]]
    table = []
    for cut in CUTS:
        caught = sum(r["checked_out"] or r["score"] < cut for r in unanswerable)
        refused = sum(r["checked_out"] or r["score"] < cut for r in answerable)
        table.append({"cut": cut, "unanswerable_caught": round(caught / len(unanswerable), 3),
                      "answerable_refused": round(refused / len(answerable), 3)})  # fmt: skip
    return {"set": name, "table": table, "rows": rows}


def main() -> int:
    from engine.client.local import LocalEngine

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--set", choices=("generated", "real", "all"), default="all")
    parser.add_argument("--model", default="starter")
    parser.add_argument("--passages", type=int, default=3)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    names = ("generated", "real") if args.set == "all" else (args.set,)
    report: dict[str, Any] = {"model": args.model, "passages": args.passages, "sets": {}}
    engine = LocalEngine.start()
    try:
        status = engine.client.load(args.model)
        assert status.model is not None
        headers = {"Authorization": f"Bearer {engine._token}"}
        with EmbeddingModel.load(ENCODER) as loaded:
            encoder = CachedEncoder(loaded)
            for name in names:
                result = evaluate(name, encoder, engine.base_url, headers, status.model,
                                  args.passages)  # fmt: skip
                report["sets"][name] = result
                print(f"== {name} ({status.model})")
                for line in result["table"]:
                    print(f"  cut {line['cut']:5.1f}: unanswerable caught "
                          f"{line['unanswerable_caught']:.2f}, answerable refused "
                          f"{line['answerable_refused']:.2f}")  # fmt: skip
    finally:
        engine.stop()
        engine.client.close()
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
