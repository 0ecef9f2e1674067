"""Plain text, streamed: a file of gigabytes, even one without a single line break, is read in
bounded memory.

The encoding is taken from a byte-order mark (UTF-8, UTF-16), else UTF-8, else Windows-1252 with
undecodable bytes replaced: a text never fails to read for its encoding. Binary data (NUL bytes,
many control characters) is refused. Paragraphs are separated by blank lines, and one longer than
``MAX_PARAGRAPH`` comes in pieces cut at sentence ends (else line ends, else spaces) so that no
block is huge. A short line in capitals ("2. PASSWORDS", "24/053 CINDER QUAY FOOTBRIDGE") is a
heading.
"""

from __future__ import annotations

import codecs
import io
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

from engine.documents.blocks import Block
from engine.errors import DocumentError

SNIFF_BYTES = 64 << 10
READ_CHARS = 16 << 10  # the most of one line read at once
MAX_PARAGRAPH = 4000
HEADING_MAX = 80
_CONTROL = set(range(0, 9)) | {11, 12} | set(range(14, 32))
_SENTENCE_END = re.compile(r"[.!?][\"')\]]*\s")


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
    if len(line) > HEADING_MAX or line != line.upper():  # cheap: most lines stop here
        return False
    letters = [c for c in line if c.isalpha()]
    return (
        len(letters) >= 3
        and all(c.isupper() for c in letters)
        and not line.rstrip().endswith((".", ",", ";"))
    )


def read_text(path: Path) -> Iterator[Block]:
    with path.open("rb") as raw:
        encoding = sniff_encoding(raw.read(SNIFF_BYTES))
        raw.seek(0)
        stream = io.TextIOWrapper(raw, encoding=encoding, errors="replace", newline=None)
        # readline with a limit: a line longer than that arrives in pieces, never whole.
        yield from text_blocks(iter(lambda: stream.readline(READ_CHARS), ""))


def text_blocks(pieces: Iterable[str]) -> Iterator[Block]:
    """Blocks from text given line by line; a piece that does not end in a newline is continued
    by the next one (how a line longer than the read limit arrives)."""
    heading: tuple[str, ...] = ()
    buffer = ""  # the paragraph so far, its lines joined by "\n"
    at_line_start = True
    for piece in pieces:
        complete = piece.endswith("\n")
        text = piece.rstrip("\r\n") if complete else piece
        if at_line_start and complete and not text.strip():
            if buffer.strip():
                yield _paragraph(buffer, heading)
            buffer = ""
            continue
        if at_line_start and complete and is_heading(text.strip()) and not buffer.strip():
            title = _title(text)
            yield Block("heading", title, level=1)
            heading = (title,)
            continue
        buffer += ("\n" + text) if at_line_start else text
        at_line_start = complete
        while len(buffer) > MAX_PARAGRAPH:
            cut = _cut(buffer, MAX_PARAGRAPH)
            if buffer[:cut].strip():
                yield _paragraph(buffer[:cut], heading)
            buffer = buffer[cut:]
    if buffer.strip():
        yield _paragraph(buffer, heading)


def _cut(text: str, limit: int) -> int:
    """Where to cut ``text`` so that its first piece has at most ``limit`` characters: after the
    last sentence end, else the last line end, else the last space in the second half."""
    window = text[:limit]
    ends = [m.end() for m in _SENTENCE_END.finditer(window, limit // 2)]
    if ends:
        return ends[-1]
    for separator in ("\n", " "):
        at = window.rfind(separator, limit // 2)
        if at > 0:
            return at + 1
    return limit


def _paragraph(text: str, heading: tuple[str, ...]) -> Block:
    joined = " ".join(line.strip() for line in text.split("\n") if line.strip())
    return Block("paragraph", joined, headings=heading)


def _title(line: str) -> str:
    return re.sub(r"\s+", " ", line).strip(" :")
