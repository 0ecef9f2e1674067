"""Retrieval quality on two sets, beside the usual recipe in the same run:

- ``generated``: the labelled corpus in tests/support/corpus (short documents written for
  the tests, one fact per section, near-duplicates on purpose);
- ``real``: the tuning set, public manuals nobody on the project wrote (bench/real_docs.py: R,
  gnuplot, Octave, Git and Node.js documentation, 2,203 PDF pages and six other files) with the
  questions in bench/real_questions.json;
- ``heldout``: documents of other kinds that retrieval is never tuned on (bench/real_docs.py:
  the TikZ & PGF manual, the beamer guide, two standards, a scientific paper, Bash's HTML
  manual; 1,849 PDF pages) with bench/heldout_questions.json. A change that helps only the
  tuning set is not kept.

For each: file+page recall@3 (page for paged formats), file recall@3 and MRR, overall and per
kind of question, and how many misses cite the right file one page off the answer; for
Cove's keyword, vector and hybrid retrieval and for the usual recipe (bench/usual_recipe.py:
512-character snippets, BM25 + the same vectors, reciprocal-rank fusion). Unanswerable
questions are left out of recall; for them the report gives how often
Cove's answerability check says "not in your documents", beside how often it wrongly says so
for answerable ones.

Vectors are cached on disk by text (bench/embed_cache.py) and each set's index by the code
that reads and chunks, so a ranking change is measured in seconds.

    python bench/eval_retrieval.py [--set generated|real|heldout|all] [--json out.json] [--misses]
                                   [--encoder FOLDER] [--reranker FOLDER]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import sys
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.embed_cache import CachedEncoder  # noqa: E402
from bench.usual_recipe import UsualRecipe  # noqa: E402
from engine.documents.answerable import judge  # noqa: E402
from engine.documents.embeddings import EmbeddingModel  # noqa: E402
from engine.documents.index_db import IndexDB  # noqa: E402
from engine.documents.indexer import Indexer  # noqa: E402
from engine.documents.rerank import CrossEncoder  # noqa: E402
from engine.documents.retrieve import Mode, Retriever  # noqa: E402

ENCODER = ROOT.parent / "shared" / "models" / "all-minilm-l6-v2-onnx"
CACHE = Path.home() / ".cache" / "cove-bench"
MODES: tuple[Mode, ...] = ("keyword", "vector", "hybrid")
# The code whose output an index holds: a change to any of it builds the index again.
INDEX_CODE = (
    "engine/documents/readers",
    "engine/documents/chunker.py",
    "engine/documents/blocks.py",
    "engine/documents/index_db.py",
    "engine/documents/indexer.py",
)


def code_hash() -> str:
    digest = hashlib.sha256()
    for name in INDEX_CODE:
        path = ROOT / name
        for file in sorted(path.rglob("*.py")) if path.is_dir() else [path]:
            digest.update(file.read_bytes())
    return digest.hexdigest()[:16]


def open_index(
    name: str, root: Path, encoder: Any, reranker: Any = None
) -> tuple[IndexDB, Retriever]:
    """The set's index, built once per version of the reading and chunking code."""
    CACHE.mkdir(parents=True, exist_ok=True)
    stem = name if encoder.name == ENCODER.name else f"{name}-{encoder.name}"
    path = CACHE / f"index-{stem}-{code_hash()}.sqlite3"
    for old in CACHE.glob(f"index-{stem}-*.sqlite3*"):
        if not old.name.startswith(path.name):
            old.unlink()
    db = IndexDB(path)
    collection = db.collection(name, create=True)
    assert collection is not None
    indexer = Indexer(db, collection, encoder)
    indexer.add([root])  # files already indexed are passed over by their hash
    return db, Retriever(db, indexer.collection, encoder, reranker)


def relative(path: str, root: Path) -> str:
    return Path(path).relative_to(root).as_posix()


def score(
    questions: Sequence[dict[str, Any]],
    search: Callable[[str], list[tuple[str, int | None]]],
    k: int,
) -> dict[str, Any]:
    """recall@k by file+page and by file, MRR, per kind, and the misses, for one retrieval."""
    recall: list[float] = []
    file_recall: list[float] = []
    rr: list[float] = []
    by_kind: dict[str, list[float]] = defaultdict(list)
    misses = []
    off_by_one = 0  # misses with the right file one page before or after an answer in the top k
    for q in questions:
        if not q["answers"]:
            continue
        found = search(q["question"])
        wanted = [(a["file"], a["page"]) for a in q["answers"]]
        ranks = [
            i
            for i, (f, p) in enumerate(found)
            if any(f == wf and (wp is None or wp == p) for wf, wp in wanted)
        ]
        files = [i for i, (f, _p) in enumerate(found) if any(f == wf for wf, _ in wanted)]
        ok = 1.0 if ranks and ranks[0] < k else 0.0
        recall.append(ok)
        file_recall.append(1.0 if files and files[0] < k else 0.0)
        rr.append(1.0 / (ranks[0] + 1) if ranks else 0.0)
        by_kind[q["kind"]].append(ok)
        if not ok and any(
            f == wf and p is not None and wp is not None and abs(p - wp) == 1
            for f, p in found[:k]
            for wf, wp in wanted
        ):
            off_by_one += 1
        if not ok:
            misses.append(
                {
                    "id": q["id"],
                    "question": q["question"],
                    "want": wanted,
                    "got": [f"{f}:{p}" for f, p in found[:k]],
                }
            )
    return {
        "recall_at_k": statistics.fmean(recall),
        "file_recall_at_k": statistics.fmean(file_recall),
        "mrr": statistics.fmean(rr),
        "by_kind": {kind: statistics.fmean(v) for kind, v in sorted(by_kind.items())},
        "questions": len(recall),
        "off_by_one": off_by_one,
        "misses": misses,
    }


