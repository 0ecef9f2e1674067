"""Signals that might tell an answerable question from one the documents do not answer, for the
questions the retrieval-side check (engine/documents/answerable.py) lets through, measured on
every set and never chosen on one set alone.

- ``sentence``: the best cosine between the question and a sentence of the three best passages
  (the encoder's own question-to-sentence match).
- ``likelihood``: how much the best passage raises the chat model's likelihood of the question,
  token by token (mean log P(question | passage) - log P(question | no passage); query likelihood
  as in Sachan et al., "Improving Passage Retrieval with Zero-Shot Question Generation", EMNLP
  2022, taken as a pointwise mutual information).
- ``coverage``: the question's least-covered content token: for each, its best cosine with a
  token of the three best passages (the encoder's contextual token vectors, as in BERTScore's
  recall), and the lowest of those.
- ``both``: ``sentence`` and ``likelihood``, each standardised on the tuning set's answerable
  questions, added.

For each: AUC per set (1.0 separates perfectly, 0.5 is chance), and the cut-off that refuses
the fewest answerable tuning questions while keeping 95 % of them answered in all (those the
check already refuses counted), applied unchanged to every set: what it would catch and what it
would wrongly refuse there.

    python bench/eval_signals.py [--model starter|PATH] [--json out]
"""

from __future__ import annotations

import argparse
import json
import math
import re
import statistics
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.embed_cache import CachedEncoder  # noqa: E402
from bench.eval_retrieval import ENCODER, generated_set, open_index, real_set  # noqa: E402
from engine.documents.answerable import judge  # noqa: E402
from engine.documents.embeddings import EmbeddingModel  # noqa: E402
from engine.documents.evidence import sentences  # noqa: E402
from engine.documents.onnx_session import batch_feed  # noqa: E402
from engine.documents.retrieve import STOPWORDS  # noqa: E402

SETS = ("real", "heldout", "generated")  # "real" is the tuning set
PASSAGES = 3
PASSAGE_TOKENS = 350  # of the chat model's, per passage
ANSWERED = 0.95
PROMPT = (
    "<|im_start|>user\nRead the passage and write a question that it answers.\n\n"
    "Passage: {passage}<|im_end|>\n<|im_start|>assistant\nQuestion:"
)


class Likelihood:
    """Per-token log-probabilities of a question after a prompt, from a GGUF chat model."""

    def __init__(self, path: Path) -> None:
        import llama_cpp

        self.llm = llama_cpp.Llama(str(path), n_ctx=2048, logits_all=True, verbose=False)

    def gain(self, passage: str, question: str) -> float:
        """Mean log P(question | passage) - log P(question | empty passage), per token."""
        with_passage = self._logprobs(self._prompt(passage), question)
        without = self._logprobs(self._prompt(""), question)
        return statistics.fmean(a - b for a, b in zip(with_passage, without, strict=True))

    def _prompt(self, passage: str) -> str:
        tokens = self.llm.tokenize(passage.encode(), add_bos=False)[:PASSAGE_TOKENS]
        return PROMPT.format(passage=self.llm.detokenize(tokens).decode(errors="replace"))

    def _logprobs(self, prompt: str, question: str) -> list[float]:
        import numpy as np

        head = self.llm.tokenize(prompt.encode(), add_bos=True, special=True)
        asked = self.llm.tokenize((" " + question).encode(), add_bos=False, special=True)
        self.llm.reset()  # type: ignore[no-untyped-call]
        self.llm.eval(head + asked)
        rows = np.asarray(self.llm.scores[len(head) - 1 : len(head) + len(asked) - 1])
        peak = rows.max(axis=1, keepdims=True)
        norm = peak[:, 0] + np.log(np.exp(rows - peak).sum(axis=1))
        return [float(rows[i, t] - norm[i]) for i, t in enumerate(asked)]


def token_vectors(model: EmbeddingModel, text: str) -> tuple[list[str], Any]:
    import numpy as np

    encoding = model._tokenizer.encode_batch([text])
    feed, _mask = batch_feed(encoding, model._pad_id, model._inputs, np)
    (hidden,) = model._session.run([model._output_name], feed)
    vectors = np.asarray(hidden[0], np.float32)[1:-1]  # without [CLS] and [SEP]
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return list(encoding[0].tokens[1:-1]), vectors


