"""The usual local-documents recipe, as the fixed reference every retrieval change is judged
against (GPT4All's LocalDocs: text per page, 512-character snippets cut at word boundaries,
BM25 keyword search and sentence vectors fused by reciprocal rank). Here with SQLite FTS5's
BM25 (its default tokenizer) and the same all-MiniLM-L6-v2 vectors Cove uses, so that the
comparison is about reading, chunking and ranking, not about the encoder."""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SNIPPET_CHARS = 512
CANDIDATES = 50
RRF_K = 60  # Cormack, Clarke and Buettcher, SIGIR 2009
_WORD = re.compile(r"\w+")


@dataclass(frozen=True, slots=True)
class Hit:
    path: str
    page: int | None
    text: str


def read_pages(path: Path) -> list[tuple[int | None, str]]:
    """(page, text) for a PDF's pages; one unpaged text for other files (HTML without tags)."""
    suffix = path.suffix.lower()
    if suffix == ".pdf":
        import pypdfium2 as pdfium

        document = pdfium.PdfDocument(str(path))
        pages: list[tuple[int | None, str]] = []
        for index in range(len(document)):
            page = document[index]
            textpage = page.get_textpage()
            pages.append((index + 1, textpage.get_text_range()))
            textpage.close()
            page.close()
        document.close()
        return pages
    if suffix == ".docx":
        import docx

        document = docx.Document(str(path))
        texts = [p.text for p in document.paragraphs]
        for table in document.tables:
            texts += [" ".join(cell.text for cell in row.cells) for row in table.rows]
        return [(None, "\n".join(texts))]
    raw = path.read_text(encoding="utf-8", errors="replace")
    if suffix in (".html", ".htm"):
        from bs4 import BeautifulSoup

        raw = BeautifulSoup(raw, "html.parser").get_text(" ")
    return [(None, raw)]


def snippets(text: str, size: int = SNIPPET_CHARS) -> list[str]:
    words = text.split()
    out: list[str] = []
    current: list[str] = []
    length = 0
    for word in words:
        if current and length + 1 + len(word) > size:
            out.append(" ".join(current))
            current, length = [], 0
        current.append(word)
        length += len(word) + (1 if length else 0)
    if current:
        out.append(" ".join(current))
    return out


class UsualRecipe:
    def __init__(self, root: Path, encoder: Any) -> None:
        import numpy as np

        self.encoder = encoder
        self.hits: list[Hit] = []
        for path in sorted(p for p in root.rglob("*") if p.is_file()):
            for page, text in read_pages(path):
                self.hits += [Hit(str(path), page, s) for s in snippets(text)]
        self.db = sqlite3.connect(":memory:")
        self.db.execute("CREATE VIRTUAL TABLE s USING fts5(body)")
        self.db.executemany(
            "INSERT INTO s(rowid, body) VALUES (?, ?)",
            [(i, h.text) for i, h in enumerate(self.hits)],
        )
        vectors = encoder.embed([h.text for h in self.hits], batch_size=64)
        self.matrix = np.asarray(vectors, np.float32)

    def search(self, question: str, k: int) -> list[Hit]:
        import numpy as np

        words = list(dict.fromkeys(w.lower() for w in _WORD.findall(question)))
        ranked: list[list[int]] = []
        if words:
            query = " OR ".join(f'"{w}"' for w in words)
            rows = self.db.execute(
                "SELECT rowid FROM s WHERE s MATCH ? ORDER BY bm25(s) LIMIT ?", (query, CANDIDATES)
            ).fetchall()
            ranked.append([r[0] for r in rows])
        q = np.asarray(self.encoder.embed([question])[0], np.float32)
        scores = self.matrix @ q
        ranked.append([int(i) for i in np.argsort(-scores)[:CANDIDATES]])
        fused: dict[int, float] = {}
        for order in ranked:
            for rank, i in enumerate(order):
                fused[i] = fused.get(i, 0.0) + 1.0 / (RRF_K + rank + 1)
        best = sorted(fused, key=lambda i: fused[i], reverse=True)[:k]
        return [self.hits[i] for i in best]
