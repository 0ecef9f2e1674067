"""Moving to a new computer: the whole history in one zip archive, and an archive merged back in.

The archive (member names in engine/store/transfer.py)::

    manifest.json             {"format": "cove.archive", "version": 1, "exported_at": ..., counts}
    conversations/<uid>.json  one chat: every version of every turn, statuses, metadata, its leaf
    images/<sha256>.<ext>     each image once, the bytes the user gave
    folders.json              the conversation list's folders, in order
    settings.json             every app setting (the presets among them)
    mcp_servers.json          the MCP server list without its secrets, when a part is handed in
    collections.json          the document collections' definitions, when a part is handed in

The MCP server list and the document collections belong to packages this one may not import
(pyproject.toml's layers: ``store`` and ``mcp_servers`` share a floor, ``documents`` stands above
it), so their code is handed in as an ``ArchivePart`` each: engine/mcp_servers/portable.py's
``ServerListPart`` and engine/documents/portable.py's ``CollectionsPart``. Without one, its
section is left out of an export and an import says it was not read.

Importing merges: chats are recognised by their uid, so an archive imported twice adds nothing
the second time, and a chat continued on the other computer gains only its new turns. The whole
archive is read and checked first, then the history is written in one transaction: a damaged
or foreign archive raises ``StoreError`` and changes nothing.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import time
import zipfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from engine.errors import ArchiveError, EngineError, StoreError
from engine.json_file import written_whole
from engine.paths import data_dir as default_data_dir
from engine.store import folders as store_folders
from engine.store import merging
from engine.store.database import Store
from engine.store.image_files import ImageFiles
from engine.store.presets import PRESETS_KEY, _entry_key
from engine.store.schema import dump_json
from engine.store.transfer import (
    CHATS,
    COLLECTIONS,
    FOLDERS,
    FORMAT,
    MANIFEST,
    MCP_SERVERS,
    SETTINGS,
    VERSION,
    ImageRef,
    TravellingChat,
    chat_from_json,
    chat_to_json,
    folders_from_json,
    read_chats,
)
from engine.store.unpacking import ArchiveReader

__all__ = [
    "ArchivePart",
    "ExportSummary",
    "ImportSummary",
    "PartMerged",
    "export_archive",
    "import_archive",
]

Entries = list[dict[str, Any]]


class PartMerged(Protocol):
    """What merging one handed-in section did."""

    @property
    def added(self) -> int: ...

    @property
    def missing(self) -> tuple[str, ...]: ...  # paths it names that this computer lacks

    @property
    def notes(self) -> tuple[str, ...]: ...


class ArchivePart(Protocol):
    """A section kept beside the history by another package: a list of JSON objects."""

    def export(self, data_dir: Path) -> Entries:
        """The entries to carry, with no secret among them."""
        ...

    def check(self, entries: Entries) -> None:
        """Raise ``ValueError`` saying what is wrong with entries from an archive."""
        ...

    def merge(self, entries: Entries, data_dir: Path) -> PartMerged:
        """Add the checked entries absent here; never replace one that is here."""
        ...


@dataclass(frozen=True, slots=True)
class ExportSummary:
    path: Path
    conversations: int
    messages: int
    images: int
    folders: int
    settings: int
    presets: int
    mcp_servers: int
    collections: int
    bytes: int
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ImportSummary:
    conversations_added: int = 0
    conversations_merged: int = 0  # chats here already that gained messages
    messages_added: int = 0
    messages_skipped: int = 0  # here already
    images_added: int = 0
    folders_added: int = 0
    settings_added: int = 0  # other than the presets
    presets_added: int = 0
    mcp_servers_added: int = 0
    collections_added: int = 0
    missing_sources: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


_LABELS = {MCP_SERVERS: "MCP servers", COLLECTIONS: "document collections"}


# Export


@dataclass(frozen=True, slots=True)
class _Snapshot:
    chats: list[TravellingChat]
    folders: list[str]
    settings: dict[str, Any]


def _snapshot(store: Store) -> _Snapshot:
    with store.file.reading() as conn:
        # One read transaction: in WAL mode it sees one commit, whatever other processes write
        # meanwhile. The lock is let go before the archive is written, so the window's saves
        # wait only for the reading.
        conn.execute("BEGIN")
        try:
            chats = read_chats(conn)
            folders = [f.name for f in store_folders.list_folders(conn)]
            rows = conn.execute("SELECT key, value FROM app_settings ORDER BY key").fetchall()
        finally:
            conn.execute("ROLLBACK")
    settings: dict[str, Any] = {}
    for key, value in rows:
        with contextlib.suppress(ValueError):  # unreadable: Cove reads it as its default anyway
            settings[str(key)] = json.loads(value)
    return _Snapshot(chats, folders, settings)


def export_archive(
    store: Store,
    dest: Path,
    *,
    data_dir: Path | None = None,
    mcp_servers: ArchivePart | None = None,
    collections: ArchivePart | None = None,
) -> ExportSummary:
    """Write the whole history, its images and the app settings to the zip archive ``dest``
    (and the sections handed in, read from ``data_dir``, by default Cove's data folder).

    The archive is written beside ``dest`` under a temporary name and renamed into place, so
    ``dest`` never holds half an archive. ``StoreError`` says why one could not be written."""
    folder = data_dir if data_dir is not None else default_data_dir()
    snapshot = _snapshot(store)
    notes: list[str] = []
    sections: dict[str, Entries] = {}
    for member, part in ((MCP_SERVERS, mcp_servers), (COLLECTIONS, collections)):
        if part is None:
            continue
        try:
            sections[member] = part.export(folder)
        except (EngineError, OSError) as exc:
            notes.append(f"The {_LABELS[member]} were left out: {exc}")
    dest = Path(dest).expanduser()
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        images = _write_atomically(
            dest, lambda zf: _fill(zf, snapshot, sections, ImageFiles(store.images_folder), notes)
        )
        size = dest.stat().st_size
    except OSError as exc:
        raise StoreError(
            f"Cannot write the archive {dest}: {exc.strerror or exc}. Check that the folder can "
            "be written to and that the disk has room; nothing was written there."
        ) from exc
    presets = snapshot.settings.get(PRESETS_KEY)
    return ExportSummary(
        path=dest,
        conversations=len(snapshot.chats),
        messages=sum(len(c.messages) for c in snapshot.chats),
        images=images,
        folders=len(snapshot.folders),
        settings=len(snapshot.settings),
        presets=_count_presets(presets),
        mcp_servers=len(sections.get(MCP_SERVERS, [])),
        collections=len(sections.get(COLLECTIONS, [])),
        bytes=size,
        notes=tuple(notes),
    )


def _count_presets(value: object) -> int:
    return sum(1 for e in value if _entry_key(e) is not None) if isinstance(value, list) else 0


def _write_atomically(dest: Path, fill: Callable[[zipfile.ZipFile], int]) -> int:
    with written_whole(dest) as out, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        return fill(zf)


def _fill(
    zf: zipfile.ZipFile,
    snapshot: _Snapshot,
    sections: dict[str, Entries],
    files: ImageFiles,
    notes: list[str],
) -> int:
    """Write every member; returns how many images went in."""
    for chat in snapshot.chats:
        _put_json(zf, f"{CHATS}{chat.uid}.json", chat_to_json(chat))
    images = _put_images(
        zf, (r for c in snapshot.chats for m in c.messages for r in m.images), files
    )
    if images.unreadable:
        notes.append(
            f"{images.unreadable} image(s) could not be read from {files.folder} and were left "
            "out; their messages keep their text."
        )
    _put_json(zf, FOLDERS, [{"name": name} for name in snapshot.folders])
    _put_json(zf, SETTINGS, snapshot.settings)
    for member, entries in sections.items():
        _put_json(zf, member, entries)
    _put_json(
        zf,
        MANIFEST,
        {
            "format": FORMAT,
            "version": VERSION,
            "exported_at": time.time(),
            "conversations": len(snapshot.chats),
            "messages": sum(len(c.messages) for c in snapshot.chats),
            "images": images.written,
            "folders": len(snapshot.folders),
            "settings": len(snapshot.settings),
            "mcp_servers": len(sections[MCP_SERVERS]) if MCP_SERVERS in sections else None,
            "collections": len(sections[COLLECTIONS]) if COLLECTIONS in sections else None,
        },
    )
    return images.written


def _put_json(zf: zipfile.ZipFile, name: str, data: object) -> None:
    zf.writestr(name, dump_json(data).encode("utf-8"))


@dataclass(slots=True)
class _ImageCount:
    written: int = 0
    unreadable: int = 0
    done: set[str] = field(default_factory=set)


def _put_images(zf: zipfile.ZipFile, refs: Iterable[ImageRef], files: ImageFiles) -> _ImageCount:
    count = _ImageCount()
    for ref in refs:
        if ref.sha256 in count.done:
            continue
        count.done.add(ref.sha256)
        try:
            data = files.path(ref.sha256, ref.mime).read_bytes()
        except OSError:
            count.unreadable += 1
            continue
        # A file changed on disk would make the whole archive fail its check on import.
        if hashlib.sha256(data).hexdigest() != ref.sha256:
            count.unreadable += 1
            continue
        # Images are compressed already: stored as they are, they cost no time to pack.
        zf.writestr(ref.member, data, compress_type=zipfile.ZIP_STORED)
        count.written += 1
    return count


# Import


@dataclass(frozen=True, slots=True)
class _Contents:
    chats: list[TravellingChat]
    folders: list[str]
    settings: dict[str, Any]
    sections: dict[str, Entries]


def _read_contents(archive: ArchiveReader, parts: dict[str, ArchivePart | None]) -> _Contents:
    chats: list[TravellingChat] = []
    chat_uids: set[str] = set()
    message_uids: set[str] = set()
    for name in archive.names_under(CHATS):
        if not name.endswith(".json"):
            continue
        try:
            chat = chat_from_json(archive.json(name))
        except ArchiveError:
            raise
        except ValueError as exc:
            raise ArchiveError(f"{name} is not a chat Cove can read: {exc}") from None
        uids = {m.uid for m in chat.messages}
        if chat.uid in chat_uids or uids & message_uids:
            raise ArchiveError(f"{name} repeats a chat or message found earlier in the archive")
        chat_uids.add(chat.uid)
        message_uids |= uids
        chats.append(chat)
    folders: list[str] = []
    if archive.has(FOLDERS):
        try:
            folders = folders_from_json(archive.json(FOLDERS))
        except ArchiveError:
            raise
        except ValueError as exc:
            raise ArchiveError(f"{FOLDERS} cannot be read: {exc}") from None
    settings = archive.json(SETTINGS) if archive.has(SETTINGS) else {}
    if not isinstance(settings, dict):
        raise ArchiveError(f"{SETTINGS} is not a JSON object of settings")
    sections: dict[str, Entries] = {}
    for member, part in parts.items():
        if not archive.has(member):
            continue
        entries = archive.json(member)
        if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
            raise ArchiveError(f"{member} is not a list of JSON objects")
        if part is not None:
            try:
                part.check(entries)
            except ValueError as exc:
                raise ArchiveError(f"{member} cannot be read: {exc}") from None
        sections[member] = entries
    return _Contents(chats, folders, settings, sections)


def import_archive(
    store: Store,
    src: Path,
    *,
    data_dir: Path | None = None,
    mcp_servers: ArchivePart | None = None,
    collections: ArchivePart | None = None,
) -> ImportSummary:
    """Merge the archive ``src`` (written by ``export_archive``) into the history, and the
    sections handed in into ``data_dir`` (by default Cove's data folder).

    The history is changed in one transaction, after the whole archive has been checked: a bad
    archive raises ``StoreError`` saying what is wrong, and nothing is changed. The handed-in
    sections are merged after it; one that fails is reported in ``notes``."""
    folder = data_dir if data_dir is not None else default_data_dir()
    parts = {MCP_SERVERS: mcp_servers, COLLECTIONS: collections}
    src = Path(src).expanduser()
    tally = merging.Tally()
    try:
        with ArchiveReader(src) as archive:
            archive.manifest()
            contents = _read_contents(archive, parts)
            writer = merging.ImageWriter(ImageFiles(store.images_folder), archive.image)
            try:
                with store.file.writing() as conn:
                    ids = merging.merge_folders(conn, contents.folders, tally)
                    for chat in contents.chats:
                        merging.merge_chat(conn, chat, ids, writer, tally)
                    merging.merge_settings(conn, contents.settings, tally)
            except BaseException:
                writer.discard()
                raise
    except ArchiveError as exc:
        raise StoreError(f"{src} cannot be imported: {exc}. Nothing was changed.") from None
    except OSError as exc:
        raise StoreError(
            f"{src} could not be imported: {exc.strerror or exc}. Check that the disk has room; "
            "nothing was changed."
        ) from exc
    if writer.missing:
        tally.notes.append(
            f"{writer.missing} image(s) were not in the archive; their messages keep their text."
        )
    added: dict[str, PartMerged] = {}
    for member, part in parts.items():
        entries = contents.sections.get(member)
        if entries is None:
            continue
        if part is None:
            tally.notes.append(f"The archive's {_LABELS[member]} were not imported.")
            continue
        try:
            added[member] = part.merge(entries, folder)
        except (EngineError, OSError, ValueError) as exc:
            tally.notes.append(f"The {_LABELS[member]} were not imported: {exc}")
    return ImportSummary(
        conversations_added=tally.conversations_added,
        conversations_merged=tally.conversations_merged,
        messages_added=tally.messages_added,
        messages_skipped=tally.messages_skipped,
        images_added=tally.images_added,
        folders_added=tally.folders_added,
        settings_added=tally.settings_added,
        presets_added=tally.presets_added,
        mcp_servers_added=added[MCP_SERVERS].added if MCP_SERVERS in added else 0,
        collections_added=added[COLLECTIONS].added if COLLECTIONS in added else 0,
        missing_sources=tuple(p for m in added.values() for p in m.missing),
        notes=(*tally.notes, *(n for m in added.values() for n in m.notes)),
    )
