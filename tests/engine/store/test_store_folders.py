"""Pins and folders of the conversation list, kept in the chat history; and a history written
before them opening whole."""

from __future__ import annotations

import itertools
import shutil
import sqlite3
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from engine.store import Store, StoreError
from engine.store import schema as store_schema

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "history_v3"


class Clock:
    def __init__(self) -> None:
        self._ticks = itertools.count(1_000)

    def __call__(self) -> float:
        return float(next(self._ticks))


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "history" / "cove.sqlite3"


@pytest.fixture
def store(db: Path) -> Iterator[Store]:
    with Store(db, clock=Clock()) as opened:
        yield opened


def test_a_new_conversation_is_unpinned_and_in_no_folder(store: Store) -> None:
    conv = store.create_conversation("Plain")
    assert not conv.pinned and conv.folder_id is None
    assert store.folders() == []


def test_pinning_keeps_when_the_chat_was_last_used(store: Store) -> None:
    older = store.create_conversation("Older")
    newer = store.create_conversation("Newer")
    pinned = store.pin(older.id, True)
    assert pinned.pinned and pinned.updated_at == older.updated_at
    listed = store.list_conversations()
    assert [c.title for c in listed] == ["Newer", "Older"]  # the list's order is the store's
    assert [c.pinned for c in listed] == [False, True]
    assert not store.pin(older.id, False).pinned
    assert store.get_conversation(newer.id) == newer
    with pytest.raises(StoreError, match="no longer exists"):
        store.pin(9999, True)


def test_folders_are_created_renamed_and_listed_in_order(store: Store) -> None:
    work = store.create_folder("  Work  ")
    home = store.create_folder("Home")
    folders = store.folders()
    assert [(f.id, f.name) for f in folders] == [(work, "Work"), (home, "Home")]
    assert folders[0].position < folders[1].position
    renamed = store.rename_folder(work, "Office")
    assert renamed.name == "Office" and renamed.id == work
    assert [f.name for f in store.folders()] == ["Office", "Home"]
    with pytest.raises(ValueError, match="needs a name"):
        store.create_folder("   ")
    with pytest.raises(ValueError, match="needs a name"):
        store.rename_folder(home, "")
    assert [f.name for f in store.folders()] == ["Office", "Home"]  # nothing written
    with pytest.raises(StoreError, match="no longer exists"):
        store.rename_folder(9999, "Nowhere")


def test_a_chat_moves_into_a_folder_and_back_out(store: Store) -> None:
    conv = store.create_conversation("Recipes")
    kitchen = store.create_folder("Kitchen")
    moved = store.move_to_folder(conv.id, kitchen)
    assert moved.folder_id == kitchen and moved.updated_at == conv.updated_at
    assert store.list_conversations()[0].folder_id == kitchen
    assert store.move_to_folder(conv.id, None).folder_id is None
    with pytest.raises(StoreError, match="Folder 9999 no longer exists"):
        store.move_to_folder(conv.id, 9999)
    with pytest.raises(StoreError, match="Conversation 9999 no longer exists"):
        store.move_to_folder(9999, kitchen)
    assert store.get_conversation(conv.id) == replace(moved, folder_id=None)


def test_deleting_a_folder_keeps_its_chats(store: Store, db: Path) -> None:
    first = store.create_conversation("First")
    second = store.create_conversation("Second")
    store.add_message(first.id, "user", "keep me")
    trip = store.create_folder("Trip")
    store.move_to_folder(first.id, trip)
    store.move_to_folder(second.id, trip)
    store.pin(second.id, True)
    store.delete_folder(trip)
    store.delete_folder(trip)  # gone already: not an error
    assert store.folders() == []
    listed = {c.title: c for c in store.list_conversations()}
    assert set(listed) == {"First", "Second"}
    assert all(c.folder_id is None for c in listed.values())
    assert listed["Second"].pinned  # a pin outlives the folder
    assert [m.content for m in store.messages(first.id)] == ["keep me"]


def test_deleting_a_chat_leaves_its_folder(store: Store) -> None:
    conv = store.create_conversation("Gone soon")
    folder = store.create_folder("Stays")
    store.move_to_folder(conv.id, folder)
    store.delete_conversation(conv.id)
    assert [f.name for f in store.folders()] == ["Stays"]


def test_pins_and_folders_survive_reopening(db: Path) -> None:
    with Store(db) as first:
        conv = first.create_conversation("Kept")
        folder = first.create_folder("Box")
        first.move_to_folder(conv.id, folder)
        first.pin(conv.id, True)
    with Store(db) as second:
        again = second.get_conversation(conv.id)
        assert again is not None and again.pinned and again.folder_id == folder
        assert [f.name for f in second.folders()] == ["Box"]


def test_export_says_whether_the_chat_is_pinned_and_its_folder(store: Store) -> None:
    conv = store.create_conversation("Filed")
    store.add_message(conv.id, "user", "hello")
    assert store.export_json(conv.id)["pinned"] is False
    assert store.export_json(conv.id)["folder"] is None
    store.pin(conv.id, True)
    store.move_to_folder(conv.id, store.create_folder("Letters"))
    data = store.export_json(conv.id)
    assert data["pinned"] is True and data["folder"] == "Letters"
    copy = store.import_json(data)  # the import still reads it, as a new chat at the top level
    assert [m.content for m in store.messages(copy.id)] == ["hello"]
    assert not copy.pinned and copy.folder_id is None


def test_a_history_written_before_folders_opens_whole_and_can_file_chats(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    shutil.copytree(FIXTURE, folder)
    db = folder / "cove.sqlite3"
    assert sqlite3.connect(db).execute("PRAGMA user_version").fetchone()[0] == 3
    with Store(db) as store:
        conversations = {c.title: c for c in store.list_conversations()}
        assert set(conversations) == {
            "Weekend in Lisbon",
            "Quarterly chart",
            "Regex help",
            "Empty chat",
        }
        assert all(not c.pinned and c.folder_id is None for c in conversations.values())
        assert store.folders() == []
        lisbon = conversations["Weekend in Lisbon"]
        assert len(store.messages(lisbon.id)) == 4
        chart = store.messages(conversations["Quarterly chart"].id)
        assert chart[0].images[0].path.read_bytes()[:4] == b"\x89PNG"
        assert store.search("bakeries")[0].conversation_id == lisbon.id
        travel = store.create_folder("Travel")
        store.move_to_folder(lisbon.id, travel)
        store.pin(conversations["Regex help"].id, True)
    assert sqlite3.connect(db).execute("PRAGMA user_version").fetchone()[0] == (
        store_schema.latest_version()
    )
    with Store(db) as again:
        reopened = {c.title: c for c in again.list_conversations()}
        assert reopened["Weekend in Lisbon"].folder_id == travel
        assert reopened["Regex help"].pinned
        assert reopened["Weekend in Lisbon"].updated_at == lisbon.updated_at
