"""The history's care in the window: a backup at start, Settings › Data, a repaired history said
in words, and a reply that streams while the disk fills."""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from PySide6.QtWidgets import QMessageBox

from tests.app.conftest import QUICK_MS, REPLY_TIMEOUT_MS, WindowFactory, type_and_send
from tests.support.history_files import integrity, overwrite_middle, write_chats

if TYPE_CHECKING:
    from pytestqt.qtbot import QtBot


def _history(data_dir: Path, chats: int, *, backup: bool) -> None:
    from engine.store import Store

    with Store() as store:
        write_chats(store, chats)
        store.set_setting("welcomed", True)
        if backup:
            store.backup("daily")


def test_a_history_without_a_recent_backup_is_backed_up_at_start(
    qtbot: QtBot, make_window: WindowFactory, data_dir: Path
) -> None:
    _history(data_dir, 3, backup=False)
    window = make_window(with_engine=False)
    store = window.controller.store
    assert store is not None
    qtbot.waitUntil(lambda: len(store.backups.taken()) == 1, timeout=QUICK_MS)
    (backup,) = store.backups.taken()
    assert backup.reason == "daily" and backup.conversations == 3


def test_a_repaired_history_is_said_in_the_window_with_every_chat_listed(
    qtbot: QtBot, make_window: WindowFactory, data_dir: Path
) -> None:
    _history(data_dir, 30, backup=True)
    damaged = overwrite_middle(data_dir / "cove.sqlite3")
    window = make_window(with_engine=False)
    banner = window.history_care.banner
    qtbot.waitUntil(banner.isVisible, timeout=QUICK_MS)
    words = banner.message.text()
    assert "rebuilt it from the backup of" in words and "30 chats" in words
    qtbot.waitUntil(lambda: len(window.sidebar.conversation_items()) == 30, timeout=QUICK_MS)
    (kept,) = (data_dir / "damaged").iterdir()
    assert (kept / "cove.sqlite3").read_bytes() == damaged
    assert integrity(data_dir / "cove.sqlite3") == "ok"
    banner.dismiss_button.click()
    assert not banner.isVisible()


def test_settings_data_backs_up_lists_and_restores(
    qtbot: QtBot, make_window: WindowFactory, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from app.settings.data import DataSection

    _history(data_dir, 2, backup=True)
    window = make_window(with_engine=False)
    section = window.settings.open("data")
    assert isinstance(section, DataSection)
    qtbot.waitUntil(lambda: section.list.count() == 1, timeout=QUICK_MS)
    store = window.controller.store
    assert store is not None
    write_chats(store, 1, start=2)
    section.backup_button.click()
    qtbot.waitUntil(lambda: section.list.count() == 2, timeout=QUICK_MS)
    assert "Backed up 3 chats" in section.status.text()
    # Back to the backup with two chats; the sidebar follows.
    section.list.setCurrentRow(1)
    monkeypatch.setattr(QMessageBox, "question", lambda *_a, **_k: QMessageBox.StandardButton.Yes)
    section.restore_button.click()
    qtbot.waitUntil(lambda: "Restored" in section.status.text(), timeout=QUICK_MS)
    qtbot.waitUntil(lambda: len(window.sidebar.conversation_items()) == 2, timeout=QUICK_MS)
    qtbot.waitUntil(lambda: section.list.count() == 3, timeout=QUICK_MS)  # and the one before
    section.check_button.click()
    qtbot.waitUntil(lambda: "whole" in section.status.text(), timeout=QUICK_MS)


# -- a full disk -------------------------------------------------------------------------------


@contextlib.contextmanager
def small_disk(folder: Path, size: str = "4m") -> Iterator[bool]:
    """``folder`` on a small disk of its own (a tmpfs) where this machine lets the tests mount one;
    yields whether it did."""
    folder.mkdir(parents=True, exist_ok=True)
    mounted = (
        os.geteuid() == 0
        and subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)],
            capture_output=True,
        ).returncode
        == 0
    )
    try:
        yield mounted
    finally:
        if mounted:
            subprocess.run(["umount", "-l", str(folder)], capture_output=True)


