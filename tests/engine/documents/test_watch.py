"""Watched folders on the real file system: files created, changed, moved and deleted are
reported once they settle (a file still being written once, when done), temporary and hidden
files are not; the index follows a batch of changes; and the catch-up after a restart reads only
what changed while Cove was closed."""

from __future__ import annotations

import queue
from pathlib import Path

import pytest

from engine.documents import indexer as indexer_module
from engine.documents.index_db import IndexDB
from engine.documents.indexer import Indexer
from engine.documents.watch import FolderWatcher, is_document

WAIT_S = 20.0  # a guard against a hang, not a measurement
SETTLE_S = 0.3

Batch = tuple[frozenset[Path], frozenset[Path]]


@pytest.fixture
def batches() -> queue.Queue[Batch]:
    return queue.Queue()


def next_batch(batches: queue.Queue[Batch]) -> Batch:
    return batches.get(timeout=WAIT_S)


def until(batches: queue.Queue[Batch], changed: set[Path], gone: set[Path]) -> None:
    """Batches until these were reported (a move's two halves may settle apart), and nothing
    else."""
    seen_changed: set[Path] = set()
    seen_gone: set[Path] = set()
    while seen_changed != changed or seen_gone != gone:
        more_changed, more_gone = next_batch(batches)
        seen_changed |= more_changed
        seen_gone |= more_gone
        assert seen_changed <= changed and seen_gone <= gone, (seen_changed, seen_gone)


def test_temporary_and_hidden_files_are_not_documents() -> None:
    assert is_document(Path("/docs/manual.pdf"))
    assert is_document(Path("/docs/notes.MD"))
    for name in ("~$report.docx", ".notes.md.swp", "draft.md~", "big.pdf.part", ".hidden.txt"):
        assert not is_document(Path("/docs") / name), name
    assert not is_document(Path("/docs/.git/readme.md"))
    assert not is_document(Path("/docs/photo.jpg"))


def test_a_hidden_folder_counts_only_below_the_folder_added() -> None:
    kept = Path("/home/ana/.local/share/manuals/guide.pdf")
    assert is_document(kept, [Path("/home/ana/.local/share/manuals")])
    assert not is_document(kept)  # no folder given: judged on the whole path
    inside = Path("/home/ana/.local/share/manuals/.git/readme.md")
    assert not is_document(inside, [Path("/home/ana/.local/share/manuals")])


def test_created_changed_moved_and_deleted_files_are_reported(
    tmp_path: Path, batches: queue.Queue[Batch]
) -> None:
    folder = tmp_path / "notes"
    (folder / "deep").mkdir(parents=True)
    with FolderWatcher(lambda c, g: batches.put((c, g)), settle_s=SETTLE_S) as watcher:
        watcher.watch(folder)
        assert watcher.folders == {folder}
        new = folder / "deep" / "tides.md"
        new.write_text("# Tides\n\nHigh water at noon.\n", encoding="utf-8")
        (folder / "~$lock.docx").write_bytes(b"lock")  # an office lock file: ignored
        (folder / ".hidden.md").write_text("hidden", encoding="utf-8")
        changed, gone = next_batch(batches)
        assert changed == {new} and not gone

        new.write_text("# Tides\n\nHigh water at one.\n", encoding="utf-8")
        until(batches, {new}, set())

        moved = folder / "tides-2024.md"
        new.rename(moved)
        until(batches, {moved}, {new})

        moved.unlink()
        until(batches, set(), {moved})
    assert batches.empty()


def test_a_file_being_written_is_reported_once_when_done(tmp_path: Path) -> None:
    """Many writes, one report, made when the file was whole (its size at the report)."""
    folder = tmp_path / "inbox"
    folder.mkdir()
    big = folder / "minutes.txt"
    line = "Item: the harbour board met and agreed.\n"
    reports: queue.Queue[tuple[frozenset[Path], int]] = queue.Queue()

    def report(changed: frozenset[Path], _gone: frozenset[Path]) -> None:
        reports.put((changed, big.stat().st_size))

    with FolderWatcher(report, settle_s=SETTLE_S) as watcher:
        watcher.watch(folder)
        with big.open("w", encoding="utf-8") as f:
            for _ in range(50):
                f.write(line * 100)
                f.flush()
        changed, size = reports.get(timeout=WAIT_S)
    assert changed == {big} and size == 50 * 100 * len(line)
    assert reports.empty()


