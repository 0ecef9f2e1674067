"""The documents page in words: a file's state, how an add ended, the table's columns, a file's
path as the person added it, and text made safe for the sources' HTML."""

from __future__ import annotations

from pathlib import Path

from app.common.i18n import tr
from engine.paths import shown


def status_word(status: str) -> str:
    """A file's state as the table shows it."""
    words = {
        "indexed": tr("Documents", "Indexed"),
        "pending": tr("Documents", "Waiting"),
        "needs_ocr": tr("Documents", "Needs OCR"),
        "skipped": tr("Documents", "Skipped"),
    }
    return words.get(status, status)


def outcome_count(outcome: str, n: int) -> str:
    """How many files an add ended how ("3 indexed")."""
    said = {
        "indexed": tr("Documents", "{n} indexed"),
        "pending": tr("Documents", "{n} waiting"),
        "needs_ocr": tr("Documents", "{n} needs ocr"),
        "skipped": tr("Documents", "{n} skipped"),
        "cancelled": tr("Documents", "{n} cancelled"),
        "unchanged": tr("Documents", "{n} unchanged"),
        "removed": tr("Documents", "{n} removed"),
    }
    words = said.get(outcome)
    return words.format(n=n) if words is not None else f"{n} {outcome}"


def columns() -> tuple[str, ...]:
    return (
        tr("Documents", "File"),
        tr("Documents", "State"),
        tr("Documents", "Passages"),
        tr("Documents", "Pages"),
    )


def display_path(path: str, sources: list[str]) -> str:
    """A file as the user added it: relative to the folder it came with, else in full."""
    for source in sources:
        if path != source and path.startswith(source.rstrip("/") + "/"):
            return f"{Path(source).name}/{path[len(source.rstrip('/')) + 1 :]}"
    return shown(path)


def escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
