"""Document Q&A speed: ingest (PDF pages per second read and chunked, chunks per second embedded),
query latency (p50/p95, the question's embedding included) at 10k and 100k chunks, and the peak
memory of indexing a 1,000-page PDF (measured in a fresh process, as its maximum RSS), and the
longest stall of the window's event loop while the Documents view indexes a folder (the labelled
corpus four times over and the PDF) on its worker thread.

The baseline in the same run is the floor under each figure: PDFium's own text extraction for
reading, and one bare encoder call per batch for embedding.

    python bench/bench_documents.py [--json out.json] [--quick]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

ENCODER = ROOT.parent / "shared" / "models" / "all-minilm-l6-v2-onnx"
WORDS = [
    "harbour",
    "tide",
    "ferry",
    "keeper",
    "lamp",
    "ledger",
    "quay",
    "boat",
    "island",
    "storm",
    "pier",
    "rope",
    "anchor",
    "gull",
    "lighthouse",
    "supplies",
    "winter",
    "barrel",
    "paraffin",
    "lens",
    "signal",
    "channel",
    "beacon",
    "buoy",
    "current",
]


def write_pdf(path: Path, pages: int) -> None:
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen.canvas import Canvas

    canvas = Canvas(str(path), pagesize=A4)
    for page in range(pages):
        canvas.drawString(60, 800, f"Section {page + 1}")
        y = 770
        for line in range(40):
            words = [WORDS[(page * 7 + line * 3 + i) % len(WORDS)] for i in range(14)]
            canvas.drawString(60, y, " ".join(words).capitalize() + ".")
            y -= 16
        canvas.showPage()
    canvas.save()


def read_pdf_rate(path: Path, pages: int) -> dict[str, float]:
    import pypdfium2 as pdfium

    from engine.documents.chunker import chunk_blocks
    from engine.documents.readers import read_document

    start = time.perf_counter()
    document = pdfium.PdfDocument(str(path))
    for i in range(len(document)):
        page = document[i]
        text = page.get_textpage()
        text.get_text_range()
        text.close()
        page.close()
    document.close()
    bare = time.perf_counter() - start
    start = time.perf_counter()
    chunks = sum(1 for _ in chunk_blocks(read_document(path)))
    ours = time.perf_counter() - start
    return {
        "pdfium_pages_per_s": pages / bare,
        "cove_pages_per_s": pages / ours,
        "ratio": bare / ours,
        "chunks": chunks,
    }


def embed_rate(encoder: Any, texts: list[str]) -> dict[str, float]:
    start = time.perf_counter()
    encoder.embed(texts, batch_size=64)
    seconds = time.perf_counter() - start
    return {"chunks_per_s": len(texts) / seconds}


def query_latency(encoder: Any, n_chunks: int, queries: int = 60) -> dict[str, float]:
    """A collection of ``n_chunks`` random unit vectors (the cost of search does not depend on
    what they say) plus real keyword text; latency of hybrid search, question embedding included."""
    import numpy as np

    from engine.documents.chunker import Chunk
    from engine.documents.index_db import IndexDB
    from engine.documents.retrieve import Retriever

    with tempfile.TemporaryDirectory() as folder:
        db = IndexDB(Path(folder) / "bench.sqlite3")
        collection = db.collection("bench", create=True)
        assert collection is not None
        collection = db.set_encoder(collection, f"{encoder.name}:{encoder.dimensions}", 384)
        db.mark(collection, "/bench/doc.txt", "pending")
        file_id = db.file_id(collection, "/bench/doc.txt")
        rng = np.random.default_rng(0)
        vocabulary = pseudo_words(20_000)
        ranks = np.arange(1, len(vocabulary) + 1)
        zipf = (1.0 / ranks) / (1.0 / ranks).sum()  # word frequencies as in real text
        for first in range(0, n_chunks, 5000):
            count = min(5000, n_chunks - first)
            picks = rng.choice(len(vocabulary), size=(count, 110), p=zipf)
            batch = [
                Chunk(first + n, " ".join(vocabulary[w] for w in row), 1, ())
                for n, row in enumerate(picks)
            ]
            db.add_chunks(file_id, batch, [c.text for c in batch])
        ids = [i for i, _b in db.unembedded(collection, n_chunks)]
        vectors = rng.standard_normal((len(ids), 384)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        db.store_vectors([(i, vectors[n].tobytes()) for n, i in enumerate(ids)])
        db.finish_file(file_id, "indexed", pages=1, ocr_pages=())
        retriever = Retriever(db, collection, encoder)
        retriever.search("warm up the matrix", 5)
        times = []
        for q in range(queries):
            word_a, word_b = vocabulary[40 + q * 7], vocabulary[300 + q * 11]
            question = f"When does the {word_a} {word_b} arrive?"
            start = time.perf_counter()
            retriever.search(question, 5)
            times.append(time.perf_counter() - start)
        db.close()
    times.sort()
    return {
        "p50_ms": statistics.median(times) * 1000,
        "p95_ms": times[int(len(times) * 0.95) - 1] * 1000,
    }


def pseudo_words(n: int) -> list[str]:
    """``n`` distinct word-like strings (consonant-vowel syllables)."""
    consonants, vowels = "bcdfghklmnprstvw", "aeiou"
    words = []
    for i in range(n):
        syllables, k = [], i
        for _ in range(3):
            syllables.append(consonants[k % 16] + vowels[(k // 16) % 5])
            k //= 80
        words.append("".join(syllables) + str(i // 512000 or ""))
    return words


def peak_rss_indexing(pdf: Path) -> float:
    """Maximum RSS (MiB) of a fresh process that indexes ``pdf`` (keyword index; vectors too)."""
    code = (
        "import sys; from pathlib import Path; sys.path.insert(0, sys.argv[3]);"
        "from engine.documents.index_db import IndexDB;"
        "from engine.documents.indexer import Indexer;"
        "from engine.documents.embeddings import EmbeddingModel;"
        "db = IndexDB(Path(sys.argv[2])); c = db.collection('b', create=True);"
        "enc = EmbeddingModel.load(Path(sys.argv[4]));"
        "Indexer(db, c, enc).add([Path(sys.argv[1])])"
    )
    with tempfile.TemporaryDirectory() as folder:
        db_path = Path(folder) / "peak.sqlite3"
        proc = subprocess.Popen(
            [sys.executable, "-c", code, str(pdf), str(db_path), str(ROOT), str(ENCODER)]
        )
        _pid, status, usage = os.wait4(proc.pid, 0)
        if status != 0:
            raise RuntimeError("the indexing process failed")
    return usage.ru_maxrss / 1024


def ui_stall_while_indexing(pdf: Path, encoder: Any) -> dict[str, float]:
    """The Documents view indexing a folder while a 5 ms heartbeat runs on the UI thread: the
    longest gap between beats, and the same meter over an idle second as the baseline."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    import shutil

    from PySide6.QtCore import QEventLoop, QTimer
    from PySide6.QtWidgets import QApplication

    from app.common.theme import ThemeManager
    from app.common.workers import install_invoker
    from app.documents.view import DocumentsView
    from app.shell.stall_meter import StallMeter
    from engine.documents.index_db import IndexDB
    from tests.support.corpus.build import build_corpus

    app = QApplication.instance() or QApplication([])
    install_invoker()
    ThemeManager(app, "light")  # type: ignore[arg-type]
    with tempfile.TemporaryDirectory() as folder:
        docs = Path(folder) / "docs"
        for copy in range(4):
            build_corpus(docs / f"copy{copy}")
        shutil.copy(pdf, docs / "book.pdf")
        view = DocumentsView(IndexDB(Path(folder) / "ui.sqlite3"), lambda: encoder)
        view.resize(1100, 720)
        view.show()
        meter = StallMeter()
        loop = QEventLoop()
        QTimer.singleShot(1000, loop.quit)
        meter.start()
        loop.exec()
        meter.stop()
        idle = meter.max_stall_ms
        view.new_collection("bench")
        view.indexing_finished.connect(loop.quit)
        meter.start()
        started = time.perf_counter()
        view.add_paths([docs])
        loop.exec()
        meter.stop()
        seconds = time.perf_counter() - started
        view.pool.wait(60_000)
        view.db.close()
        view.close()
    return {"indexing_s": seconds, "max_stall_ms": meter.max_stall_ms, "idle_max_stall_ms": idle}