def answerability(retriever: Retriever, questions: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """How Cove's retrieval-side check (engine/documents/answerable.py) sorts the questions."""
    said_not: list[str] = []
    wrongly_not: list[str] = []
    unanswerable = [q for q in questions if not q["answers"]]
    answerable = [q for q in questions if q["answers"]]
    for q in questions:
        verdict = judge(retriever, q["question"])
        if not verdict.answerable:
            (said_not if not q["answers"] else wrongly_not).append(q["id"])
    return {
        "unanswerable": len(unanswerable),
        "unanswerable_caught": len(said_not) / max(len(unanswerable), 1),
        "answerable": len(answerable),
        "answerable_refused": len(wrongly_not) / max(len(answerable), 1),
        "refused_ids": wrongly_not,
        "missed_unanswerable": [q["id"] for q in unanswerable if q["id"] not in said_not],
    }


def evaluate_set(
    name: str,
    root: Path,
    questions: list[dict[str, Any]],
    encoder: Any,
    k: int,
    reranker: Any = None,
) -> dict[str, Any]:
    db, retriever = open_index(name, root, encoder, reranker)
    try:
        results: dict[str, Any] = {"set": name, "k": k, "modes": {}}
        for mode in MODES:

            def search(text: str, mode: Mode = mode) -> list[tuple[str, int | None]]:
                return [
                    (relative(s.path, root), s.page) for s in retriever.search(text, 10, mode=mode)
                ]

            results["modes"][mode] = score(questions, search, k)
        usual = UsualRecipe(root, encoder)
        results["modes"]["usual recipe"] = score(
            questions,
            lambda text: [(relative(h.path, root), h.page) for h in usual.search(text, 10)],
            k,
        )
        results["answerability"] = answerability(retriever, questions)
    finally:
        db.close()
    return results


def generated_set() -> tuple[Path, list[dict[str, Any]]]:
    from tests.support.corpus.build import QUESTIONS, build_corpus

    root = CACHE / "generated-docs"  # one place, so that its index can be kept
    build_corpus(root)
    return root, json.loads(QUESTIONS.read_text(encoding="utf-8"))


def real_set(name: str = "real") -> tuple[Path, list[dict[str, Any]]]:
    from tests.support.real_docs import HELDOUT, TUNING, fetch, load_questions

    corpus = HELDOUT if name == "heldout" else TUNING
    return fetch(corpus=corpus), load_questions(corpus)


def print_set(results: dict[str, Any], misses: bool) -> None:
    k = results["k"]
    print(f"== {results['set']} ==")
    for mode, r in results["modes"].items():
        kinds = ", ".join(f"{kind} {v:.2f}" for kind, v in r["by_kind"].items())
        print(
            f"{mode:13} file+page recall@{k} {r['recall_at_k']:.3f}"
            f"  file {r['file_recall_at_k']:.3f}"
            f"  MRR {r['mrr']:.3f}  one page off {r['off_by_one']}  ({kinds})"
        )
        if misses and mode in ("hybrid", "usual recipe"):
            for miss in r["misses"]:
                print(
                    f"    {miss['id']} {miss['question']!r} want {miss['want']} got {miss['got']}"
                )
    a = results["answerability"]
    print(
        f"not in your documents: {a['unanswerable_caught']:.2f} of {a['unanswerable']} "
        "unanswerable;"
        f" {a['answerable_refused']:.2f} of {a['answerable']} answerable wrongly refused"
    )
    if misses:
        print(f"    refused: {a['refused_ids']}  missed: {a['missed_unanswerable']}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--set", choices=("generated", "real", "heldout", "all"), default="all")
    parser.add_argument("--k", type=int, default=3)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--misses", action="store_true", help="print the questions missed")
    parser.add_argument(
        "--encoder", type=Path, default=ENCODER, help="an embedding model folder to use instead"
    )
    parser.add_argument(
        "--reranker", type=Path, help="a cross-encoder folder: the hybrid row is reranked by it"
    )
    args = parser.parse_args()
    names = ("generated", "real", "heldout") if args.set == "all" else (args.set,)
    report: dict[str, Any] = {}
    reranker = CrossEncoder.load(args.reranker) if args.reranker else None
    with EmbeddingModel.load(args.encoder) as model:
        encoder = CachedEncoder(model)
        for name in names:
            root, questions = generated_set() if name == "generated" else real_set(name)
            report[name] = evaluate_set(name, root, questions, encoder, args.k, reranker)
            print_set(report[name], args.misses)
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
