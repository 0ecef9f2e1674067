"""Markdown, parsed by markdown-it-py (CommonMark, with tables): headings with their levels,
paragraphs, list items, code blocks and table rows, each under its heading path. Front matter is
skipped. A file too large to parse at once is read as plain text instead."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from engine.documents.blocks import Block, BlockKind, table_rows
from engine.documents.readers.text import read_text, sniff_encoding

if TYPE_CHECKING:
    from markdown_it.token import Token

MAX_PARSE_BYTES = 32 << 20
_FRONT_MATTER = re.compile(r"\A---\s*\n.*?\n---\s*\n", re.DOTALL)


def read_markdown(path: Path) -> Iterator[Block]:
    if path.stat().st_size > MAX_PARSE_BYTES:
        yield from read_text(path)
        return
    data = path.read_bytes()
    text = data.decode(sniff_encoding(data[: 64 << 10]), errors="replace")
    yield from markdown_blocks(_FRONT_MATTER.sub("", text, count=1))


def markdown_blocks(text: str) -> Iterator[Block]:
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    path: list[tuple[int, str]] = []  # (level, heading)
    in_list = 0
    row: list[str] = []
    rows: list[tuple[list[str], bool]] = []  # the table's, as (cells, in the header)
    in_head = False
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        headings = tuple(h for _lvl, h in path)
        if tok.type == "heading_open":
            level = int(tok.tag[1])
            title = _plain(tokens[i + 1])
            path = [(lvl, h) for lvl, h in path if lvl < level]
            yield Block("heading", title, headings=tuple(h for _l, h in path), level=level)
            path.append((level, title))
            i += 3
            continue
        if tok.type in ("bullet_list_open", "ordered_list_open"):
            in_list += 1
        elif tok.type in ("bullet_list_close", "ordered_list_close"):
            in_list -= 1
        elif tok.type == "inline" and tokens[i - 1].type == "paragraph_open":
            kind: BlockKind = "list_item" if in_list else "paragraph"
            yield Block(kind, _plain(tok), headings=headings)
        elif tok.type in ("fence", "code_block"):
            yield Block("code", tok.content.rstrip("\n"), headings=headings)
        elif tok.type == "thead_open":
            in_head = True
        elif tok.type == "thead_close":
            in_head = False
        elif tok.type == "tr_open":
            row = []
        elif tok.type == "inline" and tokens[i - 1].type in ("th_open", "td_open"):
            row.append(_plain(tok))
        elif tok.type == "tr_close":
            rows.append((row, in_head))
        elif tok.type == "table_close":
            yield from table_rows(rows, headings)
            rows = []
        i += 1


def _plain(inline: Token) -> str:
    """An inline token's text: links keep their words, images their alt text, code its content;
    emphasis marks and inline HTML go."""
    parts: list[str] = []
    for child in inline.children or []:
        if child.type in ("text", "code_inline", "image"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
    return " ".join("".join(parts).split())
