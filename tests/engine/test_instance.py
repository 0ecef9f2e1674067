"""One Cove per data folder (engine/instance.py): the window's lock held by another process stops a
second window and names that process; a killed holder leaves nothing behind; data folders are
apart; idle measuring is one host's at a time; two processes updating tuning.json lose nothing.

Other processes are real ones that say when they hold a lock (a line on stdout) and wait on
stdin for the word to go on: the tests wait on those signals, never on the clock."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.host.idle.background import ANOTHER_COVE_WORDS, Background, IdleGate
from engine.instance import (
    IdleWorkLock,
    WindowLock,
    idle_work_lock,
    running_window,
    socket_name,
    update_lock,
)
from engine.launch import child_env
from engine.tuning.idle import QuietWatch
from engine.tuning.store import TuningStore
from tests.scripted_load import ReadingClock, ScriptedLoad

ROOT = Path(__file__).resolve().parents[2]

HOLD_WINDOW = """
import sys
from pathlib import Path
from engine.instance import WindowLock
lock = WindowLock.acquire(Path(sys.argv[1]))
print("held" if lock is not None else "refused", flush=True)
sys.stdin.readline()
"""

UPDATE_TUNING = """
import sys
from pathlib import Path
from engine.tuning.store import TuningStore
store = TuningStore(Path(sys.argv[1]))
who, count = sys.argv[2], int(sys.argv[3])
print("ready", flush=True)
sys.stdin.readline()
for i in range(count):
    store.set_override(Path(f"/models/{who}-{i}.gguf"), f"way {i}")
