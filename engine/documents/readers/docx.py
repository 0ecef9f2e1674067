"""Word documents, read by python-docx in document order: headings (by their paragraph styles),
paragraphs, list items and tables (every row with the table's first row as its header).

A .docx is a zip archive, checked before python-docx opens it: not a zip, or one whose members
would inflate far beyond any real document (a zip bomb), is refused with the reason.
"""

from __future__ import annotations

import re
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from engine.documents.blocks import Block, BlockKind, table_rows
from engine.errors import DocumentError

MAX_UNCOMPRESSED = 200 << 20  # all members together, inflated
MAX_MEMBERS = 10_000
MAX_RATIO = 100  # inflated to compressed, for a member over RATIO_FROM bytes
RATIO_FROM = 8 << 20
_HEADING_STYLE = re.compile(r"^heading (\d)$", re.IGNORECASE)


def check_zip(path: Path) -> None:
    """Refuse what is not a DOCX or would inflate far beyond any real document.

    The sizes checked are the ones the archive declares; they bound what is read, because
    Python's zipfile (which python-docx reads through) stops a member at its declared size.
    """
    if not zipfile.is_zipfile(path):
        raise DocumentError("not a DOCX file (not a zip archive)")
    try:
        with zipfile.ZipFile(path) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, OSError) as exc:
        raise DocumentError(f"damaged DOCX file ({exc})") from None
    total = sum(m.file_size for m in members)
    inflates = any(
        m.file_size > RATIO_FROM and m.file_size > MAX_RATIO * max(m.compress_size, 1)
        for m in members
    )
    if total > MAX_UNCOMPRESSED or len(members) > MAX_MEMBERS or inflates:
        raise DocumentError("looks like a zip bomb (it would inflate to far more than it holds)")
    if not any(m.filename == "word/document.xml" for m in members):
        raise DocumentError("not a DOCX file (a zip archive without a Word document)")


def read_docx(path: Path) -> Iterator[Block]:
    import docx
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    check_zip(path)
    try:
        document = docx.Document(str(path))
    except Exception as exc:  # python-docx raises several kinds on a damaged package
        raise DocumentError(f"damaged DOCX file ({type(exc).__name__}: {exc})") from None
    path_: list[tuple[int, str]] = []
    body = document.element.body
    for element in body.iterchildren():
        tag = element.tag.rsplit("}", 1)[-1]
        headings = tuple(h for _l, h in path_)
        if tag == "p":
            paragraph = Paragraph(element, document)
            text = " ".join(paragraph.text.split())
            if not text:
                continue
            level = _heading_level(paragraph)
            if level:
                path_ = [(lvl, h) for lvl, h in path_ if lvl < level]
                yield Block("heading", text, headings=tuple(h for _l, h in path_), level=level)
                path_.append((level, text))
            else:
                kind: BlockKind = "list_item" if _is_list(paragraph) else "paragraph"
                yield Block(kind, text, headings=headings)
        elif tag == "tbl":
            yield from _table(Table(element, document), headings)


def _heading_level(paragraph: Any) -> int:
    name = (paragraph.style.name if paragraph.style is not None else "") or ""
    if name.lower() == "title":
        return 1
    match = _HEADING_STYLE.match(name)
    return int(match.group(1)) if match else 0


def _is_list(paragraph: Any) -> bool:
    name = (paragraph.style.name if paragraph.style is not None else "") or ""
    numbered = paragraph._p.pPr is not None and paragraph._p.pPr.numPr is not None
    return "list" in name.lower() or numbered


def _table(table: Any, headings: tuple[str, ...]) -> Iterator[Block]:
    """The table's rows after the first, each with the first as its header."""
    return table_rows(((_cells(row), True) for row in table.rows), headings)


def _cells(row: Any) -> list[str]:
    cells: list[str] = []
    seen: set[int] = set()
    for cell in row.cells:
        if id(cell._tc) in seen:  # a merged cell appears once for each column it spans
            continue
        seen.add(id(cell._tc))
        cells.append(" ".join(cell.text.split()))
    return cells
