"""Find the passages that answer a question: keyword search (FTS5, BM25) and meaning (cosine of
the encoder's vectors), fused by reciprocal rank, best first, each with its file, page and heading.

Keyword search alone misses paraphrases; vectors alone miss exact names and numbers (a model
number, a version). Fusing ranks rather than scores needs no calibration between the two.
Without an encoder the keyword half works on its own.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from engine.documents.index_db import Collection, IndexDB

if TYPE_CHECKING:
    from engine.documents.encoder import Encoder

Mode = Literal["keyword", "vector", "hybrid"]
CANDIDATES = 50
RRF_K = 60
_WORD = re.compile(r"[\w][\w.\-]*[\w]|[\w]", re.UNICODE)
# Words that carry no topic; dropped from keyword queries (they would match every chunk).
_STOPWORDS_TEXT = """a an and are as at be been but by can could did do does for from had has have
how i if in into is it its me my of on or our should so than that the their them then there these
they this to was we were what when where which who whom why will with would you your about after
before between doing during each few more most other some such only own same too very just don't
isn't wasn't aren't tell know"""
STOPWORDS = frozenset(_STOPWORDS_TEXT.split())


@dataclass(frozen=True, slots=True)
class Source:
    chunk_id: int
    path: str
    page: int | None
    heading: str | None
    headings: tuple[str, ...]
    score: float
    text: str

    def to_dict(self) -> dict[str, object]:
        return {
            "path": self.path,
            "page": self.page,
            "heading": self.heading,
            "score": round(self.score, 6),
            "text": self.text,
        }


def keyword_query(question: str) -> str:
    """An FTS5 query from a question: its content words, OR-ed, each quoted (so that nothing the
    user typed is read as FTS syntax)."""
    words = [w.lower() for w in _WORD.findall(question)]
    terms = [w for w in words if w not in STOPWORDS] or words
    unique = list(dict.fromkeys(terms))
    return " OR ".join('"' + w.replace('"', "") + '"' for w in unique)


class Retriever:
    def __init__(self, db: IndexDB, collection: Collection, encoder: Encoder | None = None) -> None:
        self.db = db
        self.collection = collection
        self.encoder = encoder
        self._lock = threading.Lock()
        self._matrix: Any = None
        self._ids: list[int] = []
        self._version: tuple[int, int] | None = None

    def search(self, question: str, k: int = 5, *, mode: Mode = "hybrid") -> list[Source]:
        """The ``k`` best passages: by keywords and meaning fused (``hybrid``), or by one alone
        (for measuring each)."""
        ranked: dict[int, float] = {}
        lists = []
        if mode in ("keyword", "hybrid"):
            lists.append(self.db.keyword(self.collection, keyword_query(question), CANDIDATES))
        if mode in ("vector", "hybrid"):
            lists.append(self.vector_search(question, CANDIDATES))
        for found in lists:
            for rank, (chunk_id, _score) in enumerate(found):
                ranked[chunk_id] = ranked.get(chunk_id, 0.0) + 1.0 / (RRF_K + rank + 1)
        best = sorted(ranked.items(), key=lambda kv: kv[1], reverse=True)[:k]
        chunks = self.db.chunks_by_id([i for i, _s in best])
        return [
            Source(
                chunk_id=i,
                path=chunks[i].path,
                page=chunks[i].page,
                heading=chunks[i].headings[-1] if chunks[i].headings else None,
                headings=chunks[i].headings,
                score=score,
                text=chunks[i].text,
            )
            for i, score in best
            if i in chunks
        ]

    def vector_search(self, question: str, limit: int) -> list[tuple[int, float]]:
        import numpy as np

        if self.encoder is None:
            return []
        matrix, ids = self._vectors()
        if not ids:
            return []
        query = np.asarray(self.encoder.embed([question])[0], np.float32)
        scores = matrix @ query
        top = np.argpartition(-scores, min(limit, len(ids) - 1))[:limit]
        order = top[np.argsort(-scores[top])]
        return [(ids[i], float(scores[i])) for i in order]

    def _vectors(self) -> tuple[Any, list[int]]:
        """The collection's vectors as one matrix, read again only after the index changed."""
        import numpy as np

        version = self.db.version()
        with self._lock:
            if version != self._version:
                ids, blobs = self.db.vectors(self.collection)
                dims = len(blobs[0]) // 4 if blobs else 0  # float32
                matrix = np.frombuffer(b"".join(blobs), np.float32).reshape(len(ids), dims)
                self._matrix, self._ids, self._version = matrix, ids, version
            return self._matrix, self._ids
