"""``cove index``, ``cove ask`` and ``cove collections``: document Q&A on the terminal."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from engine.errors import EngineError, InvalidRequest

PARTIAL_NOTE = "(The index is still being built: the answer may miss documents.)"

if TYPE_CHECKING:
    from engine.documents.embeddings import EmbeddingModel
    from engine.documents.index_db import Collection, IndexDB
    from engine.documents.indexer import IndexProgress
    from engine.documents.rerank import CrossEncoder


def open_encoder(path: str | None) -> EmbeddingModel | None:
    from engine.documents.embeddings import EmbeddingModel
    from engine.documents.encoder import default_encoder_folder

    folder = Path(path).expanduser() if path else default_encoder_folder()
    return EmbeddingModel.load(folder) if folder is not None else None


def open_reranker(path: str | None, *, enabled: bool = True) -> CrossEncoder | None:
    """The cross-encoder named, else the library's when it is installed; none when disabled."""
    from engine.documents.rerank import CrossEncoder, default_reranker_folder

    if not enabled:
        return None
    folder = Path(path).expanduser() if path else default_reranker_folder()
    return CrossEncoder.load(folder) if folder is not None else None


def index_command(
    paths: Sequence[str],
    collection_name: str,
    embedding_model: str | None,
    as_json: bool,
    out: TextIO = sys.stdout,
    err: TextIO = sys.stderr,
    *,
    ocr: bool = False,
) -> int:
    from engine.documents.index_db import IndexDB
    from engine.documents.indexer import Indexer

    if not collection_name.strip():
        raise InvalidRequest("--collection needs a name.")
    encoder = open_encoder(embedding_model)
    db = IndexDB()
    try:
        new = db.collection(collection_name) is None
        collection = db.collection(collection_name, create=True)
        assert collection is not None
        progress = _Progress(err) if err.isatty() and not as_json else None
        indexer = Indexer(db, collection, encoder, progress=progress, ocr=ocr)
        outcomes = indexer.add([Path(p) for p in paths])
        collection = indexer.collection
        summary = _summary(db, collection)
        if new and not any(o.outcome in ("indexed", "unchanged") for o in outcomes):
            db.remove_collection(collection)  # nothing went in: no empty collection is left
    finally:
        db.close()
        if encoder is not None:
            encoder.close()
    usable = [o for o in outcomes if o.outcome in ("indexed", "unchanged")]
    if as_json:
        data = {
            "collection": collection.name,
            "encoder": collection.encoder,
            "files": [o.to_dict() for o in outcomes],
            **summary,
        }
        print(json.dumps(data, indent=2), file=out)
    else:
        for o in outcomes:
            detail = f"{o.chunks} chunks" if o.outcome in ("indexed", "unchanged") else ""
            reason = f" ({o.reason})" if o.reason else ""
            print(f"{o.outcome:<10} {o.path}  {detail}{reason}".rstrip(), file=out)
        print(
            f"Collection {collection.name!r}: {summary['files_indexed']} files, "
            f"{summary['chunks']} chunks.",
            file=out,
        )
        if encoder is None:
            print(
                "No embedding model: keyword search only. 'cove pull all-minilm-l6-v2' adds "
                "search by meaning; run 'cove index' again afterwards.",
                file=out,
            )
    if not usable:
        print("cove: error: nothing could be indexed.", file=err)
        return 1
    return 0


