"""The small block vocabulary the corpus documents are written in, shared by content and writers."""

from __future__ import annotations

from dataclasses import dataclass


def clean(text: str) -> str:
    """One line of prose from a wrapped triple-quoted string."""
    return " ".join(text.split())


@dataclass
class H:
    """A heading; level 1 is a section, level 2 a subsection."""

    text: str
    level: int = 1


@dataclass
class P:
    """A paragraph of running text (wrapped in the source, joined when written)."""

    text: str


@dataclass
class Bullets:
    items: list[str]


@dataclass
class Table:
    """A table whose first row is the header."""

    rows: list[list[str]]


@dataclass
class Scan:
    """A page that is only a picture of text, like a scanned sheet: no text layer at all."""

    lines: list[str]


Block = H | P | Bullets | Table | Scan


@dataclass
class PdfDoc:
    """A PDF: each inner list is exactly one page."""

    title: str
    author: str
    pages: list[list[Block]]


@dataclass
class DocxDoc:
    title: str
    author: str
    blocks: list[Block]
