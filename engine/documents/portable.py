"""The document collections as they move to another computer (engine/store/archive.py's
section ``collections.json``): each collection's name, encoder and the files and folders it was
built from; not its chunks or vectors, which are rebuilt from the files.

A collection already here under the same name is left as it is. One that is added lists its
sources but holds nothing until it is indexed again, and sources whose paths this computer lacks
(another user name, another drive) are reported, so a person can add them from where they are now.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.documents.index_db import DB_FILENAME, IndexDB

__all__ = ["CollectionsMerged", "CollectionsPart"]


@dataclass(frozen=True, slots=True)
class CollectionsMerged:
    added: int
    missing: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class _Definition:
    name: str
    encoder: str | None
    dims: int | None
    sources: tuple[str, ...]


def _read(entries: list[dict[str, Any]]) -> list[_Definition]:
    found: list[_Definition] = []
    for number, entry in enumerate(entries, start=1):
        name = entry.get("name")
        if not isinstance(name, str) or not name.strip():
            raise ValueError(f"collection {number} has no name")
        sources = entry.get("sources", [])
        if not isinstance(sources, list) or not all(isinstance(s, str) for s in sources):
            raise ValueError(f"the sources of the collection {name!r} must be a list of paths")
        encoder, dims = entry.get("encoder"), entry.get("dims")
        # An encoder without its width (or the reverse) could not be checked against the one
        # that indexes: the collection then takes whichever encoder first indexes it.
        known = (
            isinstance(encoder, str)
            and isinstance(dims, int)
            and not isinstance(dims, bool)
            and dims > 0
        )
        found.append(
            _Definition(
                name,
                encoder if known and isinstance(encoder, str) else None,
                dims if known and isinstance(dims, int) else None,
                tuple(sources),
            )
        )
    return found


@dataclass(frozen=True, slots=True)
class CollectionsPart:
    """The collections of the document index in ``data_dir``, as an archive's section."""

    def export(self, data_dir: Path) -> list[dict[str, Any]]:
        path = data_dir / DB_FILENAME
        if not path.exists():
            return []  # opening it would create it
        db = IndexDB(path)
        try:
            return [
                {"name": c.name, "encoder": c.encoder, "dims": c.dims, "sources": db.sources(c)}
                for c in db.collections()
            ]
        finally:
            db.close()

    def check(self, entries: list[dict[str, Any]]) -> None:
        _read(entries)

    def merge(self, entries: list[dict[str, Any]], data_dir: Path) -> CollectionsMerged:
        definitions = _read(entries)
        if not definitions:
            return CollectionsMerged(0)
        db = IndexDB(data_dir / DB_FILENAME)
        added: list[str] = []
        missing: list[str] = []
        try:
            for item in definitions:
                if db.collection(item.name) is not None:
                    continue
                collection = db.collection(item.name, create=True)
                assert collection is not None
                if item.encoder is not None and item.dims is not None:
                    db.set_encoder(collection, item.encoder, item.dims)
                for source in item.sources:
                    db.add_source(collection, source)
                    if not Path(source).exists():
                        missing.append(source)
                added.append(item.name)
        finally:
            db.close()
        notes: list[str] = []
        if added:
            names = ", ".join(repr(n) for n in added)
            notes.append(
                f"The collection(s) {names} were added without their index: index them again "
                "to search them."
            )
        if missing:
            notes.append(
                f"{len(missing)} source(s) of the added collections are not on this computer; "
                "add them again from where they are now."
            )
        return CollectionsMerged(len(added), tuple(missing), tuple(notes))