def fill(folder: Path) -> Path:
    """Write until the disk says it is full; the file that filled it."""
    filler = folder / "filler.bin"
    block = b"\0" * 65536
    with filler.open("wb") as out:
        try:
            while True:
                out.write(block)
                out.flush()
        except OSError:
            pass
    with contextlib.suppress(OSError), filler.open("ab") as out:  # the last bytes that fit
        while True:
            out.write(b"\0" * 512)
            out.flush()
    return filler


@pytest.mark.slow
def test_a_reply_streaming_while_the_disk_fills_stays_on_screen_and_is_saved_later(
    qtbot: QtBot,
    make_window: WindowFactory,
    data_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from engine.errors import HistoryDiskFull
    from engine.store import ChatSettings, Store

    with small_disk(data_dir) as mounted:
        window = make_window()
        window.controller.draft_settings = ChatSettings(temperature=0.0, max_tokens=120)
        notices: list[str] = []
        window.controller.notice.connect(notices.append)
        store = window.controller.store
        assert store is not None
        full = {"on": False}
        if not mounted:  # a write error injected where SQLite's would come from
            real_update, real_finish = store.update_message_content, store.finish_message

            def update(*args: object) -> bool:
                if full["on"]:
                    raise HistoryDiskFull("database or disk is full")
                return real_update(*args)  # type: ignore[arg-type]

            def finish(*args: object) -> object:
                if full["on"]:
                    raise HistoryDiskFull("database or disk is full")
                return real_finish(*args)  # type: ignore[arg-type]

            monkeypatch.setattr(store, "update_message_content", update)
            monkeypatch.setattr(store, "finish_message", finish)
        filler: Path | None = None
        with qtbot.waitSignal(window.controller.reply_finished, timeout=REPLY_TIMEOUT_MS) as done:
            type_and_send(qtbot, window, "Tell me about lighthouses.")
            qtbot.waitUntil(lambda: bool(window.view.messages[-1].text), timeout=REPLY_TIMEOUT_MS)
            full["on"] = True
            if mounted:
                filler = fill(data_dir)
        outcome = done.args[0]
        reply = window.view.messages[-1]
        assert outcome.error is None and reply.status in ("complete", "interrupted")
        assert reply.text and outcome.message.content == reply.text
        assert any("disk is full" in n for n in notices)
        assert reply.badge.text() == "Not saved yet" and reply.badge.isVisibleTo(window)
        # Room again: the waiting reply is saved, whole, and the person told.
        full["on"] = False
        if filler is not None:
            filler.unlink()
        qtbot.waitUntil(lambda: any("room on the disk" in n for n in notices), timeout=QUICK_MS)
        assert not (reply.badge.isVisibleTo(window) and reply.badge.text() == "Not saved yet")
        with Store() as reader:
            saved = reader.get_message(outcome.message.id)
        assert saved is not None and saved.content == reply.text
        assert saved.status == reply.status
        assert integrity(data_dir / "cove.sqlite3") == "ok"
        window.close()


def test_settings_data_exports_everything_and_an_import_twice_adds_nothing(
    qtbot: QtBot,
    make_window: WindowFactory,
    data_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from PySide6.QtWidgets import QFileDialog

    from app.settings.data import DataSection

    _history(data_dir, 4, backup=False)
    window = make_window(with_engine=False)
    section = window.settings.open("data")
    assert isinstance(section, DataSection)
    archive = tmp_path / "moving" / "Cove-export.zip"
    archive.parent.mkdir()
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *_a, **_k: (str(archive), ""))
    section.export_button.click()
    qtbot.waitUntil(lambda: "Exported 4 chats" in section.status.text(), timeout=QUICK_MS)
    assert archive.is_file()
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *_a, **_k: (str(archive), ""))
    section.import_button.click()
    qtbot.waitUntil(
        lambda: "…" not in section.status.text() and "Exported" not in section.status.text(),
        timeout=QUICK_MS,
    )
    assert "Imported 0 new chats" in section.status.text(), section.status.text()
    assert len(window.sidebar.conversation_items()) == 4
    store = window.controller.store
    assert store is not None
    assert "before-import" in {b.reason for b in store.backups.taken()}
