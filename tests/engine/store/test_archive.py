"""Moving the history to a new computer: one archive out, merged back in, on real SQLite files.

Each "computer" is its own data folder (``COVE_DATA_DIR``): its history, images, MCP server list
and document index."""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from engine.cli import main
from engine.documents.index_db import DB_FILENAME, IndexDB
from engine.documents.portable import CollectionsPart
from engine.errors import StoreError
from engine.mcp_servers import config as mcp_config
from engine.mcp_servers.portable import ServerListPart
from engine.store import Store
from engine.store import schema as store_schema
from engine.store.archive import import_archive
from engine.store.presets import Preset, Presets
from tests.engine.store.archive_files import SECRETS, Computer, files_of, fill, png


@pytest.fixture
def old(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Computer:
    return Computer(tmp_path / "old", monkeypatch, 1_000)


@pytest.fixture
def new(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Computer:
    return Computer(tmp_path / "new", monkeypatch, 500_000)


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# The whole history, moved


def test_an_archive_carries_the_whole_history_to_an_empty_one(
    old: Computer, new: Computer, tmp_path: Path
) -> None:
    fill(old)
    archive = tmp_path / "moving" / "cove-history.zip"
    exported = old.export(archive)
    assert (exported.conversations, exported.messages, exported.images) == (3, 7, 2)
    assert (exported.folders, exported.presets, exported.mcp_servers) == (2, 2, 3)
    assert exported.collections == 1 and exported.bytes == archive.stat().st_size
    assert [p.name for p in archive.parent.iterdir()] == ["cove-history.zip"]
    with zipfile.ZipFile(archive) as zf:
        manifest = json.loads(zf.read("manifest.json"))
    assert manifest["format"] == "cove.archive" and manifest["version"] == 1
    assert manifest["conversations"] == 3

    imported = new.import_(archive)
    assert (imported.conversations_added, imported.messages_added, imported.images_added) == (
        3,
        7,
        2,
    )
    assert (imported.presets_added, imported.mcp_servers_added, imported.collections_added) == (
        2,
        3,
        1,
    )
    assert new.history() == old.history()
    with new.store() as store:
        assert store.get_setting("theme") == "dark"
        assert [p.name for p in Presets(store).all() if not p.built_in] == ["Critic", "Poet"]
        assert Presets(store).default() == Presets(store).get("Poet")
        assert {f.name for f in store.folders()} == {"Travel", "Unused"}
        # The search index covers the imported rows, titles and messages alike.
        hits = store.search("blossoms")
        assert hits and all(h.message_id is not None for h in hits)
        assert store.get_message(hits[0].message_id or 0) is not None
        assert {h.title for h in store.search("planning")} >= {"Trip planning"}


def test_importing_an_archive_twice_adds_nothing_the_second_time(
    old: Computer, new: Computer, tmp_path: Path
) -> None:
    fill(old)
    archive = tmp_path / "history.zip"
    old.export(archive)
    new.import_(archive)
    before, images = new.history(), files_of(new.folder / "images")
    mcp_list = (new.folder / mcp_config.CONFIG_FILENAME).read_bytes()

    again = new.import_(archive)

    assert again.conversations_added == again.conversations_merged == again.messages_added == 0
    assert again.messages_skipped == 7
    assert again.images_added == again.presets_added == again.settings_added == 0
    assert again.mcp_servers_added == again.collections_added == 0
    assert new.history() == before
    assert files_of(new.folder / "images") == images
    assert (new.folder / mcp_config.CONFIG_FILENAME).read_bytes() == mcp_list


def test_a_chat_continued_after_export_merges_only_its_new_turns(
    old: Computer, new: Computer, tmp_path: Path
) -> None:
    fill(old)
    old.export(tmp_path / "first.zip")
    new.import_(tmp_path / "first.zip")
    with old.store() as store:
        trip = next(c for c in store.list_conversations() if c.title == "Trip planning")
        shown = store.messages(trip.id)
        store.add_version(shown[-1].id, "Kyoto, then Osaka.")  # a new version of the last reply
        store.add_message(trip.id, "user", "Where do we sleep?")
        store.add_message(trip.id, "assistant", "A ryokan by the river.")
    old.export(tmp_path / "second.zip")

    merged = new.import_(tmp_path / "second.zip")

    assert (merged.conversations_added, merged.conversations_merged) == (0, 1)
    assert (merged.messages_added, merged.messages_skipped) == (3, 7)
    assert new.history() == old.history()
    with new.store() as store:
        assert [h.title for h in store.search("ryokan")] == ["Trip planning"]
        trip = next(c for c in store.list_conversations() if c.title == "Trip planning")
        assert store.messages(trip.id)[-1].content == "A ryokan by the river."


def test_an_image_file_lost_here_comes_back_with_a_message_that_shows_it(
    old: Computer, new: Computer, tmp_path: Path
) -> None:
    fill(old)
    old.export(tmp_path / "first.zip")
    new.import_(tmp_path / "first.zip")
    teal = next(new.folder.joinpath("images").rglob(f"{sha(png('teal'))}.png"))
    teal.unlink()
    with old.store() as store:
        trip = next(c for c in store.list_conversations() if c.title == "Trip planning")
        store.add_version(store.messages(trip.id)[0].id, "Where in early spring?")  # keeps images
    old.export(tmp_path / "second.zip")

    merged = new.import_(tmp_path / "second.zip")

    assert merged.messages_added == 1 and merged.images_added == 0
    assert teal.read_bytes() == png("teal")
    assert new.history() == old.history()


def test_a_chat_moved_on_here_too_keeps_showing_where_it_was_left(
    old: Computer, new: Computer, tmp_path: Path
) -> None:
    with old.store() as store:
        chat = store.create_conversation("Shared")
        store.add_message(chat.id, "user", "first question")
    old.export(tmp_path / "one.zip")
    new.import_(tmp_path / "one.zip")
    with old.store() as store:
        store.add_message(store.list_conversations()[0].id, "assistant", "answered over there")
    with new.store() as store:
        store.add_message(store.list_conversations()[0].id, "assistant", "answered here")
    old.export(tmp_path / "two.zip")

    assert new.import_(tmp_path / "two.zip").messages_added == 1

    with new.store() as store:
        shown = store.messages(store.list_conversations()[0].id)
        assert [m.content for m in shown] == ["first question", "answered here"]
        assert shown[-1].version == (1, 2)  # the other computer's answer is its other version


def test_what_is_here_already_is_kept(old: Computer, new: Computer, tmp_path: Path) -> None:
    fill(old)
    with new.store() as store:
        store.set_setting("theme", "light")
        Presets(store).save(Preset("Poet", "Rhyme, always."))
    (new.folder / mcp_config.CONFIG_FILENAME).write_text(
        json.dumps({"mcpServers": {"clock": {"command": "my-clock", "args": ["--utc"]}}})
    )
    old.export(tmp_path / "history.zip")

    imported = new.import_(tmp_path / "history.zip")

    assert imported.presets_added == 1 and imported.mcp_servers_added == 2
    with new.store() as store:
        assert store.get_setting("theme") == "light"
        poet = Presets(store).get("Poet")
        assert poet is not None and poet.system_prompt == "Rhyme, always."
        assert Presets(store).get("Critic") is not None
    servers = {s.name: s for s in mcp_config.load(new.folder / mcp_config.CONFIG_FILENAME)}
    assert servers["clock"].command == "my-clock"
    # The servers that needed keys come switched off, naming what to fill in.
    assert servers["weather"].disabled and dict(servers["weather"].env) == {"WEATHER_API_KEY": ""}
    assert servers["search"].disabled and dict(servers["search"].headers) == {"Authorization": ""}
    assert any("WEATHER_API_KEY" in note for note in imported.notes)


def test_collections_come_as_definitions_to_index_again(
    old: Computer, new: Computer, tmp_path: Path
) -> None:
    fill(old)
    old.export(tmp_path / "history.zip")

    imported = new.import_(tmp_path / "history.zip")

    assert imported.missing_sources == ("/nowhere/on/this/computer/manuals",)
    assert any("index them again" in note for note in imported.notes)
    db = IndexDB(new.folder / DB_FILENAME)
    try:
        manuals = db.collection("Manuals")
        assert manuals is not None and manuals.encoder == "all-MiniLM-L6-v2:384"
        assert set(db.sources(manuals)) == {
            str(old.folder),
            "/nowhere/on/this/computer/manuals",
        }
        assert db.count_chunks(manuals) == 0
    finally:
        db.close()


def test_mcp_secrets_never_reach_the_archive(old: Computer, tmp_path: Path) -> None:
    fill(old)
    archive = tmp_path / "history.zip"
    old.export(archive)
    with zipfile.ZipFile(archive) as zf:
        texts = [zf.read(name) for name in zf.namelist()]
        servers = json.loads(zf.read("mcp_servers.json"))
    for secret in SECRETS:
        assert secret.encode() not in archive.read_bytes()
        assert not any(secret.encode() in text for text in texts)
    by_name = {s["name"]: s for s in servers}
    assert by_name["weather"]["env"] == {"WEATHER_API_KEY": ""}
    assert by_name["search"]["headers"] == {"Authorization": ""}


def test_a_failed_export_leaves_no_half_archive(
    old: Computer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from engine.store import archive as store_archive

    fill(old)
    dest = tmp_path / "out" / "history.zip"
    dest.parent.mkdir()
    dest.write_bytes(b"an older archive")

    def full_disk(*args: object) -> object:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(store_archive, "_put_images", full_disk)
    with pytest.raises(StoreError, match="No space left on device"):
        old.export(dest)
    assert [p.name for p in dest.parent.iterdir()] == ["history.zip"]
    assert dest.read_bytes() == b"an older archive"


# Damaged and foreign archives


def rewrite(
    src: Path,
    dest: Path,
    change: Callable[[str, bytes], bytes] = lambda _name, data: data,
    extra: tuple[tuple[str, bytes], ...] = (),
) -> Path:
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dest, "w") as zout:
        for info in zin.infolist():
            zout.writestr(info.filename, change(info.filename, zin.read(info)))
        for name, data in extra:
            zout.writestr(name, data)
    return dest


def truncated(src: Path, dest: Path) -> Path:
    data = src.read_bytes()
    dest.write_bytes(data[: len(data) // 2])
    return dest


def newer(src: Path, dest: Path) -> Path:
    def bump(name: str, data: bytes) -> bytes:
        if name != "manifest.json":
            return data
        return json.dumps({**json.loads(data), "version": 2}).encode()

    return rewrite(src, dest, bump)


def bad_json(src: Path, dest: Path) -> Path:
    return rewrite(src, dest, lambda n, d: b'{"uid": "abc", ' if n.startswith("conv") else d)


def not_a_chat(src: Path, dest: Path) -> Path:
    return rewrite(src, dest, lambda n, d: b'{"uid": 7}' if n.startswith("conv") else d)


def second_image_damaged(src: Path, dest: Path) -> Path:
    # The first chat's first image is written before its second is found damaged: the
    # transaction is rolled back, and the file written for the first goes too.
    second = f"images/{sha(png('orange'))}.png"
    return rewrite(src, dest, lambda n, d: png("red") if n == second else d)


def not_a_zip(src: Path, dest: Path) -> Path:
    dest.write_bytes(b"plain text")
    return dest


def bomb(src: Path, dest: Path) -> Path:
    rewrite(src, dest)
    with zipfile.ZipFile(dest, "a") as zf:
        zf.writestr("conversations/bomb.json", b"{}")
        zf.filelist[-1].file_size = 10**12  # what the directory declares, not what is there
    return dest


DAMAGES: dict[str, tuple[Callable[[Path, Path], Path], str]] = {
    "truncated": (truncated, "not a zip archive, or it is cut short"),
    "not a zip": (not_a_zip, "not a zip archive"),
    "climbing path": (
        lambda s, d: rewrite(s, d, extra=(("../outside.json", b"{}"),)),
        "path leaves the archive",
    ),
    "absolute path": (
        lambda s, d: rewrite(s, d, extra=(("/etc/cove.json", b"{}"),)),
        "path leaves the archive",
    ),
    "newer version": (newer, r"newer version of Cove \(archive version 2"),
    "malformed member": (bad_json, "is not valid JSON"),
    "not a chat": (not_a_chat, "is not a chat Cove can read"),
    "damaged image": (second_image_damaged, "do not match its name"),
    "zip bomb": (bomb, "declares 1,000,000,000,000 bytes"),
}


@pytest.fixture
def archive(old: Computer, tmp_path: Path) -> Iterator[Path]:
    fill(old)
    path = tmp_path / "good.zip"
    old.export(path)
    yield path


@pytest.mark.parametrize("damage", list(DAMAGES))
def test_a_bad_archive_changes_nothing_and_says_what_is_wrong(
    damage: str, archive: Path, new: Computer, tmp_path: Path
) -> None:
    make, message = DAMAGES[damage]
    bad = make(archive, tmp_path / "bad.zip")
    with new.store() as store:
        store.add_message(store.create_conversation("Mine").id, "user", "kept as it was")
    before, images = new.history(), files_of(new.folder)

    with new.store() as store, pytest.raises(StoreError, match=message) as caught:
        import_archive(store, bad, mcp_servers=ServerListPart(), collections=CollectionsPart())

    assert str(bad) in str(caught.value) and "Nothing was changed" in str(caught.value)
    assert new.history() == before
    assert {p for p in files_of(new.folder) if "images" in p.parts} == {
        p for p in images if "images" in p.parts
    }
    assert not (new.folder / mcp_config.CONFIG_FILENAME).exists()


# The migration that gives rows their uid


def test_the_uid_migration_keeps_every_row_of_a_previous_history(tmp_path: Path) -> None:
    db = tmp_path / "cove.sqlite3"
    conn = sqlite3.connect(db, isolation_level=None)
    for step in store_schema.MIGRATIONS[:-1]:
        step(conn)
    conn.execute("INSERT INTO folders VALUES (1, 'Work', 0, 1.0)")
    conn.execute(
        "INSERT INTO conversations (id, title, created_at, updated_at, leaf_id, pinned, "
        "folder_id) VALUES (1, 'Old chat', 1.0, 9.0, 3, 1, 1), (2, 'Other chat', 2.0, 3.0, NULL, "
        "0, NULL)"
    )
    conn.execute(
        "INSERT INTO messages (id, conversation_id, position, role, content, status, created_at, "
        "parent_id) VALUES (1, 1, 0, 'user', 'hello there', 'complete', 1.0, NULL), "
        "(2, 1, 1, 'assistant', 'general kenobi', 'complete', 2.0, 1), "
        "(3, 1, 2, 'assistant', 'another version', 'interrupted', 3.0, 1)"
    )
    conn.execute(f"PRAGMA user_version = {len(store_schema.MIGRATIONS) - 1}")
    conn.close()

    with Store(db) as store:
        assert [m.content for m in store.messages(1)] == ["hello there", "another version"]
        assert store.messages(1)[-1].version == (2, 2)
        assert [c.title for c in store.list_conversations()] == ["Old chat", "Other chat"]
        assert [h.message_id for h in store.search("kenobi")] == [2]
        new_chat = store.create_conversation("After the upgrade")
        store.add_message(new_chat.id, "user", "a new row")

    conn = sqlite3.connect(db)
    try:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == len(store_schema.MIGRATIONS)
        for table, rows in (("conversations", 3), ("messages", 4)):
            uids = [r[0] for r in conn.execute(f"SELECT uid FROM {table}")]
            assert len(uids) == len(set(uids)) == rows
            assert all(re.fullmatch("[0-9a-f]{32}", uid) for uid in uids)
        with pytest.raises(sqlite3.IntegrityError):  # a uid names one row only
            conn.execute("UPDATE messages SET uid = (SELECT uid FROM messages WHERE id = 1)")
    finally:
        conn.close()


# The command line


def test_the_history_commands_export_and_import_as_json(
    old: Computer, new: Computer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fill(old)
    archive = tmp_path / "cove.zip"
    old.store().close()  # makes the old computer's folder the current one
    assert main(["history", "export", str(archive), "--json"]) == 0
    exported = json.loads(capsys.readouterr().out)
    assert exported["path"] == str(archive) and exported["bytes"] == archive.stat().st_size
    assert (exported["conversations"], exported["messages"], exported["images"]) == (3, 7, 2)
    assert (exported["settings"], exported["mcp_servers"], exported["collections"]) == (3, 3, 1)

    new.store().close()
    assert main(["history", "import", str(archive), "--json"]) == 0
    imported = json.loads(capsys.readouterr().out)
    assert imported["conversations_added"] == 3 and imported["messages_added"] == 7
    assert imported["conversations_merged"] == 0 and imported["messages_skipped"] == 0
    assert imported["images_added"] == 2 and imported["settings_added"] == 2
    assert imported["presets_added"] == 2 and imported["mcp_servers_added"] == 3
    assert imported["collections_added"] == 1
    assert imported["missing_sources"] == ["/nowhere/on/this/computer/manuals"]
    assert all(isinstance(note, str) for note in imported["notes"])

    assert main(["history", "import", str(archive)]) == 0
    assert capsys.readouterr().out.startswith("Nothing new to import")

    (tmp_path / "junk.zip").write_bytes(b"junk")
    assert main(["history", "import", str(tmp_path / "junk.zip")]) == 1
    assert "not a zip archive" in capsys.readouterr().err