def real_set_rates(encoder: Any, folder: Path) -> dict[str, float]:
    """Index the real-document set (bench/real_docs.py) into a fresh index: pages a second
    read and chunked, passages a second embedded, and the whole."""
    from engine.documents.index_db import IndexDB
    from engine.documents.indexer import Indexer, IndexProgress
    from tests.support.real_docs import fetch

    db = IndexDB(folder / "real.sqlite3")
    collection = db.collection("real", create=True)
    assert collection is not None
    marks: dict[str, float] = {}

    def progress(p: IndexProgress) -> None:
        if p.phase == "reading":  # the last such report is when reading ends
            marks["read"] = time.perf_counter()

    indexer = Indexer(db, collection, encoder, progress=progress)
    started = time.perf_counter()
    outcomes = indexer.add([fetch()])
    ended = time.perf_counter()
    pages = sum(o.pages or 0 for o in outcomes)
    passages = sum(o.chunks for o in outcomes)
    db.close()
    return {
        "pages": pages,
        "passages": passages,
        "pages_per_s": pages / (marks["read"] - started),
        "passages_per_s": passages / (ended - marks["read"]),
        "total_s": ended - started,
    }


def main() -> int:
    from engine.documents.embeddings import EmbeddingModel

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--quick", action="store_true", help="100-page PDF, 10k chunks only")
    parser.add_argument(
        "--real", action="store_true", help="only: index the real-document set, with rates"
    )
    parser.add_argument(
        "--encoder", type=Path, default=ENCODER, help="with --real: an embedding model folder"
    )
    args = parser.parse_args()
    if args.real:
        with tempfile.TemporaryDirectory() as folder, EmbeddingModel.load(args.encoder) as encoder:
            rates = real_set_rates(encoder, Path(folder))
        print(json.dumps(rates, indent=2))
        if args.json:
            args.json.write_text(json.dumps(rates, indent=2) + "\n")
        return 0
    pages = 100 if args.quick else 1000
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as folder, EmbeddingModel.load(ENCODER) as encoder:
        pdf = Path(folder) / "book.pdf"
        write_pdf(pdf, pages)
        results["read_pdf"] = read_pdf_rate(pdf, pages)
        texts = [" ".join(WORDS[(i + k) % len(WORDS)] for k in range(110)) for i in range(512)]
        results["embed"] = embed_rate(encoder, texts)
        sizes = (10_000,) if args.quick else (10_000, 100_000)
        results["query"] = {str(n): query_latency(encoder, n) for n in sizes}
        results["peak_rss_mib"] = {str(pages): peak_rss_indexing(pdf)}
        small = Path(folder) / "small.pdf"
        write_pdf(small, pages // 10)
        results["peak_rss_mib"][str(pages // 10)] = peak_rss_indexing(small)
        results["ui"] = ui_stall_while_indexing(small, encoder)
    print(json.dumps(results, indent=2))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
