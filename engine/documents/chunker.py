"""Blocks into chunks, along the document's own structure.

A chunk never crosses a page (so a citation is page-exact) or a heading (so it is about one
thing); within those it gathers whole paragraphs, list items or table rows up to a target size and
splits only a block too large to fit, at sentence boundaries. A table row is written with each
cell named by its column ("Model: X300; Battery: 5,000 mAh"), so the header goes with every row
into whichever chunk it lands in, and a figure is found beside what it measures (on the labelled
set this moved table questions from 0.80 to 0.87 recall@3). Each chunk knows its heading path;
the text that is indexed and embedded starts with it ("Battery > Charging: ..."), which places a
short passage in its context.

Sizes are in characters: about 4 per token for English, so the largest chunk stays inside the
encoder's window (all-MiniLM-L6-v2 reads 256 tokens) with its heading path.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from engine.documents.blocks import Block, PageIssue

TARGET_CHARS = 700
MAX_CHARS = 1000
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")
# A contents or index line's dot leaders ("Legalese . . . . . . 1"): four or more dots in a row,
# spaced or not. Each dot is a token to the encoder (they were 8 % of a set of manuals' tokens,
# and a contents page filled its window with them) and a character of the chunk's size.
_LEADER = re.compile(r"(?:[ \t]*\.){4,}[ \t]*")


@dataclass(frozen=True, slots=True)
class Chunk:
    ordinal: int  # position in the file, from 0
    text: str  # the passage as it reads in the document
    page: int | None
    headings: tuple[str, ...]

    @property
    def heading(self) -> str | None:
        return self.headings[-1] if self.headings else None

    def indexed_text(self, title: str | None = None) -> str:
        """What keyword search and the encoder see: title and heading path, then the passage."""
        context = [t for t in (title, *self.headings) if t]
        return (" > ".join(context) + ": " + self.text) if context else self.text


def chunk_blocks(
    items: Iterable[Block | PageIssue],
    *,
    target: int = TARGET_CHARS,
    limit: int = MAX_CHARS,
    issues: list[PageIssue] | None = None,
) -> Iterator[Chunk]:
    """Chunks from a reader's stream; page issues go to ``issues`` when given."""
    pending: list[str] = []
    size = 0
    key: tuple[int | None, tuple[str, ...]] | None = None
    header: str | None = None
    ordinal = 0

    def flush() -> Iterator[Chunk]:
        nonlocal pending, size, ordinal
        if pending and key is not None:
            text = "\n".join(pending).strip()
            if text:
                yield Chunk(ordinal, text, key[0], key[1])
                ordinal += 1
        pending, size = [], 0

    for item in items:
        if isinstance(item, PageIssue):
            if issues is not None:
                issues.append(item)
            continue
        if item.kind == "page_break":
            yield from flush()
            key, header = None, None
            continue
        if item.kind == "heading":
            yield from flush()
            key, header = (item.page, (*item.headings, item.text)), None
            continue
        here = (item.page, item.headings)
        row_header = item.table_header if item.kind == "table_row" else None
        if row_header is not None:
            # A row as "Model: X300; Battery: 5,000 mAh": each figure beside its column's name.
            item = Block(item.kind, _linearized(row_header, item.text), item.page, item.headings)
            row_header = None  # rows sit with the text about them, as in the document
        if here != key or row_header != header:
            yield from flush()
            key, header = here, row_header
        for piece in _pieces(_LEADER.sub(" … ", item.text).strip(), limit):
            if size and size + len(piece) + 1 > target:
                yield from flush()
            pending.append(piece)
            size += len(piece) + 1
    yield from flush()


CELL = " | "


def _linearized(header: str, row: str) -> str:
    """A table row with each cell named by its column; as it was when the two do not match."""
    names, cells = header.split(CELL), row.split(CELL)
    if len(names) != len(cells):
        return f"{header}\n{row}"
    return "; ".join(
        f"{name}: {cell}" if name else cell for name, cell in zip(names, cells, strict=True) if cell
    )


def _pieces(text: str, limit: int) -> Iterator[str]:
    """``text`` in pieces of at most ``limit`` characters, cut at sentence ends where possible,
    else at spaces, else anywhere."""
    limit = max(limit, 50)
    if len(text) <= limit:
        if text:
            yield text
        return
    current = ""
    for sentence in _SENTENCE_END.split(text):
        while len(sentence) > limit:
            cut = sentence.rfind(" ", 0, limit)
            cut = cut if cut > limit // 2 else limit
            if current:
                yield current
                current = ""
            yield sentence[:cut].strip()
            sentence = sentence[cut:].strip()
        if current and len(current) + 1 + len(sentence) > limit:
            yield current
            current = sentence
        else:
            current = f"{current} {sentence}".strip()
    if current:
        yield current
