"""Readers: a file's text as structural blocks (``engine.documents.blocks``), streamed so that
memory stays bounded, by a well-kept library per format (docs/DEPENDENCIES.md says which and
why). A file that cannot be read at all raises ``DocumentError`` with the reason in words; a page
that cannot be read is reported as a ``PageIssue`` and the rest goes on."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from engine.documents.blocks import Block, PageIssue
from engine.errors import DocumentError

if TYPE_CHECKING:
    from engine.documents.ocr import PageOcr

PDF = frozenset({".pdf"})
DOCX = frozenset({".docx"})
MARKDOWN = frozenset({".md", ".markdown"})
HTML = frozenset({".html", ".htm"})
TEXT = frozenset({".txt", ".text"})
SUPPORTED_SUFFIXES = PDF | DOCX | MARKDOWN | HTML | TEXT


def read_document(path: Path, *, ocr: PageOcr | None = None) -> Iterator[Block | PageIssue]:
    """The blocks of the file at ``path``, in reading order, by the reader for its suffix; a file
    with any other suffix (or none) is read as plain text if it is text.

    An empty or missing file raises ``DocumentError`` at once; any other reason a file cannot be
    read (encrypted, damaged, binary) raises it from the first ``next()``. With ``ocr``, a PDF's
    scanned pages are read by it.
    """
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise DocumentError(exc.strerror or str(exc)) from None
    if size == 0:
        raise DocumentError("empty file")
    return _reported(_reader(path, ocr))


def _reader(path: Path, ocr: PageOcr | None) -> Iterator[Block | PageIssue]:
    suffix = path.suffix.lower()
    if suffix in PDF:
        from engine.documents.readers.pdf import read_pdf

        return read_pdf(path, ocr=ocr)
    if suffix in DOCX:
        from engine.documents.readers.docx import read_docx

        return read_docx(path)
    if suffix in MARKDOWN:
        from engine.documents.readers.markdown import read_markdown

        return read_markdown(path)
    if suffix in HTML:
        from engine.documents.readers.html import read_html

        return read_html(path)
    from engine.documents.readers.text import read_text

    return read_text(path)


def _reported(items: Iterator[Block | PageIssue]) -> Iterator[Block | PageIssue]:
    """``items``, with a file that stops being readable midway (removed, a disk error) reported
    as a ``DocumentError`` like any other unreadable file."""
    try:
        yield from items
    except OSError as exc:
        raise DocumentError(exc.strerror or str(exc)) from None