def coverage(model: EmbeddingModel, question: str, passages: Sequence[str]) -> float:
    import numpy as np

    tokens, asked = token_vectors(model, question)
    keep = [
        i
        for i, t in enumerate(tokens)
        if len(t.lstrip("#")) > 1 and re.sub(r"\W", "", t) and t.lower() not in STOPWORDS
    ]
    if not keep:
        return 1.0
    best = np.zeros(len(keep), np.float32)
    for passage in passages:
        _, found = token_vectors(model, passage)
        best = np.maximum(best, (asked[keep] @ found.T).max(axis=1))
    return float(best.min())


def measure(
    name: str, model: EmbeddingModel, encoder: Any, likelihood: Likelihood
) -> dict[str, Any]:
    import numpy as np

    root, questions = generated_set() if name == "generated" else real_set(name)
    db, retriever = open_index(name, root, encoder)
    rows: list[dict[str, Any]] = []
    try:
        for q in questions:
            sources = retriever.search(q["question"], 5)
            row: dict[str, Any] = {"id": q["id"], "answerable": bool(q["answers"])}
            row["passes"] = judge(retriever, q["question"], sources).answerable
            if row["passes"]:
                texts = [s.text for s in sources[:PASSAGES]]
                found = [s for text in texts for s in sentences(text)]
                vectors = np.asarray(encoder.embed([q["question"], *found]), np.float32)
                row["sentence"] = float((vectors[1:] @ vectors[0]).max()) if found else 0.0
                row["likelihood"] = likelihood.gain(texts[0], q["question"])
                row["coverage"] = coverage(model, q["question"], texts)
            rows.append(row)
    finally:
        db.close()
    return {"set": name, "rows": rows}


def auc(answerable: Sequence[float], unanswerable: Sequence[float]) -> float:
    """The chance that an answerable question scores above an unanswerable one."""
    if not answerable or not unanswerable:
        return float("nan")
    wins = sum((a > u) + 0.5 * (a == u) for a in answerable for u in unanswerable)
    return wins / (len(answerable) * len(unanswerable))


def cut_off(rows: Sequence[dict[str, Any]], score: Callable[[dict[str, Any]], float]) -> float:
    """The highest cut-off that still leaves ANSWERED of the set's answerable questions answered."""
    answerable = [r for r in rows if r["answerable"]]
    passing = sorted(score(r) for r in answerable if r["passes"])
    may_refuse = len(passing) - math.ceil(ANSWERED * len(answerable))
    return passing[may_refuse] if may_refuse >= 0 and passing else float("-inf")


def main() -> int:
    from engine.library.names import starter_path

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--model", default="starter", help="starter, or a GGUF chat model's path")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    likelihood = Likelihood(starter_path() if args.model == "starter" else Path(args.model))
    with EmbeddingModel.load(ENCODER) as model:
        encoder = CachedEncoder(model)
        sets = {name: measure(name, model, encoder, likelihood) for name in SETS}
    tuning = [r for r in sets["real"]["rows"] if r["passes"] and r["answerable"]]
    mean = {k: statistics.fmean(r[k] for r in tuning) for k in ("sentence", "likelihood")}
    spread = {k: statistics.pstdev(r[k] for r in tuning) for k in ("sentence", "likelihood")}
    signals: dict[str, Callable[[dict[str, Any]], float]] = {
        "sentence": lambda r: float(r["sentence"]),
        "likelihood": lambda r: float(r["likelihood"]),
        "coverage": lambda r: float(r["coverage"]),
        "both": lambda r: sum((r[k] - mean[k]) / spread[k] for k in ("sentence", "likelihood")),
    }
    report: dict[str, Any] = {"model": args.model, "sets": sets, "signals": {}}
    for signal, score in signals.items():
        cut = cut_off(sets["real"]["rows"], score)
        line: dict[str, Any] = {"cut_off": round(cut, 4)}
        print(f"== {signal} (cut-off {cut:.3f}, from the tuning set)")
        for name in SETS:
            rows = [r for r in sets[name]["rows"] if r["passes"]]
            answerable = [score(r) for r in rows if r["answerable"]]
            unanswerable = [score(r) for r in rows if not r["answerable"]]
            caught = sum(1 for s in unanswerable if s < cut)
            refused = sum(1 for s in answerable if s < cut)
            line[name] = {"auc": round(auc(answerable, unanswerable), 3), "caught": caught,
                          "passing_unanswerable": len(unanswerable), "refused": refused,
                          "passing_answerable": len(answerable)}  # fmt: skip
            print(f"  {name:9} AUC {line[name]['auc']:.3f}  unanswerable caught {caught} "
                  f"of {len(unanswerable)}  answerable refused {refused} of "
                  f"{len(answerable)}")  # fmt: skip
        report["signals"][signal] = line
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
