"""HTML, parsed by BeautifulSoup with Python's own parser (nothing is ever executed or fetched):
scripts, styles, navigation and forms are dropped; headings, paragraphs, list items,
preformatted text and table rows (each with the table's header row) are kept in order. A page
without an ``<h1>`` takes its ``<title>`` as its top heading.

A file too large to parse into a tree at once is streamed through the same parser's tokenizer
instead: its text, with the same elements dropped, read as plain text.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from engine.documents.blocks import Block, BlockKind, table_rows
from engine.documents.readers.text import SNIFF_BYTES, sniff_encoding, text_blocks

MAX_PARSE_BYTES = 32 << 20
READ_BYTES = 1 << 20
PIECE_CHARS = 16 << 10  # the longest text run handed on at once
# Never "head": a page that leaves it open has its whole body inside it.
DROP = (
    "script",
    "style",
    "noscript",
    "template",
    "iframe",
    "svg",
    "nav",
    "form",
    "button",
    "title",
)
MAX_DEPTH = 200  # a tree nested deeper is read as plain text: the walk recurses per level
HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
TEXT_BLOCKS = {"p", "li", "pre", "blockquote", "dt", "dd", "figcaption", "caption", "address"}
_WHITESPACE = re.compile(r"\s+")
# Elements that end a run of text in the streamed reading.
BREAKS = {*TEXT_BLOCKS, *HEADINGS, "div", "section", "article", "br", "tr", "table", "ul", "ol"}


def read_html(path: Path) -> Iterator[Block]:
    if path.stat().st_size > MAX_PARSE_BYTES:
        yield from text_blocks(_streamed_lines(path))
        return
    data = path.read_bytes()
    yield from html_blocks(data.decode(sniff_encoding(data[:SNIFF_BYTES]), errors="replace"))


def html_blocks(markup: str) -> Iterator[Block]:
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(markup, "html.parser")
    title = soup.title.get_text(" ", strip=True) if soup.title is not None else ""
    for tag in soup.find_all(DROP):
        tag.decompose()
    root = soup.body or soup
    if _depth(root) > MAX_DEPTH:
        yield from text_blocks(root.get_text("\n").splitlines(keepends=True))
        return
    path: list[tuple[int, str]] = []
    if title and root.find("h1") is None:
        yield Block("heading", title, level=1)
        path.append((1, title))
    yield from _walk(root, path)


def _depth(root: Any) -> int:
    """How deeply elements nest under ``root``, found without recursion."""
    from bs4.element import Tag

    deepest = 0
    stack = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        stack += [(child, depth + 1) for child in node.children if isinstance(child, Tag)]
    return deepest


def _walk(node: Any, path: list[tuple[int, str]]) -> Iterator[Block]:
    from bs4.element import NavigableString, Tag

    loose: list[str] = []
    # The words of a list item that also holds a nested list are still a list item.
    loose_kind: BlockKind = "list_item" if node.name == "li" else "paragraph"

    def flush() -> Iterator[Block]:
        text = " ".join(" ".join(loose).split())
        loose.clear()
        if text:
            yield Block(loose_kind, text, headings=tuple(h for _l, h in path))

    for child in node.children:
        if isinstance(child, NavigableString):
            if type(child) is NavigableString:  # not a comment or a declaration
                loose.append(str(child))
            continue
        if not isinstance(child, Tag):
            continue
        name = child.name.lower()
        if name in HEADINGS:
            yield from flush()
            level = HEADINGS[name]
            title = child.get_text(" ", strip=True)
            if title:
                path[:] = [(lvl, h) for lvl, h in path if lvl < level]
                yield Block("heading", title, headings=tuple(h for _l, h in path), level=level)
                path.append((level, title))
        elif name == "table":
            yield from flush()
            yield from _table(child, tuple(h for _l, h in path))
        elif name in TEXT_BLOCKS and not child.find(list(TEXT_BLOCKS | set(HEADINGS) | {"table"})):
            yield from flush()
            text = child.get_text(" " if name != "pre" else "", strip=name != "pre")
            text = text if name == "pre" else " ".join(text.split())
            if text.strip():
                kind: BlockKind = (
                    "list_item" if name == "li" else "code" if name == "pre" else "paragraph"
                )
                yield Block(kind, text.strip("\n"), headings=tuple(h for _l, h in path))
        elif name in ("br",):
            loose.append(" ")
        elif name in ("a", "span", "strong", "em", "b", "i", "code", "small", "sup", "sub", "abbr"):
            loose.append(child.get_text(" "))
        else:
            yield from flush()
            yield from _walk(child, path)
    yield from flush()


def _table(table: Any, headings: tuple[str, ...]) -> Iterator[Block]:
    """The table's rows, each with the header row (a row of ``th`` cells, else the first row)."""
    rows = (
        (
            [" ".join(c.get_text(" ").split()) for c in row.find_all(["th", "td"])],
            row.find("td") is None or index == 0,
        )
        for index, row in enumerate(table.find_all("tr"))
    )
    return table_rows(rows, headings)


def _streamed_lines(path: Path) -> Iterator[str]:
    """The text of the HTML file at ``path`` as lines for ``text_blocks``, read a megabyte at a
    time: a blank line wherever a block element starts or ends."""
    collector = _TextCollector()
    with path.open("rb") as raw:
        decoder = codecs.getincrementaldecoder(sniff_encoding(raw.read(SNIFF_BYTES)))("replace")
        raw.seek(0)
        while data := raw.read(READ_BYTES):
            collector.feed(decoder.decode(data))
            yield from collector.drain()
    collector.feed(decoder.decode(b"", final=True))
    collector.close()
    yield from collector.drain()


class _TextCollector(HTMLParser):
    """Text outside the dropped elements, as line pieces: a text run never holds a newline, and
    a block element's edge is "\n", "\n" (ending the line, then a blank line)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self._dropped = 0  # how deep inside dropped elements the parser is
        self._pieces: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in DROP:
            self._dropped += 1
        elif tag in BREAKS:
            self._pieces += ["\n", "\n"]

    def handle_endtag(self, tag: str) -> None:
        if tag in DROP:
            self._dropped = max(0, self._dropped - 1)
        elif tag in BREAKS:
            self._pieces += ["\n", "\n"]

    def handle_data(self, data: str) -> None:
        if not self._dropped:
            text = _WHITESPACE.sub(" ", data)
            self._pieces += [text[i : i + PIECE_CHARS] for i in range(0, len(text), PIECE_CHARS)]

    def drain(self) -> list[str]:
        pieces, self._pieces = self._pieces, []
        return pieces
