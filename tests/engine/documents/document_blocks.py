"""A document's blocks of text as its reader gives them, without the notes on pages that could not
be read as text."""

from __future__ import annotations

from pathlib import Path

from engine.documents.blocks import Block
from engine.documents.readers import read_document


def blocks(path: Path) -> list[Block]:
    return [b for b in read_document(path) if isinstance(b, Block)]
