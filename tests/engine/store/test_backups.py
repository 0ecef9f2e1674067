"""Backups of the chat history on real SQLite files: online, whole, kept by the rule, restored."""

from __future__ import annotations

import itertools
import sqlite3
from pathlib import Path

import pytest

from engine.errors import HistoryDamaged, StoreError
from engine.store import Store
from engine.store import schema as store_schema
from engine.store.backups import DAYS_KEPT, PART_PREFIX, WEEKS_KEPT, Backups
from tests.support.history_files import (
    Clock,
    add_image_chat,
    integrity,
    overwrite_middle,
    titles,
    write_chats,
)


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "data" / "cove.sqlite3"


def test_a_backup_is_a_whole_snapshot_taken_while_another_connection_writes(db: Path) -> None:
    with Store(db) as store:
        write_chats(store, 5)
        # Another program holds the write lock with rows it has not committed: the backup reads
        # the committed history beside it (WAL), neither waiting on it nor copying its rows.
        writer = sqlite3.connect(db, isolation_level=None)
        writer.execute("BEGIN IMMEDIATE")
        writer.execute(
            "INSERT INTO conversations (title, created_at, updated_at) VALUES ('half', 1, 1)"
        )
        try:
            backup = store.backup()
        finally:
            writer.execute("ROLLBACK")
            writer.close()
    assert backup.conversations == 5 and backup.messages == 30
    assert integrity(backup.database) == "ok"
    copy = sqlite3.connect(backup.database)
    try:
        assert copy.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
        names = {r[0] for r in copy.execute("SELECT title FROM conversations")}
    finally:
        copy.close()
    assert "half" not in names and len(names) == 5


def test_committed_rows_still_in_the_write_ahead_log_are_in_the_backup(db: Path) -> None:
    with Store(db) as store:
        write_chats(store, 2)
        assert Path(f"{db}-wal").stat().st_size > 0  # not yet checkpointed into the file
        backup = store.backup()
    assert backup.conversations == 2


def test_images_are_kept_once_in_the_pool_and_come_back_after_a_restore(db: Path) -> None:
    with Store(db) as store:
        add_image_chat(store)
        first = store.backup()
        second = store.backup()
        (image,) = first.images
        assert second.images == first.images
        pool = store.backups.folder / "images" / image
        assert pool.is_file()
        (store.images_folder / image).unlink()  # lost from the history's folder
        store.restore(first.name)
        assert (store.images_folder / image).read_bytes() == pool.read_bytes()


def test_seven_days_and_four_weeks_are_kept_and_the_newest_always(db: Path) -> None:
    clock = Clock()
    with Store(db, clock=clock) as store:
        write_chats(store, 1)
        for _ in range(60):
            store.backup("daily")
            clock.advance(24 * 3600)
        kept = store.backups.taken()
    assert len(kept) == DAYS_KEPT + WEEKS_KEPT
    days = [round((kept[0].taken_at - b.taken_at) / 86400) for b in kept]
    assert days[:DAYS_KEPT] == list(range(DAYS_KEPT))
    # One a week before the days, each of a different week.
    assert all(b - a >= 1 for a, b in itertools.pairwise(days))
    assert days[-1] <= DAYS_KEPT + 7 * WEEKS_KEPT


def test_the_size_bound_drops_the_oldest_but_never_the_newest(db: Path) -> None:
    clock = Clock()
    with Store(db, clock=clock) as store:
        write_chats(store, 3)
        size = store.backup().bytes
        store.backups.max_bytes = size * 2 + size // 2
        for _ in range(5):
            clock.advance(24 * 3600)
            store.backup("daily")
        assert len(store.backups.taken()) == 2
        store.backups.max_bytes = 1
        clock.advance(24 * 3600)
        newest = store.backup()
        assert [b.name for b in store.backups.taken()] == [newest.name]


def test_a_backup_is_due_after_a_day(db: Path) -> None:
    clock = Clock()
    with Store(db, clock=clock) as store:
        write_chats(store, 1)
        assert store.backups.due()
        store.backup("daily")
        clock.advance(23 * 3600)
        assert not store.backups.due()
        clock.advance(3600)
        assert store.backups.due()


def test_a_backup_cut_short_is_not_listed_and_is_cleared(db: Path) -> None:
    with Store(db) as store:
        write_chats(store, 1)
        half = store.backups.folder / f"{PART_PREFIX}2026-01-01T000000Z-daily"
        half.mkdir(parents=True)
        (half / "cove.sqlite3").write_bytes(b"SQLite format 3\x00")
        assert store.backups.taken() == []
        store.backup()
        assert not half.exists()


def test_a_damaged_history_is_not_backed_up_over_the_good_backups(db: Path) -> None:
    with Store(db) as store:
        write_chats(store, 30)
        good = store.backup()
    overwrite_middle(db)
    backups = Backups(db)
    with pytest.raises(HistoryDamaged):
        backups.take("daily")
    assert [b.name for b in backups.taken()] == [good.name]


