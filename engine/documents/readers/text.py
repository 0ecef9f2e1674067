"""Plain text, streamed line by line (a file of gigabytes is read in bounded memory).

The encoding is taken from a byte-order mark (UTF-8, UTF-16), else UTF-8, else Windows-1252 with
undecodable bytes replaced: a text never fails to read for its encoding. Binary data (NUL bytes,
many control characters) is refused. Paragraphs are separated by blank lines; a short line in
capitals ("2. PASSWORDS", "24/053 CINDER QUAY FOOTBRIDGE") is a heading.
"""

from __future__ import annotations

import codecs
import io
import re
from collections.abc import Iterator
from pathlib import Path

from engine.documents.blocks import Block
from engine.errors import DocumentError

SNIFF_BYTES = 64 << 10
MAX_PARAGRAPH = 4000
HEADING_MAX = 80
_CONTROL = set(range(0, 9)) | {11, 12} | set(range(14, 32))


def sniff_encoding(head: bytes) -> str:
    """The encoding of a text that starts with ``head``; DocumentError for binary data."""
    for bom, name in (
        (codecs.BOM_UTF8, "utf-8-sig"),
        (codecs.BOM_UTF16_LE, "utf-16"),
        (codecs.BOM_UTF16_BE, "utf-16"),
    ):
        if head.startswith(bom):
            return name
    if b"\x00" in head or sum(b in _CONTROL for b in head) > len(head) // 20:
        raise DocumentError("binary data, not text")
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 4:  # not just a character cut at the end of the sample
            return "cp1252"
    return "utf-8"


def is_heading(line: str) -> bool:
    letters = [c for c in line if c.isalpha()]
    return (
        0 < len(line) <= HEADING_MAX
        and len(letters) >= 3
        and all(c.isupper() for c in letters)
        and not line.rstrip().endswith((".", ",", ";"))
    )


def read_text(path: Path) -> Iterator[Block]:
    with path.open("rb") as raw:
        encoding = sniff_encoding(raw.read(SNIFF_BYTES))
        raw.seek(0)
        stream = io.TextIOWrapper(raw, encoding=encoding, errors="replace", newline=None)
        yield from text_blocks(stream)


def text_blocks(lines: Iterator[str] | io.TextIOBase) -> Iterator[Block]:
    heading: tuple[str, ...] = ()
    paragraph: list[str] = []
    size = 0

    def flush() -> Iterator[Block]:
        nonlocal paragraph, size
        if paragraph:
            yield Block("paragraph", " ".join(paragraph), headings=heading)
        paragraph, size = [], 0

    for raw_line in lines:
        line = raw_line.strip()
        if not line:
            yield from flush()
            continue
        if not paragraph and is_heading(line):
            yield Block("heading", _title(line), level=1)
            heading = (_title(line),)
            continue
        paragraph.append(line)
        size += len(line) + 1
        if size >= MAX_PARAGRAPH:
            yield from flush()
    yield from flush()


def _title(line: str) -> str:
    return re.sub(r"\s+", " ", line).strip(" :")
