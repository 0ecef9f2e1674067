"""The Documents view on the labelled corpus: a collection made, a folder added on a worker thread
with progress, every file's state shown (a scanned page, a broken file and its reason), a
question answered with its sources, and indexing cancelled and resumed."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from engine.documents.embeddings import EmbeddingModel
from engine.documents.index_db import IndexDB
from tests.scripted_load import BUSY, QUIET, ReadingClock, ScriptedLoad
from tests.support.corpus.build import build_corpus

if TYPE_CHECKING:
    from pytestqt.qtbot import QtBot

    from app.common.theme import ThemeManager
    from app.documents.view import DocumentsView

WAIT_MS = 120_000  # a guard against a hang, not a measurement


@pytest.fixture
def encoder(shared_models: Path) -> Iterator[EmbeddingModel]:
    with EmbeddingModel.load(shared_models / "all-minilm-l6-v2-onnx") as model:
        yield model


@pytest.fixture
def view(
    qtbot: QtBot, theme: ThemeManager, tmp_path: Path, encoder: EmbeddingModel
) -> Iterator[DocumentsView]:
    from app.common.idle_runner import IdleRunner
    from app.documents.view import DocumentsView
    from engine.tuning.idle import QuietWatch

    # A quiet computer at once (waiting for one is tested below, with a scripted load).
    load = ScriptedLoad()
    idle = IdleRunner(watch=QuietWatch(load, clock=ReadingClock(load)), quiet_for_s=0, poll_ms=5)
    widget = DocumentsView(IndexDB(tmp_path / "documents.sqlite3"), lambda: encoder, idle)
    widget.load = load  # type: ignore[attr-defined]
    qtbot.addWidget(widget)
    widget.resize(1100, 720)
    widget.show()
    yield widget
    widget.stop_watching()
    widget.pool.wait(30_000)
    widget.ask_pool.wait(30_000)
    widget.db.close()


def test_add_a_folder_see_each_file_and_ask(
    qtbot: QtBot, view: DocumentsView, tmp_path: Path
) -> None:
    docs = tmp_path / "docs"
    build_corpus(docs)
    (docs / "broken.pdf").write_bytes(b"%PDF-1.4 truncated")
    view.new_collection("Fenwick Loom")
    assert view.collection is not None and view.add_folder_button.isEnabled()
    with qtbot.waitSignal(view.indexing_finished, timeout=WAIT_MS):
        view.add_paths([docs])
        assert view.cancel_button.isVisibleTo(view)
    states = {}
    for row in range(view.table.rowCount()):
        name, state = view.table.item(row, 0), view.table.item(row, 1)
        assert name is not None and state is not None
        states[Path(name.toolTip()).name] = state.text()
    assert len(states) == 23
    assert states["broken.pdf"].startswith("Skipped: ")
    assert states["aerolux_x200_manual.pdf"] == "Indexed: pages 6 need OCR"
    assert not view.cancel_button.isVisibleTo(view)
    with qtbot.waitSignal(view.answered, timeout=WAIT_MS) as answered:
        view.question.setText("How much is the daily allowance abroad under the 2024 policy?")
        view.question.returnPressed.emit()
    sources = answered.args[0]
    assert sources, view.sources.toPlainText()
    assert Path(sources[0].path).name == "travel_policy_2024.md"
    assert "travel_policy_2024.md" in view.sources.toPlainText()
    # The sentence that decided the cited page is shown with it.
    assert sources[0].sentence
    assert " ".join(sources[0].sentence.split())[:60] in view.sources.toPlainText()


def test_cancel_keeps_what_was_read_and_adding_again_resumes(
    qtbot: QtBot, view: DocumentsView, tmp_path: Path
) -> None:
    docs = tmp_path / "docs"
    build_corpus(docs)
    view.new_collection("c")
    with qtbot.waitSignal(view.indexing_finished, timeout=WAIT_MS) as first:
        view.add_paths([docs])
        view.cancel()
    cancelled = [o for o in first.args[0] if o.outcome == "cancelled"]
    with qtbot.waitSignal(view.indexing_finished, timeout=WAIT_MS) as second:
        view.add_paths([docs])
    outcomes = {o.outcome for o in second.args[0]}
    assert "cancelled" not in outcomes
    assert view.collection is not None
    assert view.db.count_unembedded(view.collection) == 0
    assert len(cancelled) + sum(o.outcome == "indexed" for o in first.args[0]) >= 1


def notes_collection(qtbot: QtBot, view: DocumentsView, tmp_path: Path) -> Path:
    """A collection "notes" of one folder with one note, indexed: the folder."""
    docs = tmp_path / "notes"
    docs.mkdir()
    (docs / "ferry.md").write_text("# Ferry\n\nThe ferry leaves at nine.\n", encoding="utf-8")
    view.new_collection("notes")
    with qtbot.waitSignal(view.indexing_finished, timeout=WAIT_MS):
        view.add_paths([docs])
    return docs


def test_a_watched_folder_updates_by_itself(
    qtbot: QtBot, view: DocumentsView, tmp_path: Path
) -> None:
    import threading

    docs = notes_collection(qtbot, view, tmp_path)
    # A file added while Cove was closed is found by the catch-up when watching starts.
    (docs / "tides.md").write_text("# Tides\n\nHigh water at noon.\n", encoding="utf-8")
    with qtbot.waitSignal(view.folders_updated, timeout=WAIT_MS) as caught_up:
        view.start_watching()
    assert [o.outcome for o in caught_up.args[1]] == ["indexed"]
    qtbot.waitUntil(lambda: "up to date" in view.watch_line.text(), timeout=WAIT_MS)
    assert view.watch_line.text() == "Watching 1 folder · up to date"

    def names() -> set[str]:
        return {Path(view.table.item(r, 0).toolTip()).name for r in range(view.table.rowCount())}  # type: ignore[union-attr]

    # Then the folder is followed as it changes.
    (docs / "harbour.md").write_text("# Harbour\n\nBoats moor here.\n", encoding="utf-8")
    (docs / "ferry.md").unlink()
    qtbot.waitUntil(lambda: names() == {"tides.md", "harbour.md"}, timeout=WAIT_MS)
    states = {view.table.item(r, 1).text() for r in range(view.table.rowCount())}  # type: ignore[union-attr]
    assert states == {"Indexed"}
    view.stop_watching()
    assert not [t for t in threading.enumerate() if t.name == "folder-watch"]


def test_a_question_asked_while_indexing_says_the_index_is_partial(
    qtbot: QtBot, view: DocumentsView, tmp_path: Path
) -> None:
    docs = tmp_path / "docs"
    build_corpus(docs)
    view.new_collection("c")
    with qtbot.waitSignals([view.indexing_finished, view.answered], timeout=WAIT_MS):
        view.add_paths([docs])
        view.ask("How long does the X200 take to charge?")
    assert "still being indexed" in view.sources.toPlainText()
    with qtbot.waitSignal(view.answered, timeout=WAIT_MS) as answered:
        view.ask("How long does the X200 take to charge?")
    assert "still being indexed" not in view.sources.toPlainText()
    assert Path(answered.args[0][0].path).name == "aerolux_x200_manual.pdf"


def test_catching_up_waits_for_a_quiet_computer(
    qtbot: QtBot, view: DocumentsView, tmp_path: Path
) -> None:
    """Catching up with a watched folder is background work: on a busy computer it waits (and
    says so), and it runs once the computer has been quiet a while."""
    load: ScriptedLoad = view.load  # type: ignore[attr-defined]
    docs = notes_collection(qtbot, view, tmp_path)
    (docs / "tides.md").write_text("# Tides\n\nHigh water at noon.\n", encoding="utf-8")
    load.now = BUSY
    view.idle.quiet_for_s = 10
    updated: list[object] = []
    view.folders_updated.connect(lambda name, outcomes: updated.append(outcomes))
    view.start_watching()
    qtbot.waitUntil(lambda: load.reads >= 40, timeout=WAIT_MS)
    assert not updated  # forty seconds of a busy computer: it waited
    assert view.watch_line.text() == "Watching 1 folder · updating when this computer is idle"
    quiet_from = load.reads
    load.now = QUIET
    qtbot.waitUntil(lambda: bool(updated), timeout=WAIT_MS)
    assert load.reads - quiet_from >= 10  # after ten quiet (clock) seconds, not before
    assert [o.outcome for o in updated[0]] == ["indexed"]  # type: ignore[attr-defined]
