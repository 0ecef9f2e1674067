"""The host's encoders, loaded when a request names them: the sentence encoder behind
``/v1/embeddings`` and ``/api/embed``, and the cross-encoder behind ``/v1/rerank`` (the shape
llama-server and Jina use: ``query``, ``documents``, ``top_n`` -> ``results`` of ``index`` and
``relevance_score``, best first).

A name is a folder's path, a catalog id (``all-minilm-l6-v2``, ``ms-marco-minilm-l6-v2``) or a
folder's name in the models folder. One of each kind is resident; another named takes its place
(these load in well under a second)."""

from __future__ import annotations

import asyncio
import logging
import math
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from engine.errors import InvalidRequest, ModelNotFound

if TYPE_CHECKING:
    from engine.documents.embeddings import EmbeddingModel
    from engine.documents.rerank import CrossEncoder

log = logging.getLogger("cove.host")

M = TypeVar("M")
MAX_DOCUMENTS = 1000


class Encoders(Generic[M]):
    """One resident encoder of a kind, swapped for another when a request names it."""

    def __init__(
        self,
        kind: str,
        load: Callable[[Path], M],
        close: Callable[[M], None],
        fits: Callable[[Path], bool],
        default: Callable[[], Path | None],
        hint: str,
    ) -> None:
        self.kind = kind
        self._load = load
        self._close = close
        self._fits = fits
        self._default = default
        self._hint = hint
        self.model: M | None = None
        self.path: Path | None = None
        self.name: str | None = None
        self.turn = asyncio.Lock()  # one load or one batch at a time
        self._swap = threading.Lock()

    def put(self, folder: Path, model: M, name: str) -> None:
        with self._swap:
            old, self.model, self.path, self.name = self.model, model, folder.resolve(), name
        if old is not None:
            self._close(old)

    def names(self) -> set[str]:
        return set() if self.path is None else {str(self.path), self.path.name, self.name or ""}

    async def get(self, name: str | None) -> M:
        """The encoder ``name`` names (the resident one, or the default, when None)."""
        if self.model is not None and (not name or name in self.names()):
            return self.model
        folder = self.folder(name)
        async with self.turn:
            if self.model is not None and self.path == folder.resolve():
                return self.model
            model = await asyncio.to_thread(self._load, folder)
            self.put(folder, model, str(getattr(model, "name", folder.name)))
            log.info("loaded %s %s", self.kind, folder.name)
        assert self.model is not None
        return self.model

    def folder(self, name: str | None) -> Path:
        if not name:
            found = self._default()
            if found is None:
                raise ModelNotFound(f"No {self.kind} is loaded or installed. {self._hint}")
            return found
        from engine.documents.encoder import library_folder
        from engine.paths import models_dir

        for candidate in (Path(name).expanduser(), library_folder(name), models_dir() / name):
            if candidate is not None and candidate.is_dir() and self._fits(candidate):
                return candidate
        loaded = f"; this engine has {self.name!r}" if self.name else ""
        raise ModelNotFound(f"No {self.kind} named {name!r} is installed{loaded}. {self._hint}")

    def close(self) -> None:
        with self._swap:
            old, self.model = self.model, None
        if old is not None:
            self._close(old)


def sentence_encoders() -> Encoders[EmbeddingModel]:
    from engine.documents.embeddings import EmbeddingModel, is_embedding_folder
    from engine.documents.encoder import default_encoder_folder

    return Encoders(
        "embedding model",
        EmbeddingModel.load,
        lambda m: m.close(),
        is_embedding_folder,
        default_encoder_folder,
        "Start the server with --embedding-model FOLDER, or name an installed one "
        "(cove pull all-minilm-l6-v2).",
    )


def cross_encoders() -> Encoders[CrossEncoder]:
    from engine.documents.rerank import CrossEncoder, default_reranker_folder, is_reranker_folder

    return Encoders(
        "reranker",
        CrossEncoder.load,
        lambda m: m.close(),
        is_reranker_folder,
        default_reranker_folder,
        "Name a cross-encoder folder, or install the library's (cove pull ms-marco-minilm-l6-v2).",
    )


@dataclass(frozen=True, slots=True)
class RerankRequest:
    model: str | None
    query: str
    documents: tuple[str, ...]
    top_n: int | None
    return_documents: bool


def parse_rerank(body: object) -> RerankRequest:
    if not isinstance(body, dict):
        raise InvalidRequest("The request body must be a JSON object.")
    query = body.get("query")
    if not isinstance(query, str) or not query.strip():
        raise InvalidRequest("'query' must be a non-empty string.")
    raw = body.get("documents")
    if not isinstance(raw, list) or not raw:
        raise InvalidRequest("'documents' must be a non-empty list of strings.")
    if len(raw) > MAX_DOCUMENTS:
        raise InvalidRequest(f"At most {MAX_DOCUMENTS} documents a request.")
    documents = []
    for i, item in enumerate(raw):
        text = item.get("text") if isinstance(item, dict) else item
        if not isinstance(text, str):
            raise InvalidRequest(f"documents[{i}] must be a string (or an object with 'text').")
        documents.append(text)
    top_n = body.get("top_n")
    if top_n is not None and (not isinstance(top_n, int) or isinstance(top_n, bool) or top_n < 1):
        raise InvalidRequest("'top_n' must be a whole number, 1 or more.")
    model = body.get("model")
    if model is not None and not isinstance(model, str):
        raise InvalidRequest("'model' must be a string.")
    keep = body.get("return_documents", False)
    if not isinstance(keep, bool):
        raise InvalidRequest("'return_documents' must be true or false.")
    return RerankRequest(model or None, query, tuple(documents), top_n, keep)


def rerank_response(name: str, req: RerankRequest, scores: list[float]) -> dict[str, Any]:
    order = sorted(range(len(scores)), key=lambda i: scores[i], reverse=True)
    if req.top_n is not None:
        order = order[: req.top_n]
    results = []
    for i in order:
        result: dict[str, Any] = {"index": i, "relevance_score": _finite(scores[i])}
        if req.return_documents:
            result["document"] = {"text": req.documents[i]}
        results.append(result)
    return {"object": "list", "model": name, "results": results}


def _finite(x: float) -> float:
    return x if math.isfinite(x) else (-1e30 if x < 0 else 1e30)