def test_restore_puts_the_backup_back_and_keeps_the_history_as_it_was(db: Path) -> None:
    with Store(db) as store:
        write_chats(store, 3)
        backup = store.backup()
        write_chats(store, 2, start=3)
        restored, before = store.restore(backup.name[:10])
        assert restored == backup and before is not None
        assert titles(store) == {"Chat 0", "Chat 1", "Chat 2"}
        assert store.search("answer")  # the search index came back with the rows
        # Undone by restoring the backup made before it.
        store.restore(before.name)
        assert len(titles(store)) == 5


def test_restoring_an_unknown_backup_names_the_ones_there_are(db: Path) -> None:
    with Store(db) as store:
        write_chats(store, 1)
        taken = store.backup()
        with pytest.raises(StoreError, match=taken.name):
            store.restore("1999-01-01")


def _previous_schema(db: Path) -> None:
    """A history written by the Cove before the newest migration, with real rows."""
    db.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    for version, migration in enumerate(store_schema.MIGRATIONS[:-1]):
        conn.execute("BEGIN")
        migration(conn)
        conn.execute(f"PRAGMA user_version = {version + 1}")
        conn.execute("COMMIT")
    conn.execute(
        "INSERT INTO conversations (id, title, created_at, updated_at) VALUES (1, 'Old', 1, 2)"
    )
    conn.execute(
        "INSERT INTO messages (id, conversation_id, position, role, content, status, created_at)"
        " VALUES (1, 1, 0, 'user', 'kept across the upgrade', 'complete', 1)"
    )
    conn.close()


def test_every_migration_is_preceded_by_a_backup_of_the_history_as_it_was(db: Path) -> None:
    _previous_schema(db)
    with Store(db) as store:
        (backup,) = store.backups.taken()
        assert backup.reason == "before-migration"
        assert backup.schema == store_schema.latest_version() - 1
        assert [m.content for m in store.messages(1)] == ["kept across the upgrade"]


def test_a_migration_that_fails_halfway_leaves_the_backup_taken_before_it(
    db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _previous_schema(db)

    def broken(conn: sqlite3.Connection) -> None:
        conn.execute("CREATE TABLE half_done (x)")
        conn.execute("INSERT INTO no_such_table VALUES (1)")

    good = store_schema.MIGRATIONS
    monkeypatch.setattr(store_schema, "MIGRATIONS", (*good, broken))
    with pytest.raises(StoreError, match="backup of it was made just before"):
        Store(db)
    monkeypatch.setattr(store_schema, "MIGRATIONS", good)
    (backup,) = Backups(db).taken()
    assert backup.reason == "before-migration"
    # What opens is the history as the backup holds it.
    elsewhere = tmp_path / "restored" / "cove.sqlite3"
    elsewhere.parent.mkdir()
    elsewhere.write_bytes(backup.database.read_bytes())
    with Store(elsewhere) as opened:
        assert [m.content for m in opened.messages(1)] == ["kept across the upgrade"]
    with Store(db) as store:
        assert [m.content for m in store.messages(1)] == ["kept across the upgrade"]


WRITER = """
import sys
from engine.store import Store
from tests.support.history_files import write_chats
with Store(sys.argv[1]) as store:
    write_chats(store, 10, start=1000, words=20)
"""


def test_backups_beside_replies_saved_by_two_threads_and_another_process(db: Path) -> None:
    import subprocess
    import sys
    import threading

    repo = Path(__file__).resolve().parents[3]
    with Store(db) as store:
        write_chats(store, 5)
        conv = store.create_conversation("streaming")
        replies = [store.add_message(conv.id, "assistant", "", status="streaming") for _ in "ab"]
        failures: list[BaseException] = []

        def stream(message_id: int) -> None:
            try:
                text = ""
                for n in range(200):  # a reply saved as it grows, as the window saves it
                    text += f"token{n} "
                    store.update_message_content(message_id, text)
                store.finish_message(message_id, text, "complete")
            except BaseException as exc:  # reported below
                failures.append(exc)

        other = subprocess.Popen([sys.executable, "-c", WRITER, str(db)], cwd=repo)
        threads = [threading.Thread(target=stream, args=(r.id,)) for r in replies]
        for thread in threads:
            thread.start()
        taken = [store.backup("manual") for _ in range(3)]
        for thread in threads:
            thread.join()
        assert other.wait(timeout=120) == 0
        assert failures == []
        assert all(integrity(b.database) == "ok" for b in taken)
        assert [m.status for m in store.all_messages(conv.id)] == ["complete", "complete"]
        assert len(store.list_conversations()) == 16
    assert integrity(db) == "ok"
