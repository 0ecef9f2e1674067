"""A damaged chat history through the real window, from outside: the window opens with every
chat listed, says in words what was repaired and from when, the history passes SQLite's integrity
check, and the damaged file lies aside, whole.

Driven by tests/e2e/atspi_repair.py in the system's Python; skipped where the machine has no X
server, D-Bus session or AT-SPI, as tests/e2e/test_accessibility.py is.
"""

from __future__ import annotations

import os
import sqlite3
import sys
from pathlib import Path

import pytest

from tests.e2e.run_driver import drive, launcher

DRIVER = Path(__file__).with_name("atspi_repair.py")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="AT-SPI is Linux's"),
]


def test_a_damaged_history_opens_whole_and_the_window_says_what_was_repaired(
    tmp_path: Path, starter: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from engine.store import Store
    from tests.support.history_files import write_chats

    launcher()  # skips before any work where the window cannot be driven
    home = tmp_path / "home"
    data = home / "data"
    data.mkdir(parents=True)
    monkeypatch.setenv("COVE_DATA_DIR", str(data))
    with Store() as store:
        write_chats(store, 30)
        store.set_setting("welcomed", True)
    env = {**os.environ, "HOME": str(home), "COVE_DATA_DIR": str(data)}
    report = drive(DRIVER, tmp_path, env)
    assert len(report["backups after the first start"]) == 1
    assert report["banner"] == "Your chat history was repaired"
    words = report["what was repaired"]
    assert "rebuilt it from the backup of" in words and "30 chats are here" in words
    assert report["chats listed"] == 30
    (aside,) = report["damaged folder"]
    kept = data / "damaged" / aside / "cove.sqlite3"
    assert kept.stat().st_size == report["damaged size"]
    conn = sqlite3.connect(data / "cove.sqlite3")
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert conn.execute("SELECT count(*) FROM conversations").fetchone()[0] == 30
    finally:
        conn.close()
