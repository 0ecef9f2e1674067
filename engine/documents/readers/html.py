"""HTML, parsed by BeautifulSoup with Python's own parser (nothing is ever executed or fetched):
scripts, styles, navigation and forms are dropped; headings, paragraphs, list items,
preformatted text and table rows (each with the table's header row) are kept in order."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from engine.documents.blocks import Block, BlockKind
from engine.documents.readers.text import read_text, sniff_encoding

MAX_PARSE_BYTES = 32 << 20
DROP = ("script", "style", "noscript", "template", "iframe", "svg", "nav", "form", "button", "head")
HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
TEXT_BLOCKS = {"p", "li", "pre", "blockquote", "dt", "dd", "figcaption", "caption", "address"}


def read_html(path: Path) -> Iterator[Block]:
    if path.stat().st_size > MAX_PARSE_BYTES:
        yield from read_text(path)
        return
    data = path.read_bytes()
    yield from html_blocks(data.decode(sniff_encoding(data[: 64 << 10]), errors="replace"))


def html_blocks(markup: str) -> Iterator[Block]:
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(markup, "html.parser")
    for tag in soup.find_all(DROP):
        tag.decompose()
    path: list[tuple[int, str]] = []
    yield from _walk(soup.body or soup, path)


def _walk(node: Any, path: list[tuple[int, str]]) -> Iterator[Block]:
    from bs4.element import NavigableString, Tag

    loose: list[str] = []

    def flush() -> Iterator[Block]:
        text = " ".join(" ".join(loose).split())
        loose.clear()
        if text:
            yield Block("paragraph", text, headings=tuple(h for _l, h in path))

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
    rows = table.find_all("tr")
    header: str | None = None
    for index, row in enumerate(rows):
        cells = [" ".join(c.get_text(" ").split()) for c in row.find_all(["th", "td"])]
        line = " | ".join(cells)
        if not line.strip(" |"):
            continue
        if header is None and (row.find("td") is None or index == 0):
            header = line
            continue
        yield Block("table_row", line, headings=headings, table_header=header)
