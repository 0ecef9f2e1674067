"""The ``cove`` entry point: the window with no arguments, the terminal CLI otherwise."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from app.main import build_gui_parser, is_gui_invocation, main

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize(
    ("argv", "gui"),
    [
        ([], True),
        (["gui"], True),
        (["--self-test"], True),
        (["--screenshot=out.png", "--self-test"], True),
        (["probe"], False),
        (["chat", "hi"], False),
        (["--help"], False),
        (["plan", "starter", "--json"], False),
    ],
)
def test_gui_or_cli(argv: list[str], gui: bool) -> None:
    assert is_gui_invocation(argv) is gui


def test_a_file_opens_the_window(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A desktop's "Open with Cove" passes the file's path; a file named like a command in the
    current folder leaves the command a command."""
    notes = tmp_path / "notes.pdf"
    notes.write_bytes(b"%PDF-1.4\n")
    (tmp_path / "chat").write_text("a file called chat")
    monkeypatch.chdir(tmp_path)
    assert is_gui_invocation([str(notes)])
    assert is_gui_invocation(["notes.pdf"])
    assert is_gui_invocation(["--language", "de"])
    assert not is_gui_invocation(["chat"])
    assert not is_gui_invocation([str(tmp_path / "missing.pdf")])
    options = build_gui_parser().parse_args(["notes.pdf", "--language", "en"])
    assert options.files == ["notes.pdf"] and options.language == "en"


def test_gui_flags_parse() -> None:
    options = build_gui_parser().parse_args(["--self-test", "--screenshot", "x.png"])
    assert options.self_test and options.screenshot == "x.png"


def test_cli_commands_are_delegated(capsys: pytest.CaptureFixture[str], starter: Path) -> None:
    assert main(["inspect", "starter", "--json"]) == 0
    assert '"architecture": "llama"' in capsys.readouterr().out


def test_importing_the_entry_point_does_not_load_qt() -> None:
    code = "import sys, app.main; print('PySide6' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "False"
