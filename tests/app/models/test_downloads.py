"""The Models view's Installed and Downloads tabs against the loopback hub: real downloads through
the engine's download manager, driven by the view's buttons, waiting on signals."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from engine.hub.api import HubConfig
from engine.hub.download import DownloadRequest
from engine.library.layout import partial_path, state_path, target_path
from engine.library.partial import list_partials
from tests.support.downloads import PART, make_manager
from tests.support.fake_hub import FakeHub, random_bytes

if TYPE_CHECKING:
    from pytestqt.qtbot import QtBot

    from app.common.theme import ThemeManager
    from app.models.view import ModelsView

REPO = "acme/tiny-GGUF"
FILE = "tiny.Q4_K_M.gguf"
SIZE = 2 * 1024 * 1024 + 12345
WAIT_MS = 60_000  # a guard against a hang, not a measurement


@pytest.fixture
def hub(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeHub]:
    with FakeHub() as fake:
        monkeypatch.setenv("HF_ENDPOINT", fake.endpoint)
        fake.add(REPO, FILE, random_bytes(SIZE))
        yield fake
        fake.state.release.set()  # a held answer never outlives its test


def no_engine(model_id: str, done: Callable[[Any], None], failed: Callable[[Any], None]) -> None:
    failed(RuntimeError("No engine in this test."))


@pytest.fixture
def view(qtbot: QtBot, theme: ThemeManager, data_dir: Path, hub: FakeHub) -> Iterator[ModelsView]:
    from app.models.download_controller import DownloadController
    from app.models.view import ModelsView

    models_folder().mkdir(parents=True)
    widget = ModelsView(theme.colors, no_engine, DownloadController(make_manager(hub)))
    qtbot.addWidget(widget)
    widget.resize(1100, 700)
    widget.show()
    yield widget
    hub.state.release.set()
    widget.downloads.close()
    widget.pool.wait(10_000)


def models_folder() -> Path:
    return Path(os.environ["COVE_MODELS_DIR"])


def installed_path() -> Path:
    return target_path(models_folder(), REPO, FILE)


def add(qtbot: QtBot, view: ModelsView, text: str) -> Any:
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    downloads = view.downloads_view
    downloads.field.setText(text)
    with qtbot.waitSignal(view.downloads.download_added, timeout=WAIT_MS) as added:
        QTest.mouseClick(downloads.add_button, Qt.MouseButton.LeftButton)
    return added.args[0]


def click(qtbot: QtBot, button: Any) -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    assert not button.isHidden(), button.text()
    QTest.mouseClick(button, Qt.MouseButton.LeftButton)


def wait_for_bytes(qtbot: QtBot, view: ModelsView, download: Any, at_least: int) -> None:
    """Until the view has shown this many bytes of the download (progress signals arrived)."""

    def shown() -> bool:
        row = view.downloads_view.row(download)
        return row.bar.value() >= at_least * 1000 // SIZE and "of" in row.status.text()

    qtbot.waitUntil(shown, timeout=WAIT_MS)


def test_a_download_shows_its_progress_lands_in_installed_and_offers_a_chat(
    qtbot: QtBot, view: ModelsView, hub: FakeHub
) -> None:
    hub.state.hold_from = PART * 4  # the bytes past here wait, so progress can be seen midway
    download = add(qtbot, view, f"{REPO}/{FILE}")
    assert view.tabs.tabText(view.tabs.indexOf(view.downloads_view)) == "Downloads (1)"
    wait_for_bytes(qtbot, view, download, PART * 4)
    row = view.downloads_view.row(download)
    assert 0 < row.bar.value() < 1000
    assert row.status.text().startswith("Downloading") and "MiB" in row.status.text()
    assert row.chat_button.isHidden() and not row.pause_button.isHidden()

    with qtbot.waitSignals([view.downloads.download_finished, view.models_listed], timeout=WAIT_MS):
        hub.state.release.set()
    assert row.bar.value() == 1000 and row.status.text().startswith("Installed")
    assert [e.path for e in view.entries if e.repo == REPO] == [installed_path()]
    assert installed_path().stat().st_size == SIZE
    assert view.tabs.tabText(view.tabs.indexOf(view.downloads_view)) == "Downloads"

    with qtbot.waitSignal(view.load_requested, timeout=WAIT_MS) as load:
        click(qtbot, row.chat_button)
    assert load.args == [str(installed_path())]


def test_pause_and_resume(qtbot: QtBot, view: ModelsView, hub: FakeHub) -> None:
    hub.state.hold_from = PART * 4
    download = add(qtbot, view, f"{REPO}/{FILE}")
    wait_for_bytes(qtbot, view, download, PART * 4)
    row = view.downloads_view.row(download)
    click(qtbot, row.pause_button)
    hub.state.release.set()
    qtbot.waitUntil(lambda: row.status.text().startswith("Paused"), timeout=WAIT_MS)
    assert not row.resume_button.isHidden() and row.pause_button.isHidden()
    assert partial_path(installed_path()).exists()

    hub.state.hold_from = None
    with qtbot.waitSignal(view.downloads.download_finished, timeout=WAIT_MS):
        click(qtbot, row.resume_button)
    assert installed_path().stat().st_size == SIZE
    assert not partial_path(installed_path()).exists()


def test_cancel_removes_the_partial_download(qtbot: QtBot, view: ModelsView, hub: FakeHub) -> None:
    hub.state.hold_from = PART * 2
    download = add(qtbot, view, f"{REPO}/{FILE}")
    wait_for_bytes(qtbot, view, download, PART * 2)
    row = view.downloads_view.row(download)
    click(qtbot, row.cancel_button)
    hub.state.release.set()
    qtbot.waitUntil(lambda: row.status.text().startswith("Cancelled"), timeout=WAIT_MS)
    target = installed_path()
    assert not target.exists() and not partial_path(target).exists()
    assert not state_path(target).exists() and list_partials(models_folder()) == []
    assert row.cancel_button.isHidden() and row.resume_button.isHidden()


def test_a_failing_download_says_why_in_words_and_offers_a_file_that_exists(
    qtbot: QtBot, view: ModelsView
) -> None:
    download = add(qtbot, view, f"https://huggingface.co/{REPO}/resolve/main/missing.gguf")
    assert download.request == DownloadRequest(REPO, "missing.gguf")
    row = view.downloads_view.row(download)
    qtbot.waitUntil(lambda: not row.error.isHidden(), timeout=WAIT_MS)
    assert row.error.text() == f"{REPO} has no file missing.gguf."
    assert row.status.text() == "Failed" and row.resume_button.text() == "Try again"
    assert row.text_only_button.isHidden()
    # A button, not a command line: it chooses the repository's file for this computer.
    with qtbot.waitSignal(view.downloads.download_added, timeout=WAIT_MS) as added:
        click(qtbot, row.choose_button)
    assert added.args[0].request.name == f"{REPO}/{FILE}"
    assert row.status.text() == "Cancelled" and row.choose_button.isHidden()


def test_naming_only_the_repository_downloads_the_file_that_suits_this_computer(
    qtbot: QtBot, view: ModelsView
) -> None:
    download = add(qtbot, view, f"https://huggingface.co/{REPO}")
    assert download.request.name == f"{REPO}/{FILE}"  # its 4-bit, medium quality build
    row = view.downloads_view.row(download)
    assert "4-bit, medium quality" in row.name.text()
    with qtbot.waitSignal(view.downloads.download_finished, timeout=WAIT_MS):
        pass
    assert installed_path().stat().st_size == SIZE


def test_a_repository_without_a_model_file_says_so(qtbot: QtBot, view: ModelsView) -> None:
    downloads = view.downloads_view
    downloads.field.setText("acme/nothing")
    with qtbot.waitSignal(view.downloads.choose_failed, timeout=WAIT_MS):
        downloads.add_from_field()
    assert "acme/nothing" in downloads.message.text() and not downloads.message.isHidden()
    assert view.downloads.downloads == []


def test_the_add_field_explains_a_name_it_cannot_use(qtbot: QtBot, view: ModelsView) -> None:
    downloads = view.downloads_view
    downloads.field.setText("just-a-name")
    downloads.add_from_field()
    assert "owner/repo/FILE" in downloads.message.text() and not downloads.message.isHidden()
    assert view.downloads.downloads == []


def test_delete_refuses_the_loaded_model_and_says_the_space_freed(
    qtbot: QtBot, view: ModelsView
) -> None:
    path = target_path(models_folder(), REPO, FILE)  # where a download puts it
    path.parent.mkdir(parents=True)
    path.write_bytes(random_bytes(300_000))
    with qtbot.waitSignal(view.models_listed, timeout=WAIT_MS):
        view.refresh()
    row = next(i for i, e in enumerate(view.entries) if e.path == path)
    view.table.selectRow(row)
    assert view.delete_button.isEnabled()
    asked: list[str] = []

    def confirm(_title: str, question: str) -> bool:
        asked.append(question)
        return True

    view.confirm = confirm

    view.set_loaded(str(path))  # the chat has it loaded
    with qtbot.waitSignal(view.delete_failed, timeout=WAIT_MS):
        click(qtbot, view.delete_button)
    assert "is the model loaded in the chat, so it cannot be deleted" in view.message.text()
    assert path.exists() and asked == []

    # Another process (an engine host Cove lost track of) has the file open: refused, in words.
    view.set_loaded(None)
    view._in_use = lambda _p: [4242]
    with qtbot.waitSignal(view.delete_failed, timeout=WAIT_MS):
        click(qtbot, view.delete_button)
    assert "is loaded (process 4242)" in view.message.text() and path.exists()

    view._in_use = lambda _p: []
    with qtbot.waitSignals([view.model_deleted, view.models_listed], timeout=WAIT_MS):
        click(qtbot, view.delete_button)
    assert not path.exists() and all(e.path != path for e in view.entries)
    assert view.message.text().startswith(f"Deleted {path.stem}: ")
    assert "KiB freed." in view.message.text()


def test_a_partial_download_is_listed_and_discarded(
    qtbot: QtBot, view: ModelsView, hub: FakeHub
) -> None:
    hub.state.hold_from = PART * 2
    manager = make_manager(hub)()  # an earlier run of Cove, closed mid-download
    try:
        download = manager.enqueue(DownloadRequest(REPO, FILE))
        qtbot.waitUntil(lambda: download.progress().done_bytes >= PART * 2, timeout=WAIT_MS)
        download.pause()
        hub.state.release.set()
        assert download.wait(WAIT_MS / 1000).status == "paused"
    finally:
        manager.close()
    with qtbot.waitSignal(view.models_listed, timeout=WAIT_MS):
        view.refresh()
    assert [f"{p.repo}/{p.file}" for p in view.partial_list] == [f"{REPO}/{FILE}"]
    assert not view.partials.isHidden()
    fetched = view.partials.item(0, 1)
    assert fetched is not None and "of 2.0 MiB" in fetched.text()

    discard = view.partials.cellWidget(0, 2).findChildren(type(view.delete_button))[1]
    assert discard.text() == "Discard"
    with qtbot.waitSignal(view.models_listed, timeout=WAIT_MS):
        click(qtbot, discard)
    assert view.partial_list == [] and view.partials.isHidden()
    assert list_partials(models_folder()) == []
    assert view.message.text().startswith(f"Discarded the partial download of {REPO}/{FILE}")


def test_progress_is_coalesced_but_every_change_of_status_goes_through(
    qtbot: QtBot, theme: ThemeManager
) -> None:
    from app.models.download_controller import DownloadController
    from engine.hub.download import DownloadProgress

    controller = DownloadController(interval_s=3600.0)
    seen: list[str] = []
    controller._ticked.disconnect()
    controller._ticked.connect(lambda _d, p: seen.append(p.status))
    listen = controller._listener(object())  # type: ignore[arg-type]
    for status in ("resolving", "downloading"):
        for done in range(100):
            listen(DownloadProgress("x", status, done_bytes=done))
    listen(DownloadProgress("x", "done"))
    assert seen == ["resolving", "downloading", "done"]


def test_the_installed_tab_marks_a_vision_model_and_lists_no_projector(
    qtbot: QtBot, view: ModelsView
) -> None:
    from tests.engine.vision_files import write_projector, write_text_model

    folder = models_folder() / "acme__tiny-vision-GGUF"
    model = write_text_model(folder / "tiny-vision-Q4_K_M.gguf")
    projector = write_projector(folder / "mmproj-tiny-vision-f16.gguf")
    with qtbot.waitSignal(view.models_listed, timeout=WAIT_MS):
        view.refresh()

    def cell(row: int, col: int) -> str:
        item = view.table.item(row, col)
        return item.text() if item is not None else ""

    rows = {cell(r, 0): r for r in range(view.table.rowCount())}
    assert projector.stem not in rows
    row = rows[model.stem]
    assert cell(row, 1).endswith("· Vision")
    view.table.selectRow(row)
    assert f"reads images with {projector.name}" in view.details.text()


def test_the_installed_tab_shows_each_models_speed_predicted_then_measured(
    qtbot: QtBot, view: ModelsView, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The starter's speed on a laptop's CPU: predicted from its header until it has run here,
    then as measured. The plans come from the planner the engine host runs, here in-process."""
    from PySide6.QtGui import QColor

    from app.models.installed_tab import SPEED_COLUMN
    from engine.backends.loader import plan_model
    from engine.formats.gguf import read_gguf
    from engine.library.names import starter_path
    from engine.speed.calibrate import Observation
    from engine.speed.facts import facts_for
    from engine.speed.store import SpeedStore
    from tests.app.conftest import with_laptop_speed, without_speed
    from tests.support.machines import cpu_only_8gb

    def plan(model: str, done: Callable[[Any], None], failed: Callable[[Any], None]) -> None:
        try:
            done(plan_model(model)[2])
        except Exception as exc:
            failed(exc)

    monkeypatch.setattr(view, "_plan", plan)

    def speed_cell() -> str:
        row = next(r for r, e in enumerate(view.entries) if e.id == "starter")
        item = view.table.item(row, SPEED_COLUMN)
        return item.text() if item is not None else ""

    # No speed profile: no speeds.
    view.set_report(without_speed(cpu_only_8gb()))
    with qtbot.waitSignal(view.verdicts_ready, timeout=WAIT_MS):
        view.refresh()
    assert speed_cell() == "" and view.speeds == {}

    report = with_laptop_speed(cpu_only_8gb())
    with qtbot.waitSignal(view.speeds_ready, timeout=WAIT_MS):
        view.set_report(report)
    assert re.fullmatch(r"about \d+(\.\d)? tokens/s \(predicted\)", speed_cell()), speed_cell()
    view.table.selectRow(0)
    assert "Replies at about " in view.details.text()
    row = next(r for r, e in enumerate(view.entries) if e.id == "starter")
    item = view.table.item(row, SPEED_COLUMN)
    assert item is not None and "20 GB/s" in item.toolTip()
    # Below the speed the user asked for: in the warning colour.
    view.set_comfortable(10_000.0)
    item = view.table.item(row, SPEED_COLUMN)
    assert item is not None and item.foreground().color() == QColor(view.colors.warning_text)

    # Once it has run here, the measured speed.
    starter = starter_path()
    facts = facts_for(read_gguf(starter))
    assert facts is not None
    measured = Observation("starter", "llama.cpp", "cpu", facts, 300.0, 200.0, 64.0, 68.0)
    SpeedStore().record_measured(report, starter, measured)
    with qtbot.waitSignal(view.speeds_ready, timeout=WAIT_MS):
        view.refresh()
    assert speed_cell() == "68 tokens/s (measured here)"


def test_without_a_4_bit_build_the_largest_file_that_fits_is_chosen(hub: FakeHub) -> None:
    from app.models.download_controller import choose_file
    from engine.hub.api import Hub
    from tests.support.machines import cpu_only_8gb

    repo = "acme/other-GGUF"
    hub.add(repo, "other.Q2_K.gguf", random_bytes(1000))
    hub.add(repo, "other.Q8_0.gguf", random_bytes(3000))
    client = Hub(HubConfig(endpoint=hub.endpoint, read_timeout_s=5.0, connect_timeout_s=2))
    try:
        assert choose_file(client, repo, cpu_only_8gb()).file == "other.Q8_0.gguf"
        assert choose_file(client, repo, None).file == "other.Q2_K.gguf"  # not known yet
    finally:
        client.close()