print("done", flush=True)
"""


def python(code: str, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", code, *args],
        cwd=ROOT,
        env=child_env(),  # ends with the test run, however that ends
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )


def said(process: subprocess.Popen[str]) -> str:
    assert process.stdout is not None
    return process.stdout.readline().strip()


@pytest.fixture
def holder(tmp_path: Path) -> Iterator[subprocess.Popen[str]]:
    """Another process that holds the window lock of ``tmp_path / "data"``."""
    process = python(HOLD_WINDOW, str(tmp_path / "data"))
    try:
        assert said(process) == "held"
        yield process
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(60)


def test_a_window_in_another_process_holds_the_folder(
    holder: subprocess.Popen[str], tmp_path: Path
) -> None:
    folder = tmp_path / "data"
    assert WindowLock.acquire(folder) is None
    window = running_window(folder)
    assert window is not None
    assert window.pid == holder.pid
    assert window.started is not None
    assert window.socket_name == socket_name(folder)


def test_a_killed_window_leaves_no_lock_behind(
    holder: subprocess.Popen[str], tmp_path: Path
) -> None:
    folder = tmp_path / "data"
    holder.send_signal(signal.SIGKILL)
    holder.wait(60)
    assert running_window(folder) is None
    lock = WindowLock.acquire(folder)
    assert lock is not None
    try:
        window = running_window(folder)
        # This process holds it now, and says so in place of the killed one.
        assert window is not None and window.pid == os.getpid()
    finally:
        lock.release()
    assert running_window(folder) is None


def test_a_closed_window_gives_the_folder_back(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    assert running_window(folder) is None
    assert not folder.exists(), "looking must not make the data folder"
    with WindowLock.acquire(folder) as lock:  # type: ignore[union-attr]
        assert lock.held
        assert WindowLock.acquire(folder) is None  # a second start in this process too
    assert not lock.held
    assert running_window(folder) is None
    again = WindowLock.acquire(folder)
    assert again is not None
    again.release()


def test_two_data_folders_each_have_their_window(tmp_path: Path) -> None:
    first = WindowLock.acquire(tmp_path / "one")
    second = WindowLock.acquire(tmp_path / "two")
    try:
        assert first is not None and second is not None
        assert first.socket_name != second.socket_name
    finally:
        for lock in (first, second):
            if lock is not None:
                lock.release()


def test_the_data_folder_is_the_one_cove_uses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COVE_DATA_DIR", str(tmp_path / "mine"))
    lock = WindowLock.acquire()
    assert lock is not None
    try:
        assert (tmp_path / "mine" / "cove.lock").is_file()
        assert running_window(tmp_path / "mine") is not None
    finally:
        lock.release()


def test_idle_work_is_one_holders_at_a_time(tmp_path: Path) -> None:
    mine, theirs = idle_work_lock(tmp_path), IdleWorkLock(tmp_path)
    assert not mine.taken_by_another()
    assert mine.try_acquire()
    assert mine.try_acquire()  # again: still this host's
    assert not theirs.try_acquire()
    assert theirs.taken_by_another()
    assert not mine.taken_by_another()
    mine.release()
    assert not theirs.taken_by_another()
    assert theirs.try_acquire()
    assert mine.taken_by_another()
    theirs.release()


def test_a_host_waits_while_another_on_its_folder_measures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COVE_DATA_DIR", str(tmp_path))  # background measuring on: nothing kept
    load = ScriptedLoad()
    gate = IdleGate(settle_s=0.0)
    watch = QuietWatch(load, clock=ReadingClock(load), run_poll_s=0.01)
    background = Background(gate, watch=watch, folder_lock=IdleWorkLock(tmp_path))
    background.quiet_for_s = 0.0
    other = IdleWorkLock(tmp_path)  # the window's engine, say
    assert other.try_acquire()
    work = background.work("Measuring the ways to run a model", None)
    assert work._blocked() == ("waiting", ANOTHER_COVE_WORDS)
    other.release()
    assert work._blocked() is None
    stop = work.wait()
    assert background.folder_lock.held  # held while the run runs
    assert other.taken_by_another()
    work.done(stop)
    assert not background.folder_lock.held  # and never while no work runs
    assert other.try_acquire()
    other.release()


def test_two_processes_updating_tuning_lose_nothing(tmp_path: Path) -> None:
    path = tmp_path / "data" / "tuning.json"
    count = 150
    writers = [python(UPDATE_TUNING, str(path), who, str(count)) for who in ("a", "b")]
    try:
        for writer in writers:
            assert said(writer) == "ready"
        for writer in writers:  # both go at once
            assert writer.stdin is not None
            writer.stdin.write("go\n")
            writer.stdin.flush()
        for writer in writers:
            assert said(writer) == "done"
            assert writer.wait(60) == 0
    finally:
        for writer in writers:
            if writer.poll() is None:
                writer.kill()
                writer.wait(60)
    overrides = TuningStore(path).overrides()
    wanted = {f"/models/{who}-{i}.gguf" for who in ("a", "b") for i in range(count)}
    assert wanted <= {str(Path(k)) for k in overrides}, sorted(wanted - set(overrides))[:5]


def test_an_update_waits_for_another_process(tmp_path: Path) -> None:
    path = tmp_path / "speed.json"
    with update_lock(path):
        assert not _free(path)
    assert _free(path)


def _free(path: Path) -> bool:
    """Whether another process could take ``path``'s update lock now."""
    code = (
        "import sys; from filelock import FileLock, Timeout\n"
        "try:\n    FileLock(sys.argv[1]).acquire(timeout=0)\nexcept Timeout:\n"
        "    print('held')\nelse:\n    print('free')\n"
    )
    process = python(code, str(path.with_name(f".{path.name}.lock")))
    answer = said(process)
    process.wait(60)
    return answer == "free"


def test_the_terminal_says_when_the_window_holds_its_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from engine.cli import _beside_window

    monkeypatch.setenv("COVE_DATA_DIR", str(tmp_path))
    assert not _beside_window(None)
    lock = WindowLock.acquire()
    assert lock is not None
    try:
        assert _beside_window(None)
        said = capsys.readouterr().err
        assert f"window is open on this data folder (pid {os.getpid()})" in said
        assert "idle measuring is left to it" in said
        # The window's own server (its sharing switch) is the window's: nothing to say.
        assert not _beside_window(os.getpid())
        assert capsys.readouterr().err == ""
    finally:
        lock.release()
