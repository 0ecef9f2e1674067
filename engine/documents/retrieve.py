"""Find the passages that answer a question: keyword search (FTS5, BM25) and meaning (cosine of
the encoder's vectors), fused, best first, each with its file, page and heading.

Keyword search alone misses paraphrases; vectors alone miss exact names and numbers (a model
number, a version). The two are fused by a convex combination of their scores, each scaled to
0..1 over its candidates (Bruch, Gai and Ingber, "An Analysis of Fusion Functions for Hybrid
Retrieval", ACM TOIS 2023): unlike reciprocal-rank fusion it keeps how far apart the scores are,
so a passage far closer in meaning than the rest is not pulled level by a keyword match that is
only a little better. On the labelled set it moved file+page recall@3 from 0.944 (rank fusion)
to 0.963 (docs/DOCUMENTS.md). Sources are cited by page, so one page fills one place in the
list: a second passage from the same page gives way to the next page.
Without an encoder the keyword half works on its own. With a reranker (a cross-encoder,
engine.documents.rerank) the best pages are read again with the question and reordered.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar

from engine.documents.dictionary import spelled_otherwise
from engine.documents.evidence import WORD, Similarity, best_sentence, sentences, weights
from engine.documents.index_db import Collection, IndexDB

if TYPE_CHECKING:
    from engine.documents.encoder import Encoder

Mode = Literal["keyword", "vector", "hybrid"]
T = TypeVar("T")
CANDIDATES = 100  # from each half; fewer let a keyword-only page win on long manuals
VECTOR_WEIGHT = 0.6  # of the fused score; the keyword score has the rest
RERANK_POOL = 20  # the best pages a reranker reads again, when there is one
# The best pages ordered again by their best sentence: a passage of 256 tokens embedded whole
# is a blur of its sentences, and the page that answers a look-up holds one sentence close to
# the question. Each page's fused score and its best sentence's cosine, both scaled over the
# pool, are added with this weight on the sentence (docs/DOCUMENTS.md: tuning set 0.871 ->
# 0.894, held-out 0.854 -> 0.890; a pool of 10 lost that on the tuning set, 20 and 30 and
# weights 0.5-1.5 did no better on it).
SENTENCE_POOL = 15
SENTENCE_WEIGHT = 0.75
TERM_COUNT_CAP = 5000  # passages counted per question word, for its weight
# Words that carry no topic; dropped from keyword queries (they would match every chunk).
_STOPWORDS_TEXT = """a an and are as at be been but by can could did do does for from had has have
how i if in into is it its me my of on or our should so than that the their them then there these
they this to was we were what when where which who whom why will with would you your about after
before between doing during each few more most other some such only own same too very just don't
isn't wasn't aren't tell know"""
STOPWORDS = frozenset(_STOPWORDS_TEXT.split())


class Reranker(Protocol):
    """What the reranking stage needs of a cross-encoder (engine.documents.rerank)."""

    def score(self, question: str, passages: Sequence[str]) -> list[float]: ...


@dataclass(frozen=True, slots=True)
class Source:
    chunk_id: int
    path: str
    page: int | None
    heading: str | None
    headings: tuple[str, ...]
    score: float
    text: str
    similarity: float | None = None  # cosine of the passage and the question, when embedded
    sentence: str = ""  # the sentence that answers (engine/documents/evidence.py)

    def to_dict(self) -> dict[str, object]:
        return {
            "path": self.path,
            "page": self.page,
            "heading": self.heading,
            "score": round(self.score, 6),
            "text": self.text,
            "sentence": self.sentence,
        }


def content_words(question: str) -> list[str]:
    """A question's words that carry its topic, lower case, each once, in order."""
    return list(dict.fromkeys(w for w in _words(question) if w not in STOPWORDS))


def keyword_query(question: str) -> str:
    """An FTS5 query from a question: its content words (all its words when it has none), OR-ed,
    each quoted (so that nothing the user typed is read as FTS syntax). A British spelling
    brings its American one ("colour" also finds "color")."""
    terms = content_words(question) or list(dict.fromkeys(_words(question)))
    terms = with_spellings(terms)
    return " OR ".join('"' + w.replace('"', "") + '"' for w in terms)


