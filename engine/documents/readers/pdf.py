"""PDF, read by PDFium (pypdfium2): the text layer page by page, every block with its 1-based
page number, so that a citation names the page the passage is on.

PDF text comes as lines. Paragraphs are rebuilt from them (a line much shorter than the page's
text width ends one); a short line without closing punctuation, followed by more text, is a
heading. A running header or footer (the same line, digits aside, on most pages) is dropped.
A page with images and no text layer (or a few characters of one, a page number) is a scanned
page: it is reported as needing OCR, never indexed as empty. Pages stream: only the first
``RUNNING_WINDOW`` are held at once, to find the running headers. An encrypted or damaged file
is refused with the reason; one bad page is reported and the rest are read.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from engine.documents.blocks import Block, PageIssue
from engine.errors import DocumentError

MIN_TEXT_CHARS = 16  # less than this on a page with an image: a scan
RUNNING_WINDOW = 12  # pages read ahead to find running headers and footers
HEADING_MAX = 80
SHORT_LINE = 0.7  # of the page's longest line: a line this short ends its paragraph
_DIGITS = re.compile(r"\d+")


def read_pdf(path: Path) -> Iterator[Block | PageIssue]:
    import pypdfium2 as pdfium

    with path.open("rb") as f:
        if b"%PDF-" not in f.read(1024):  # where PDF readers look for the header
            raise DocumentError("not a PDF file (no PDF header)")
    try:
        document = pdfium.PdfDocument(str(path))
    except pdfium.PdfiumError as exc:
        raise DocumentError(_reason(str(exc))) from None
    try:
        texts = (_page_text(document, index) for index in range(len(document)))
        # Running headers are found in the first pages only, so that the rest streams.
        first = list(itertools.islice(texts, RUNNING_WINDOW))
        repeated = _running_lines(first)
        heading: tuple[str, ...] = ()
        for index, text in enumerate(itertools.chain(first, texts)):
            number = index + 1
            if text is None:
                yield PageIssue(number, "unreadable")
                continue
            if len(text.strip()) < MIN_TEXT_CHARS and _has_images(document, index):
                yield PageIssue(number, "needs_ocr")
                continue
            lines = [
                line.strip()
                for line in text.splitlines()
                if line.strip() and _shape(line) not in repeated
            ]
            for block in _blocks(lines, number, heading):
                if block.kind == "heading":
                    heading = (block.text,)
                yield block
    finally:
        document.close()


def _page_text(document: Any, index: int) -> str | None:
    try:
        page = document[index]
    except Exception:
        return None
    try:
        textpage = page.get_textpage()
        try:
            return str(textpage.get_text_range())
        finally:
            textpage.close()
    except Exception:
        return None
    finally:
        page.close()


def _has_images(document: Any, index: int) -> bool:
    import pypdfium2.raw as raw

    try:
        page = document[index]
    except Exception:  # the page loaded a moment ago for its text; if not now, it is no scan
        return False
    try:
        return any(obj.type == raw.FPDF_PAGEOBJ_IMAGE for obj in page.get_objects(max_depth=2))
    finally:
        page.close()


def _shape(line: str) -> str:
    return _DIGITS.sub("#", " ".join(line.split()))


def _running_lines(texts: list[str | None]) -> set[str]:
    """Lines that recur, digits aside, on most pages: running headers and footers."""
    pages = [t for t in texts if t]
    if len(pages) < 3:
        return set()
    counts: Counter[str] = Counter()
    for text in pages:
        lines = [line for line in text.splitlines() if line.strip()]
        counts.update({_shape(line) for line in lines[:2] + lines[-2:]})
    return {shape for shape, n in counts.items() if n >= max(3, len(pages) * 0.6)}


def _blocks(lines: list[str], page: int, heading: tuple[str, ...]) -> Iterator[Block]:
    if not lines:
        return
    width = max(len(line) for line in lines)
    paragraph: list[str] = []

    def flush() -> Iterator[Block]:
        if paragraph:
            yield Block("paragraph", " ".join(paragraph), page=page, headings=heading)
            paragraph.clear()

    candidate = [_heading_like(line, width) for line in lines]
    for i, line in enumerate(lines):
        following = lines[i + 1] if i + 1 < len(lines) else None
        # A run of short lines is a table or a list, not a heading followed by its text.
        alone = following is not None and not candidate[i + 1] and (i == 0 or not candidate[i - 1])
        if not paragraph and candidate[i] and alone:
            heading = (line,)
            yield Block("heading", line, page=page, level=1)
            continue
        paragraph.append(line)
        ends = len(line) < width * SHORT_LINE and line.endswith((".", ":", "!", "?", ")", '"'))
        if ends or (following is not None and _starts_item(following)) or candidate[i]:
            yield from flush()
    yield from flush()


def _heading_like(line: str, width: int) -> bool:
    """Short, capitalised (or numbered: "3. Test units"), no closing punctuation, not a row of
    figures."""
    words = line.split()
    numbers = sum(bool(re.fullmatch(r"[\d.,%()+\-]+", w)) for w in words)
    numbered = re.match(r"^\d+(\.\d+)*\.?\s+\S", line) is not None
    return (
        len(line) <= min(HEADING_MAX, width * 0.6)
        and (line[:1].isupper() or numbered)
        and not line.endswith((".", ",", ";", ":", "?", "!"))
        and len(words) <= 10
        and numbers <= (1 if numbered else 0)
    )


def _starts_item(line: str) -> bool:
    return bool(re.match(r"^(\u2022|-|\*|\d+[.)])\s", line))


def _reason(message: str) -> str:
    lowered = message.lower()
    if "password" in lowered:
        return "encrypted PDF (needs a password)"
    if "format" in lowered or "file" in lowered:
        return "damaged or truncated PDF"
    return f"unreadable PDF ({message})"
