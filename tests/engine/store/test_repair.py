"""A damaged chat history is noticed, kept aside untouched, and rebuilt from its backup and the
rows it still holds: bad bytes, a truncated copy, zeros, a lost journal, damage found mid-use."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from engine.errors import HistoryDamaged
from engine.store import Repair, Store
from engine.store import repair as store_repair
from engine.store.backups import Backups
from engine.store.repair import repairs_log
from tests.support.history_files import integrity, overwrite_middle, titles, write_chats

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "data" / "cove.sqlite3"


def _thirty(db: Path) -> set[str]:
    with Store(db) as store:
        write_chats(store, 30)
        store.backup("daily")
        return titles(store)


def _opened(db: Path) -> tuple[set[str], Repair]:
    with Store(db) as store:
        found = titles(store)
        (repair,) = store.repairs
        assert store.check() == []
    assert integrity(db) == "ok"
    return found, repair


def test_eight_bad_kilobytes_in_the_middle_are_repaired_and_every_chat_kept(db: Path) -> None:
    before = _thirty(db)
    with Store(db) as store:  # written after the backup: only the damaged file has it
        newer = store.create_conversation("Newer than the backup")
        store.add_message(newer.id, "user", "kept although no backup holds it")
    damaged = overwrite_middle(db)
    assert integrity(db) != "ok"
    found, repair = _opened(db)
    assert found == before | {"Newer than the backup"}
    assert repair.backup_name is not None and repair.salvaged_rows > 0
    # The damaged file lies aside byte for byte as it was found.
    assert (repair.damaged_copy / db.name).read_bytes() == damaged
    assert repairs_log(db)[0] == repair
    with Store(db) as store:
        assert store.repairs == []  # repaired once, then whole
        (hit,) = [h for h in store.search("kept although") if h.title == "Newer than the backup"]
        assert hit.snippet


def test_a_file_of_zeros_is_rebuilt_from_the_backup(db: Path) -> None:
    before = _thirty(db)
    size = db.stat().st_size
    db.write_bytes(bytes(size))
    found, repair = _opened(db)
    assert found == before
    assert repair.salvaged_rows == 0
    assert (repair.damaged_copy / db.name).read_bytes() == bytes(size)


def test_a_truncated_file_is_rebuilt_from_the_backup_and_what_survived(db: Path) -> None:
    before = _thirty(db)
    with Store(db) as store:
        write_chats(store, 5, start=30)
    whole = db.read_bytes()
    db.write_bytes(whole[: int(len(whole) * 0.6)])
    found, repair = _opened(db)
    assert before <= found
    assert repair.salvaged_rows > 0


def test_damage_without_any_backup_keeps_the_rows_that_can_be_read(db: Path) -> None:
    with Store(db) as store:
        write_chats(store, 30)
    overwrite_middle(db)
    found, repair = _opened(db)
    assert repair.backup_name is None
    assert 0 < len(found) <= 30 and repair.salvaged_rows > 0


CHILD = textwrap.dedent(
    """
    import os, signal, sys
    from engine.store import Store
    from tests.support.history_files import write_chats
    store = Store(sys.argv[1])
    write_chats(store, 5, start=30)
    store.backup("daily")
    write_chats(store, 1, start=35)
    print("written", flush=True)
    os.kill(os.getpid(), signal.SIGKILL)
    """
)


def test_a_lost_write_ahead_log_is_noticed_and_the_backup_brings_back_its_rows(db: Path) -> None:
    before = _thirty(db)
    # Cove killed while its last writes were only in the -wal; then the -wal is lost.
    child = subprocess.run(
        [sys.executable, "-c", CHILD, str(db)], cwd=REPO, capture_output=True, text=True
    )
    assert child.returncode == -signal.SIGKILL and "written" in child.stdout
    wal = Path(f"{db}-wal")
    assert wal.stat().st_size > 0
    wal.unlink()
    Path(f"{db}-shm").unlink(missing_ok=True)
    found, repair = _opened(db)
    assert "journal was lost" in repair.problem
    assert found == before | {f"Chat {n}" for n in range(30, 35)}


def test_damage_found_mid_use_is_repaired_under_the_open_store(
    db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = _thirty(db)
    overwrite_middle(db)
    # Damage that appears after the check at open (the check is skipped to stand for it).
    monkeypatch.setattr(store_repair, "diagnose", lambda _path, _backups: None)
    seen: list[Repair] = []
    with Store(db) as store:
        store.on_repaired = seen.append
        with pytest.raises(HistoryDamaged, match="rebuilt"):
            for conversation in store.list_conversations():
                store.messages(conversation.id)
            store.search("answer")
        assert len(seen) == 1 and store.repairs == seen
        assert titles(store) == before  # the same Store goes on, on the rebuilt file
        conv = store.create_conversation("after the repair")
        store.add_message(conv.id, "user", "still writing")
    assert integrity(db) == "ok"


def test_a_history_from_a_newer_cove_is_not_taken_for_damage(db: Path) -> None:
    _thirty(db)
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA user_version = 999")
    conn.close()
    assert store_repair.diagnose(db, Backups(db)) is None


def test_cove_history_check_reports_and_repairs(
    db: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from engine.cli import main

    monkeypatch.setenv("COVE_DATA_DIR", str(db.parent))
    before = _thirty(db)
    assert main(["history", "check", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["ok"] is True
    overwrite_middle(db)
    assert main(["history", "check", "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is False and report["repaired"] is None and report["problem"]
    assert main(["history", "check", "--repair", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["repaired"]["conversations"] == len(before)
    assert Path(report["repaired"]["damaged_copy"]).is_dir()
    assert integrity(db) == "ok"


def test_cove_history_backup_list_and_restore(
    db: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from engine.cli import main

    monkeypatch.setenv("COVE_DATA_DIR", str(db.parent))
    with Store(db) as store:
        write_chats(store, 2)
    assert main(["history", "backup", "--json"]) == 0
    taken = json.loads(capsys.readouterr().out)
    assert taken["conversations"] == 2 and taken["reason"] == "manual"
    with Store(db) as store:
        write_chats(store, 1, start=2)
    assert main(["history", "backups", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [b["name"] for b in listed["backups"]] == [taken["name"]]
    assert main(["history", "restore", taken["name"], "--json"]) == 0
    restored = json.loads(capsys.readouterr().out)
    assert (
        restored["restored"]["name"] == taken["name"] and restored["before"]["conversations"] == 3
    )
    with Store(db) as store:
        assert titles(store) == {"Chat 0", "Chat 1"}


def test_bad_bytes_anywhere_in_the_file_never_stop_the_history_from_opening(
    db: Path, tmp_path: Path
) -> None:
    """Damage at many places, the table's first and last pages among them (then SQLite cannot
    say where its rows start and end, and every rowid is tried by halving): each opens, whole."""
    import random
    import shutil

    with Store(db) as store:
        write_chats(store, 300, words=40)
    size = db.stat().st_size
    rng = random.Random(11)
    places = [4096, size - 8192, *(rng.randrange(4096, size - 8192) for _ in range(10))]
    for n, place in enumerate(places):
        copy = tmp_path / f"place-{n}" / "cove.sqlite3"
        copy.parent.mkdir()
        shutil.copyfile(db, copy)
        with copy.open("r+b") as out:
            out.seek(place)
            out.write(rng.randbytes(8192))
        with Store(copy) as store:
            assert len(store.list_conversations()) <= 300
        assert integrity(copy) == "ok"