def with_spellings(terms: Sequence[str]) -> list[str]:
    """``terms`` with the American spelling after each British one ("colour", "color")."""
    return list(dict.fromkeys(v for t in terms for v in (t, *spelled_otherwise(t))))


def _words(question: str) -> list[str]:
    return [w.lower() for w in WORD.findall(question)]


class Retriever:
    def __init__(
        self,
        db: IndexDB,
        collection: Collection,
        encoder: Encoder | None = None,
        reranker: Reranker | None = None,
    ) -> None:
        self.db = db
        self.collection = collection
        self.encoder = encoder
        self.reranker = reranker
        self._lock = threading.Lock()
        self._matrix: Any = None
        self._ids: list[int] = []
        self._version: tuple[int, int] | None = None

    def search(self, question: str, k: int = 5, *, mode: Mode = "hybrid") -> list[Source]:
        """The ``k`` best passages: by keywords and meaning fused (``hybrid``), or by one alone
        (for measuring each)."""
        keyword: list[tuple[int, float]] = []
        vector: list[tuple[int, float]] = []
        asked: Any = None  # the question's vector, when meaning is searched
        if mode == "keyword" or self.encoder is None:
            keyword = self.db.keyword(self.collection, keyword_query(question), CANDIDATES)
        elif mode == "vector":
            asked = self._embed(question)
            vector = self.vector_search(question, CANDIDATES, asked)
        else:
            # The two halves overlap: SQLite, the encoder and the matrix product each let go
            # of the GIL, so the search takes about as long as the slower half, not both.
            self._vectors()  # read (when changed) before the keyword query holds the database
            words = keyword_query(question)
            pending = _started(lambda: self.db.keyword(self.collection, words, CANDIDATES))
            try:
                asked = self._embed(question)
                vector = self.vector_search(question, CANDIDATES, asked)
            finally:
                keyword = pending()
        weight = {"keyword": 0.0, "vector": 1.0, "hybrid": VECTOR_WEIGHT}[mode]
        if not vector:
            weight = 0.0
        fused: dict[int, float] = {}
        for found, share in ((keyword, 1.0 - weight), (vector, weight)):
            for chunk_id, scaled in _scaled(found).items():
                fused[chunk_id] = fused.get(chunk_id, 0.0) + share * scaled
        cosine = dict(vector)
        order = sorted(fused.items(), key=lambda kv: kv[1], reverse=True)
        chunks = self.db.chunks_by_id([i for i, _s in order])
        sources: list[Source] = []
        pages: set[tuple[str, int]] = set()
        for chunk_id, score in order:
            chunk = chunks.get(chunk_id)
            if chunk is None:
                continue
            if chunk.page is not None:
                if (chunk.path, chunk.page) in pages:
                    continue
                pages.add((chunk.path, chunk.page))
            sources.append(
                Source(
                    chunk_id=chunk_id,
                    path=chunk.path,
                    page=chunk.page,
                    heading=chunk.headings[-1] if chunk.headings else None,
                    headings=chunk.headings,
                    score=score,
                    text=chunk.text,
                    similarity=cosine.get(chunk_id),
                )
            )
            if len(sources) == max(k, self._pool(mode, asked)):
                break
        cosines: dict[str, float] = {}
        if asked is not None and mode == "hybrid" and len(sources) > 1:
            sources, cosines = self._by_sentences(sources, asked)
        if self._reranks(mode) and len(sources) > 1:
            assert self.reranker is not None
            # The passage as the index reads it: under its heading path.
            texts = [
                " > ".join(s.headings) + ": " + s.text if s.headings else s.text for s in sources
            ]
            scores = self.reranker.score(question, texts)
            ranked = sorted(range(len(sources)), key=lambda i: (-scores[i], i))
            sources = [sources[i] for i in ranked]
        return self._with_sentences(question, sources[:k], asked, cosines)

    def _pool(self, mode: Mode, asked: Any) -> int:
        """How many of the best pages the later stages read again."""
        pool = RERANK_POOL if self._reranks(mode) else 0
        if asked is not None and mode == "hybrid":
            pool = max(pool, SENTENCE_POOL)
        return pool

    def _sentence_cosines(self, sources: Sequence[Source], asked: Any) -> dict[str, float]:
        """The cosine of every sentence of ``sources`` with the question, embedded in one
        batch."""
        import numpy as np

        assert self.encoder is not None
        texts = list(dict.fromkeys(x for s in sources for x in sentences(s.text)))
        if not texts:
            return {}
        vectors = np.asarray(self.encoder.embed(texts), np.float32)
        return dict(zip(texts, (vectors @ asked).tolist(), strict=True))

    def _by_sentences(
        self, sources: list[Source], asked: Any
    ) -> tuple[list[Source], dict[str, float]]:
        """``sources`` ordered (and scored) by their fused score and their best sentence's
        cosine (see ``SENTENCE_WEIGHT``), and the cosines of their sentences."""
        cosines = self._sentence_cosines(sources, asked)
        best = [max((cosines.get(x, 0.0) for x in sentences(s.text)), default=0.0) for s in sources]
        fused = [s.score for s in sources]
        combined = [
            a + SENTENCE_WEIGHT * b for a, b in zip(_spread(fused), _spread(best), strict=True)
        ]
        order = sorted(range(len(sources)), key=lambda i: (-combined[i], i))
        # The score the order is by, 0..1 over the pool.
        scale = 1.0 + SENTENCE_WEIGHT
        ordered = [dataclasses.replace(sources[i], score=combined[i] / scale) for i in order]
        return ordered, cosines

    def _with_sentences(
        self, question: str, sources: list[Source], asked: Any, cosines: dict[str, float]
    ) -> list[Source]:
        """Each source with the sentence that answers (engine/documents/evidence.py), by
        keywords and, when the question was embedded (``asked``), by meaning: the sentences'
        cosines are those the ordering computed, or embedded now in one batch."""
        if not sources:
            return sources
        terms = self._term_weights(question)
        scorer: Similarity = None
        if asked is not None and self.encoder is not None:
            if any(x not in cosines for s in sources for x in sentences(s.text)):
                cosines = self._sentence_cosines(sources, asked)

            def known(found: Sequence[str]) -> list[float]:
                return [cosines.get(t, 0.0) for t in found]

            scorer = known
        return [
            dataclasses.replace(s, sentence=best_sentence(s.text, terms, scorer, VECTOR_WEIGHT))
            for s in sources
        ]

    def _embed(self, question: str) -> Any:
        import numpy as np

        assert self.encoder is not None
        return np.asarray(self.encoder.embed([question])[0], np.float32)

    def _term_weights(self, question: str) -> dict[str, float]:
        """The question's content words, each weighted by how rare it is in the collection."""
        terms = with_spellings(content_words(question))
        counts = self.db.term_counts(self.collection, terms, cap=TERM_COUNT_CAP)
        total = max(self.db.count_chunks(self.collection), 1)
        return weights(terms, counts, total)

    def _reranks(self, mode: Mode) -> bool:
        return self.reranker is not None and mode == "hybrid"

    def vector_search(
        self, question: str, limit: int, asked: Any = None
    ) -> list[tuple[int, float]]:
        """The ``limit`` passages closest in meaning to ``question`` (``asked``: its vector,
        when already embedded)."""
        import numpy as np

        if self.encoder is None:
            return []
        matrix, ids = self._vectors()
        if not ids:
            return []
        query = self._embed(question) if asked is None else asked
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


def _started(work: Callable[[], T]) -> Callable[[], T]:
    """Run ``work`` on a thread of its own; the returned call waits for its result (or raises
    its error)."""
    done: list[T] = []
    failed: list[BaseException] = []

    def run() -> None:
        try:
            done.append(work())
        except BaseException as exc:  # handed to the caller, which raises it
            failed.append(exc)

    thread = threading.Thread(target=run, name="keyword-search", daemon=True)
    thread.start()

    def result() -> T:
        thread.join()
        if failed:
            raise failed[0]
        return done[0]

    return result


def _spread(values: Sequence[float]) -> list[float]:
    """``values`` scaled to 0..1 (min-max); all equal: all 1."""
    low, high = min(values), max(values)
    span = high - low
    return [(v - low) / span if span > 0 else 1.0 for v in values]


def _scaled(found: list[tuple[int, float]]) -> dict[int, float]:
    """Scores scaled to 0..1 over the candidates (min-max); a single candidate scores 1."""
    if not found:
        return {}
    return dict(zip((i for i, _s in found), _spread([s for _i, s in found]), strict=True))