def ask_command(
    question: str,
    collection_name: str,
    *,
    top_k: int,
    retrieve_only: bool,
    model: str | None,
    embedding_model: str | None,
    as_json: bool,
    out: TextIO = sys.stdout,
    reranker_model: str | None = None,
    rerank: bool = True,
) -> int:
    from engine.documents.answerable import judge
    from engine.documents.index_db import IndexDB
    from engine.documents.indexer import check_encoder
    from engine.documents.retrieve import Retriever

    db = IndexDB()
    encoder: EmbeddingModel | None = None
    reranker: CrossEncoder | None = None
    try:
        collection = _existing(db, collection_name)
        if collection.encoder is not None or embedding_model:
            encoder = open_encoder(embedding_model)
            if encoder is not None:
                check_encoder(db, collection, encoder)
        reranker = open_reranker(reranker_model, enabled=rerank)
        retriever = Retriever(db, collection, encoder, reranker)
        sources = retriever.search(question, top_k)
        verdict = judge(retriever, question, sources)
        pending = db.count_unembedded(collection) if encoder is not None else 0
        partial = pending > 0 or any(f.status == "pending" for f in db.files(collection))
    finally:
        db.close()
        if encoder is not None:
            encoder.close()
        if reranker is not None:
            reranker.close()
    answer: str | None = None
    if not retrieve_only:
        from engine.documents.answer import answer_question

        answer = answer_question(
            question,
            sources,
            model=model,
            out=None if as_json else out,
            refuse=None if verdict.answerable else verdict.reason,
        )
    if partial:
        print(PARTIAL_NOTE, file=sys.stderr if as_json else out)
    unsupported = []
    if answer is not None:
        from engine.documents.grounding import claims

        unsupported = [c.text for c in claims(answer, [s.text for s in sources]) if not c.supported]
    if as_json:
        data = {
            "answer": answer,
            "answerable": verdict.answerable,
            "not_found_reason": None if verdict.answerable else verdict.reason,
            "unsupported_claims": unsupported,
            "sources": [s.to_dict() for s in sources],
        }
        print(json.dumps(data, indent=2), file=out)
        return 0
    if not verdict.answerable and not retrieve_only:
        print(f"({verdict.reason}; closest I found:)", file=out)
    for text in unsupported:
        print(f"Not found in the sources: {text}", file=out)
    if retrieve_only or answer is not None:
        _print_sources(sources, out)
    return 0


def collections_command(
    as_json: bool, remove: str | None, paths: Sequence[str], out: TextIO = sys.stdout
) -> int:
    from engine.documents.index_db import IndexDB

    db = IndexDB()
    try:
        if remove is not None:
            collection = _existing(db, remove)
            if paths:
                removed = sum(
                    db.remove_source(collection, str(Path(p).expanduser().absolute()))
                    for p in paths
                )
                print(f"Removed {removed} files from {remove!r}.", file=out)
            else:
                db.remove_collection(collection)
                print(f"Removed the collection {remove!r}.", file=out)
            return 0
        listing = [
            {"name": c.name, "encoder": c.encoder, "sources": db.sources(c), **_summary(db, c)}
            for c in db.collections()
        ]
    finally:
        db.close()
    if as_json:
        print(json.dumps({"collections": listing}, indent=2), file=out)
        return 0
    if not listing:
        print("No collections. 'cove index PATH --collection NAME' makes one.", file=out)
    for c in listing:
        print(
            f"{c['name']}: {c['files_indexed']} files indexed, {c['chunks']} chunks"
            f"{', ' + str(c['files_needing_ocr']) + ' need OCR' if c['files_needing_ocr'] else ''}"
            f"{', ' + str(c['files_skipped']) + ' skipped' if c['files_skipped'] else ''}",
            file=out,
        )
    return 0


def _existing(db: IndexDB, name: str) -> Collection:
    collection = db.collection(name)
    if collection is None:
        known = ", ".join(c.name for c in db.collections()) or "none yet"
        raise EngineError(f"No collection named {name!r} (collections: {known}).")
    return collection


def _summary(db: IndexDB, collection: Collection) -> dict[str, int]:
    files = db.files(collection)
    return {
        "files_indexed": sum(f.status == "indexed" for f in files),
        "files_needing_ocr": sum(f.status == "needs_ocr" or bool(f.ocr_pages) for f in files),
        "files_skipped": sum(f.status == "skipped" for f in files),
        "chunks": sum(f.chunks for f in files),
    }


def _print_sources(sources: Sequence[object], out: TextIO) -> None:
    from engine.documents.retrieve import Source

    for n, source in enumerate(sources, 1):
        assert isinstance(source, Source)
        where = source.path + (f", page {source.page}" if source.page else "")
        heading = f" — {source.heading}" if source.heading else ""
        excerpt = " ".join(source.text.split())[:160]
        print(f"[{n}] {where}{heading}\n    {excerpt}", file=out)


class _Progress:
    def __init__(self, err: TextIO) -> None:
        self._err = err

    def __call__(self, p: IndexProgress) -> None:
        if p.phase == "reading" and p.files_total:
            rate = f", {p.rate:.0f} pages/s" if p.rate else ""
            line = f"\rReading {p.files_done}/{p.files_total} files{rate}"
        elif p.phase == "embedding" and p.chunks_total:
            rate = f", {p.rate:.0f} passages/s" if p.rate else ""
            eta = f", {p.eta_s:.0f} s left" if p.eta_s else ""
            line = f"\rEmbedding {p.chunks_embedded}/{p.chunks_total} chunks{rate}{eta}"
        else:
            line = "\r"
        self._err.write(line.ljust(60))
        self._err.flush()
        if p.phase == "done":
            self._err.write("\n")