def test_a_deleted_folder_takes_its_files_out_of_the_index(
    tmp_path: Path, batches: queue.Queue[Batch]
) -> None:
    folder = tmp_path / "docs"
    sub = folder / "2023"
    sub.mkdir(parents=True)
    (sub / "a.md").write_text("# A\n\nAlpha.\n", encoding="utf-8")
    (folder / "b.md").write_text("# B\n\nBravo.\n", encoding="utf-8")
    db = IndexDB(tmp_path / "index.sqlite3")
    collection = db.collection("c", create=True)
    assert collection is not None
    indexer = Indexer(db, collection)
    indexer.add([folder])
    with FolderWatcher(lambda c, g: batches.put((c, g)), settle_s=SETTLE_S) as watcher:
        watcher.watch(folder)
        (sub / "a.md").unlink()
        sub.rmdir()
        changed, gone = next_batch(batches)
        while not any(p == sub for p in gone):  # the file, then its folder, may come apart
            changed, gone = next_batch(batches)
    outcomes = indexer.update(changed, gone)
    assert [f.path for f in db.files(collection)] == [str(folder / "b.md")]
    assert all(o.outcome == "removed" for o in outcomes)
    db.close()


def test_a_batch_of_changes_updates_the_index(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    keep, change, drop = (folder / n for n in ("keep.md", "change.md", "drop.md"))
    for path in (keep, change, drop):
        path.write_text(f"# {path.stem}\n\nThe {path.stem} note.\n", encoding="utf-8")
    outside = tmp_path / "elsewhere.md"
    outside.write_text("# Elsewhere\n\nNot in the collection.\n", encoding="utf-8")
    db = IndexDB(tmp_path / "index.sqlite3")
    collection = db.collection("c", create=True)
    assert collection is not None
    indexer = Indexer(db, collection)
    indexer.add([folder])
    change.write_text("# change\n\nThe ferry now leaves at ten.\n", encoding="utf-8")
    drop.unlink()
    added = folder / "added.md"
    added.write_text("# added\n\nA new note.\n", encoding="utf-8")
    outcomes = {Path(o.path).name: o.outcome for o in indexer.update(
        {change, added, outside}, {drop}
    )}  # fmt: skip
    assert outcomes == {"change.md": "indexed", "added.md": "indexed", "drop.md": "removed"}
    assert {Path(f.path).name for f in db.files(collection)} == {"keep.md", "change.md", "added.md"}
    found = db.keyword(collection, '"ferry"', 5)
    assert found and db.chunks_by_id([found[0][0]])[found[0][0]].path == str(change)
    db.close()


def test_catching_up_reads_only_what_changed_while_closed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    for n in range(6):
        (folder / f"note{n}.md").write_text(f"# Note {n}\n\nText {n}.\n", encoding="utf-8")
    db = IndexDB(tmp_path / "index.sqlite3")
    collection = db.collection("c", create=True)
    assert collection is not None
    Indexer(db, collection).add([folder])
    db.close()

    # Cove is closed: one note edited, one deleted, one added.
    (folder / "note1.md").write_text("# Note 1\n\nThe lighthouse keeper.\n", encoding="utf-8")
    (folder / "note2.md").unlink()
    (folder / "note9.md").write_text("# Note 9\n\nNew.\n", encoding="utf-8")

    hashed: list[str] = []
    real = indexer_module.file_sha256

    def counting(path: Path) -> str:
        hashed.append(path.name)
        return real(path)

    monkeypatch.setattr(indexer_module, "file_sha256", counting)
    db = IndexDB(tmp_path / "index.sqlite3")
    collection = db.collection("c")
    assert collection is not None
    outcomes = {Path(o.path).name: o.outcome for o in Indexer(db, collection).refresh()}
    assert outcomes == {"note1.md": "indexed", "note2.md": "removed", "note9.md": "indexed"}
    assert sorted(hashed) == ["note1.md", "note9.md"]  # the unchanged were not even hashed
    hashed.clear()
    assert Indexer(db, collection).refresh() == [] and hashed == []

    # A new way of reading: every file is read again on catching up, once.
    monkeypatch.setattr(indexer_module, "READING", indexer_module.READING + 1)
    again = {Path(o.path).name: o.outcome for o in Indexer(db, collection).refresh()}
    assert set(again.values()) == {"indexed"} and len(again) == 6
    hashed.clear()
    assert Indexer(db, collection).refresh() == [] and hashed == []
    db.close()


def _inotify_instances() -> int:
    """This process's inotify instances (a user may hold 128 at once)."""
    found = 0
    for fd in Path("/proc/self/fd").iterdir():
        try:
            found += "inotify" in str(fd.readlink())
        except OSError:  # closed meanwhile
            continue
    return found


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="Linux's /proc")
def test_a_watcher_holds_the_system_s_watches_only_while_it_watches(tmp_path: Path) -> None:
    """A window with no collection takes no inotify instance, and one closed gives its back:
    windows opened and closed one after another never run out."""
    before = _inotify_instances()
    idle = FolderWatcher(lambda _changed, _gone: None)
    assert _inotify_instances() == before
    idle.close()
    watching = FolderWatcher(lambda _changed, _gone: None)
    watching.watch(tmp_path)
    assert _inotify_instances() == before + 1
    watching.close()
    assert _inotify_instances() == before
