"""One window per data folder (app/shell/single_instance.py): a second ``cove`` on the folder of an
open window hands that window its file and ends; on another folder it is a start of its own; a
window that does not answer is named; the measuring runs neither hand over nor pass for a window.

The first window lives in this process (a real MainWindow, holding the folder's lock and
listening as a started Cove does); the second start is a real ``python -m app`` process. The tests
wait for the window's signal and the process's end, never for a stretch of time."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from app.shell.single_instance import InstanceServer, Request, answer, claim
from engine.instance import WindowLock, socket_name
from engine.launch import child_env
from tests.app.conftest import QUICK_MS, WindowFactory

if TYPE_CHECKING:
    from pytestqt.qtbot import QtBot

ROOT = Path(__file__).resolve().parents[3]
# A process's start (Python, Qt) on a machine whose cores are busy with other work.
START_MS = 120_000


def second_start(data: Path, *args: str) -> subprocess.Popen[str]:
    env = dict(os.environ, COVE_DATA_DIR=str(data), QT_QPA_PLATFORM="offscreen")
    return subprocess.Popen(
        [sys.executable, "-m", "app", *args],
        cwd=ROOT,
        env=child_env(env),  # ends with the test run, however that ends
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def ended(qtbot: QtBot, process: subprocess.Popen[str]) -> tuple[int, str, str]:
    """The process's exit code and output, the window's event loop running meanwhile."""
    qtbot.waitUntil(lambda: process.poll() is not None, timeout=START_MS)
    out, err = process.communicate()
    return process.returncode, out, err


def picture(folder: Path) -> Path:
    from PySide6.QtGui import QColor, QImage

    image = QImage(64, 48, QImage.Format.Format_RGB32)
    image.fill(QColor("teal"))
    path = folder / "holiday photo.png"
    assert image.save(str(path))
    return path


@pytest.fixture
def listening(data_dir: Path) -> Iterator[InstanceServer]:
    """This process holds the data folder and listens, as a started window does."""
    lock = WindowLock.acquire()
    assert lock is not None
    server = InstanceServer(lock)
    assert server.listen()
    yield server
    server.close()


def test_a_second_start_brings_the_window_forward_with_its_file(
    qtbot: QtBot,
    make_window: WindowFactory,
    listening: InstanceServer,
    data_dir: Path,
    tmp_path: Path,
) -> None:
    window = make_window(with_engine=False)
    listening.request_received.connect(lambda request: answer(window, request))
    photo = picture(tmp_path)
    window.showMinimized()
    # As a desktop's "Open with Cove" runs it: the file's full path, first.
    process = second_start(data_dir, str(photo), "--language", "en")
    with qtbot.waitSignal(listening.request_received, timeout=START_MS) as received:
        pass
    assert received.args == [Request((str(photo.resolve()),))]
    code, _out, err = ended(qtbot, process)
    assert code == 0, err
    assert "Cove is already open on this data folder; it was brought to the front." in err
    assert not window.isMinimized()
    qtbot.waitUntil(lambda: len(window.composer.attachments) == 1, timeout=QUICK_MS)
    assert window.composer.attachments[0].name == photo.name


def test_a_start_on_another_data_folder_is_its_own(
    qtbot: QtBot, listening: InstanceServer, data_dir: Path, tmp_path: Path
) -> None:
    other = tmp_path / "other data"
    assert socket_name(other) != listening.name
    got: list[Request] = []
    listening.request_received.connect(got.append)
    # The other folder's window, in this test another listener: the start goes to it alone.
    other_lock = WindowLock.acquire(other)
    assert other_lock is not None
    theirs = InstanceServer(other_lock)
    assert theirs.listen()
    try:
        process = second_start(other, str(picture(tmp_path)), "--language", "en")
        with qtbot.waitSignal(theirs.request_received, timeout=START_MS):
            pass
        code, _out, err = ended(qtbot, process)
        assert code == 0, err
    finally:
        theirs.close()
    assert got == []


def test_a_data_folder_of_its_own_opens_a_window(
    qtbot: QtBot, listening: InstanceServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COVE_DATA_DIR", str(tmp_path / "other data"))
    held = claim([])
    assert isinstance(held, InstanceServer)
    try:
        assert held.lock is not None and held.lock.held
        assert held.name != listening.name
    finally:
        held.close()


def test_a_window_that_does_not_answer_is_named(qtbot: QtBot, data_dir: Path) -> None:
    lock = WindowLock.acquire()  # held, and nobody listening: a window still starting, or hung
    assert lock is not None
    try:
        process = second_start(data_dir, "--language", "en")
        code, _out, err = ended(qtbot, process)
    finally:
        lock.release()
    assert code == 0, err
    assert f"(process {os.getpid()})" in err and "did not answer" in err


def test_first_paint_on_a_held_folder_reports_it(
    qtbot: QtBot, listening: InstanceServer, data_dir: Path
) -> None:
    got: list[Request] = []
    listening.request_received.connect(got.append)
    process = second_start(data_dir, "--exit-after-paint", "--language", "en")
    code, out, _err = ended(qtbot, process)
    report = json.loads(out.strip().splitlines()[-1])
    assert code == 1 and report["ok"] is False
    assert "already open on this data folder" in report["error"]
    assert got == []
