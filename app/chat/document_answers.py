"""Answering a chat question from a collection: find the passages (on the reply's worker thread,
through the engine host's encoder) and ground the prompt in them, noting when the collection was
still being indexed."""

from __future__ import annotations

from collections.abc import Callable

from app.chat.generation import DocumentsRequest
from app.common.i18n import tr
from engine.documents import Encoder, Grounding, IndexDB, Retriever, check_encoder, ground, judge
from engine.errors import DocumentIndexError

TOP_K = 5
DEFAULT_CONTEXT = 2048  # when the engine has not said (no model loaded yet)


class DocumentAnswers:
    def __init__(
        self,
        db: IndexDB,
        encoder: Callable[[], Encoder | None],
        context_tokens: Callable[[], int | None],
        indexing: Callable[[str], bool] = lambda _name: False,
    ) -> None:
        self.db = db
        self._encoder = encoder
        self._context_tokens = context_tokens
        self._indexing = indexing

    def request(self, collection: str) -> DocumentsRequest:
        return DocumentsRequest(collection, lambda question: self.ground(collection, question))

    def ground(self, name: str, question: str) -> Grounding:
        collection = self.db.collection(name)
        if collection is None:
            raise DocumentIndexError(
                tr(
                    "Document answers",
                    "The collection {name} no longer exists. Choose another under Answer from.",
                ).format(name=repr(name))
            )
        encoder = self._encoder() if collection.encoder is not None else None
        if encoder is not None:
            check_encoder(self.db, collection, encoder)
        retriever = Retriever(self.db, collection, encoder)
        sources = retriever.search(question, TOP_K)
        verdict = judge(retriever, question, sources)
        partial = (
            self._indexing(name)
            or (encoder is not None and self.db.count_unembedded(collection) > 0)
            or any(f.status == "pending" for f in self.db.files(collection))
        )
        n_ctx = self._context_tokens() or DEFAULT_CONTEXT
        return ground(question, sources, n_ctx, partial=partial, verdict=verdict)
