"""A history to move for the archive tests: each "computer" is its own data folder
(``COVE_DATA_DIR``) with a history, images, an MCP server list and a document index; ``history``
reads back everything a person sees of one, without row ids (they differ between files)."""

from __future__ import annotations

import io
import itertools
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from engine.documents.index_db import DB_FILENAME, IndexDB
from engine.documents.portable import CollectionsPart
from engine.images import read_image
from engine.mcp_servers import config as mcp_config
from engine.mcp_servers.portable import ServerListPart
from engine.store import ChatSettings, NewImage, Store
from engine.store.archive import ExportSummary, ImportSummary, export_archive, import_archive
from engine.store.presets import Preset, Presets

SECRETS = ("sk-secret-123", "tok-456")
MCP_LIST = {
    "mcpServers": {
        "weather": {
            "command": "uvx",
            "args": ["weather-mcp"],
            "env": {"WEATHER_API_KEY": SECRETS[0]},
        },
        "search": {
            "url": "https://search.example/mcp",
            "headers": {"Authorization": f"Bearer {SECRETS[1]}"},
        },
        "clock": {"command": "mcp-server-time"},
    }
}


class Clock:
    """Whole seconds, one tick per call: every row's time differs, whatever the timer does."""

    def __init__(self, start: int) -> None:
        self._ticks = itertools.count(start)

    def __call__(self) -> float:
        return float(next(self._ticks))


class Computer:
    """One data folder, made current (``COVE_DATA_DIR``) whenever it is used."""

    def __init__(self, folder: Path, monkeypatch: pytest.MonkeyPatch, start: int) -> None:
        self.folder = folder
        self._monkeypatch = monkeypatch
        self._clock = Clock(start)

    def store(self) -> Store:
        self._monkeypatch.setenv("COVE_DATA_DIR", str(self.folder))
        return Store(clock=self._clock)

    def export(self, dest: Path) -> ExportSummary:
        with self.store() as store:
            return export_archive(
                store, dest, mcp_servers=ServerListPart(), collections=CollectionsPart()
            )

    def import_(self, src: Path) -> ImportSummary:
        with self.store() as store:
            return import_archive(
                store, src, mcp_servers=ServerListPart(), collections=CollectionsPart()
            )

    def history(self) -> list[dict[str, Any]]:
        with self.store() as store:
            return history(store)


def png(colour: str) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (24, 16), colour).save(out, "PNG")
    return out.getvalue()


def image(colour: str, name: str) -> NewImage:
    return NewImage.of(read_image(png(colour), name), name)


def history(store: Store) -> list[dict[str, Any]]:
    """Everything a person sees of the history, without row ids (they differ between files)."""
    folders = {f.id: f.name for f in store.folders()}
    chats = []
    for conv in sorted(store.list_conversations(), key=lambda c: (c.created_at, c.title)):
        every = store.all_messages(conv.id)
        index = {m.id: i for i, m in enumerate(every)}
        chats.append(
            {
                "title": conv.title,
                "system_prompt": conv.system_prompt,
                "settings": conv.settings,
                "model": conv.model,
                "created_at": conv.created_at,
                "updated_at": conv.updated_at,
                "pinned": conv.pinned,
                "folder": folders.get(conv.folder_id) if conv.folder_id else None,
                "messages": [
                    (
                        m.role,
                        m.content,
                        m.status,
                        m.created_at,
                        m.meta,
                        index.get(m.parent_id) if m.parent_id is not None else None,
                        [(i.sha256, i.name, store.image_bytes(i)) for i in m.images],
                    )
                    for m in every
                ],
                "shown": [index[m.id] for m in store.messages(conv.id)],
            }
        )
    return chats


def fill(computer: Computer) -> None:
    """A history with versions, a branch, statuses, images, a folder, a pin and presets; an
    MCP server list with keys in it; a document collection."""
    with computer.store() as store:
        trip = store.create_conversation(
            "Trip planning", "Answer briefly.", ChatSettings(temperature=0.3), "tiny.gguf"
        )
        store.add_message(trip.id, "user", "Where in spring?", images=[image("teal", "map.png")])
        kyoto = store.add_message(trip.id, "assistant", "Kyoto for the blossoms.", meta={"n": 1})
        store.add_version(kyoto.id, "Lisbon for the light.", "interrupted")
        store.add_message(trip.id, "user", "And autumn?", images=[image("orange", "leaf.png")])
        store.add_message(trip.id, "assistant", "", "error", meta={"error": "it crashed"})
        store.show_version(kyoto.id)
        store.branch(kyoto.id)
        folder = store.create_folder("Travel")
        store.move_to_folder(trip.id, folder)
        store.pin(trip.id)
        store.create_conversation("Empty chat")
        store.create_folder("Unused")
        store.set_setting("theme", "dark")
        Presets(store).save(Preset("Poet", "Write verse.", ChatSettings(temperature=1.1)))
        Presets(store).save(Preset("Critic", "Be blunt."))
        Presets(store).set_default("Poet")
    mcp_config.save(mcp_config.parse(MCP_LIST), computer.folder / mcp_config.CONFIG_FILENAME)
    db = IndexDB(computer.folder / DB_FILENAME)
    manuals = db.collection("Manuals", create=True)
    assert manuals is not None
    db.set_encoder(manuals, "all-MiniLM-L6-v2:384", 384)
    db.add_source(manuals, str(computer.folder))
    db.add_source(manuals, "/nowhere/on/this/computer/manuals")
    db.close()


def files_of(folder: Path) -> dict[Path, int]:
    return {p: p.stat().st_mtime_ns for p in folder.rglob("*") if p.is_file()}
