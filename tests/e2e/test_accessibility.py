"""Cove's window through the accessibility tree a screen reader reads (AT-SPI, under a virtual X
server): a person who cannot see the screen sends, regenerates, flips versions, edits, switches
the chat's model, deletes and undoes, branches, restarts, and finds everything as it was.

The driver (tests/e2e/atspi_driver.py) runs in the system's Python, outside Cove, and knows the
window only by the names people hear. Skipped where the machine has no X server, D-Bus session
or AT-SPI (``.ci/run`` installs them where it can).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from tests.e2e.run_driver import drive, launcher

DRIVER = Path(__file__).with_name("atspi_driver.py")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="AT-SPI is Linux's"),
]


def test_a_screen_reader_user_keeps_every_version(tmp_path: Path, starter: Path) -> None:
    from tests.support.installed_models import install_tiny_model

    launcher()  # skips before any work where the window cannot be driven
    install_tiny_model(tmp_path / "models")
    home = tmp_path / "home"
    (home / "data").mkdir(parents=True)
    env = {
        **os.environ,
        "HOME": str(home),
        "COVE_DATA_DIR": str(home / "data"),
        "COVE_MODELS_DIR": str(tmp_path / "models"),
    }
    report = drive(DRIVER, tmp_path, env)
    # Every control showing on the chat, Models (each tab), Hardware and Documents is named for
    # what it does, and no page asks for a terminal.
    assert report["pages audited"][:2] == ["chat", "Models"]
    assert {"Hardware", "Documents"} <= set(report["pages audited"])
    assert any(page.startswith("Models › ") for page in report["pages audited"])
    assert "chat with messages" in report["pages audited"]
    assert report["a reply read aloud"].strip()  # a message's text reaches the screen reader
    assert report["unnamed"] == []
    assert report["command lines"] == []
    starter_name, other = report["starter"], report["other model"]
    assert report["combo boxes"] == ["Model", "Preset"]
    assert report["after send"] == {"versions": [], "speakers": ["You", starter_name]}
    assert report["flipped"] == ["Version 1 of 3"]
    assert report["edited"] == ["Version 2 of 2"]
    assert other != starter_name
    shown = ["You", starter_name, "You", other]
    assert report["after switch"] == {"versions": ["Version 2 of 2"], "speakers": shown}
    assert report["hidden by delete"] == shown[:3] and report["undone"] == shown
    assert report["branch"] == {
        "title": "Say a greeting. (branch)",
        "speakers": ["You", starter_name],
    }
    assert report["listed"] == ["Say a greeting.", "Say a greeting. (branch)"]
    assert report["after restart"] == {
        "versions": ["Version 2 of 2"],
        "speakers": shown,
        "model": other,
    }


def test_a_screen_reader_user_reads_settings_attaches_a_pdf_and_changes_language(
    tmp_path: Path, starter: Path
) -> None:
    from tests.engine.documents.harbour import harbour_folder

    docs = harbour_folder(tmp_path / "papers")
    home = tmp_path / "home"
    (home / "data").mkdir(parents=True)
    env = {**os.environ, "HOME": str(home), "COVE_DATA_DIR": str(home / "data")}
    report = drive(
        DRIVER.with_name("atspi_files.py"), tmp_path, env, str(docs / "harbour_guide.pdf")
    )
    sections = ["Appearance", "Engine", "MCP servers", "Saved state", "Privacy", "Data"]
    assert report["settings sections"] == sections
    assert report["pages audited"] == [f"Settings › {s}" for s in sections]
    assert report["unnamed"] == []
    assert report["command lines"] == []
    # The PDF given through the file dialog is read into the chat, and the answer cites its page.
    assert "harbour_guide.pdf" in report["file shown"] and "2 pages" in report["file shown"]
    assert "harbour_guide.pdf · page 2" in report["cited"]
    # After choosing Deutsch and restarting, the same controls speak German.
    assert report["send after restart"] == "Senden"
    assert report["attach after restart"] == ["Dateien anhängen"]
    assert report["settings after restart"] == ["Einstellungen"]
