"""Retrieval quality on the labelled corpus (tests/documents/corpus): file+page recall@3 and MRR
for keyword, vector and hybrid retrieval, overall and per kind of question; "rank-fusion" is the
common recipe (BM25 and vectors fused by reciprocal rank) that Cove's score fusion replaces.

A hit is a source whose file, and page for paged formats, is one of the question's labelled
answers. Unanswerable questions are left out of recall and MRR; for them the report gives the
best source's vector similarity, which the "not in your documents" gate uses.

    python bench/eval_retrieval.py [--json out.json] [--k 3]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from engine.documents.index_db import IndexDB  # noqa: E402
from engine.documents.indexer import Indexer  # noqa: E402
from engine.documents.retrieve import Mode, Retriever, Source  # noqa: E402
from engine.embeddings import EmbeddingModel  # noqa: E402
from tests.documents.corpus.build import QUESTIONS, build_corpus  # noqa: E402

ENCODER = ROOT.parent / "shared" / "models" / "all-minilm-l6-v2-onnx"
MODES = ("keyword", "vector", "rank-fusion", "hybrid")
RRF_K = 60  # reciprocal-rank fusion's constant (Cormack, Clarke and Buettcher, SIGIR 2009)


def hit(source: Source, answers: list[dict[str, Any]], root: Path) -> bool:
    path = Path(source.path).relative_to(root).as_posix()
    return any(
        path == a["file"] and (a["page"] is None or a["page"] == source.page) for a in answers
    )


def rank_fusion(retriever: Retriever, question: str, k: int) -> list[Source]:
    """Reciprocal-rank fusion of the keyword and vector lists, one place per page."""
    by_id: dict[int, Source] = {}
    fused: dict[int, float] = {}
    modes: tuple[Mode, ...] = ("keyword", "vector")
    for mode in modes:
        for rank, source in enumerate(retriever.search(question, 50, mode=mode)):
            by_id[source.chunk_id] = source
            fused[source.chunk_id] = fused.get(source.chunk_id, 0.0) + 1.0 / (RRF_K + rank + 1)
    ranked = sorted(fused, key=lambda i: fused[i], reverse=True)
    return [by_id[i] for i in ranked][:k]


def evaluate(k: int = 3, encoder_folder: Path = ENCODER) -> dict[str, Any]:
    questions = json.loads(QUESTIONS.read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory() as tmp, EmbeddingModel.load(encoder_folder) as encoder:
        root = Path(tmp) / "docs"
        build_corpus(root)
        db = IndexDB(Path(tmp) / "index.sqlite3")
        collection = db.collection("eval", create=True)
        assert collection is not None
        indexer = Indexer(db, collection, encoder)
        outcomes = indexer.add([root])
        retriever = Retriever(db, indexer.collection, encoder)
        results: dict[str, Any] = {"k": k, "files": len(outcomes), "modes": {}}
        for mode in MODES:
            recall: list[float] = []
            rr: list[float] = []
            by_kind: dict[str, list[float]] = defaultdict(list)
            misses = []
            for q in questions:
                if not q["answers"]:
                    continue
                found = (
                    rank_fusion(retriever, q["question"], 10)
                    if mode == "rank-fusion"
                    else retriever.search(q["question"], 10, mode=mode)  # type: ignore[arg-type]
                )
                ranks = [i for i, s in enumerate(found) if hit(s, q["answers"], root)]
                ok = 1.0 if ranks and ranks[0] < k else 0.0
                recall.append(ok)
                rr.append(1.0 / (ranks[0] + 1) if ranks else 0.0)
                by_kind[q["kind"]].append(ok)
                if not ok:
                    top = found[0] if found else None
                    misses.append(
                        {
                            "id": q["id"],
                            "question": q["question"],
                            "want": q["answers"],
                            "got": [
                                f"{Path(s.path).relative_to(root).as_posix()}:{s.page}"
                                for s in found[:3]
                            ],
                            "top_text": top.text[:120] if top else None,
                        }
                    )
            results["modes"][mode] = {
                "recall_at_k": statistics.fmean(recall),
                "mrr": statistics.fmean(rr),
                "by_kind": {kind: statistics.fmean(v) for kind, v in sorted(by_kind.items())},
                "questions": len(recall),
                "misses": misses,
            }
        results["similarity"] = best_similarity(retriever, questions)
        db.close()
    return results


def best_similarity(retriever: Retriever, questions: list[dict[str, Any]]) -> dict[str, Any]:
    """The best source's cosine similarity to the question, for answerable and unanswerable
    questions: how well a similarity floor tells them apart."""
    answerable: list[float] = []
    unanswerable: list[float] = []
    for q in questions:
        found = retriever.search(q["question"], 1, mode="vector")
        best = found[0].similarity if found and found[0].similarity is not None else 0.0
        (answerable if q["answers"] else unanswerable).append(best)
    return {
        "answerable_min": min(answerable),
        "answerable_median": statistics.median(answerable),
        "unanswerable_max": max(unanswerable),
        "unanswerable_median": statistics.median(unanswerable),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--k", type=int, default=3)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--misses", action="store_true", help="print the questions missed")
    args = parser.parse_args()
    results = evaluate(args.k)
    sims = results["similarity"]
    print(
        "best-source similarity: answerable min {answerable_min:.3f} median "
        "{answerable_median:.3f}; unanswerable median {unanswerable_median:.3f} max "
        "{unanswerable_max:.3f}".format(**sims)
    )
    for mode, r in results["modes"].items():
        kinds = ", ".join(f"{kind} {v:.2f}" for kind, v in r["by_kind"].items())
        print(f"{mode:8} recall@{args.k} {r['recall_at_k']:.3f}  MRR {r['mrr']:.3f}  ({kinds})")
        if args.misses:
            for miss in r["misses"]:
                print(
                    f"    {miss['id']} {miss['question']!r} want {miss['want']} got {miss['got']}"
                )
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
