"""What a document reader gives the chunker: the document's text as a sequence of structural
blocks, in reading order, each with where it is (page, heading path).

Readers never decide chunk sizes; they keep structure (headings, paragraphs, list items, table
rows with their header) so that the chunker can cut along it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Literal

BlockKind = Literal["heading", "paragraph", "list_item", "table_row", "code", "page_break"]


@dataclass(frozen=True, slots=True)
class Block:
    kind: BlockKind
    text: str
    page: int | None = None  # 1-based, for paged formats (PDF); None otherwise
    # The headings this block sits under, outermost first: ("Installation", "On Windows").
    headings: tuple[str, ...] = ()
    level: int = 0  # for a heading: 1 for the top level
    # For a table row: the table's header row, repeated with every chunk the table is split into.
    table_header: str | None = None


def table_rows(
    rows: Iterable[tuple[Sequence[str], bool]], headings: tuple[str, ...]
) -> Iterator[Block]:
    """A table's rows as blocks, each ``(cells, may_be_header)``: the first row that may be the
    header is, and every other row carries it; empty rows are left out, and a table of a header
    alone is that row."""
    header: str | None = None
    body = 0
    for cells, may_be_header in rows:
        line = " | ".join(cells)
        if not line.strip(" |"):
            continue
        if header is None and may_be_header:
            header = line
            continue
        body += 1
        yield Block("table_row", line, headings=headings, table_header=header)
    if header is not None and not body:
        yield Block("table_row", header, headings=headings)


@dataclass(frozen=True, slots=True)
class PageIssue:
    """A page that could not be read as text: "needs_ocr" for a scanned page (no text layer);
    or one whose text came from OCR ("read_by_ocr"), so that the file's record says so."""

    page: int
    reason: Literal["needs_ocr", "unreadable", "read_by_ocr"]


@dataclass(slots=True)
class ParsedDocument:
    """One file read: its blocks, its page count (paged formats), and pages it could not read."""

    blocks: list[Block] = field(default_factory=list)
    pages: int | None = None
    issues: list[PageIssue] = field(default_factory=list)
    title: str | None = None
