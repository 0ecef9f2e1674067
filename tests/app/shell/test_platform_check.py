"""Before the window opens, Cove checks that Qt's platform plugin can load, and where the desktop
lacks a library it says which, and what to install, instead of Qt's abort."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.main import main
from app.shell import platform_check
from app.shell.platform_check import Lack, check, message, platform_candidates, problem

LDD_LACKING = """\
\tlinux-vdso.so.1 (0x00007ffc2b1f2000)
\tlibQt6XcbQpa.so.6 => /opt/PySide6/Qt/lib/libQt6XcbQpa.so.6 (0x00007f0d1a000000)
\tlibxcb-cursor.so.0 => not found
\tlibxcb-icccm.so.4 => not found
\tlibxcb.so.1 => /lib/x86_64-linux-gnu/libxcb.so.1 (0x00007f0d19e00000)
\tlibxcb-icccm.so.4 => not found
"""
LDD_FINE = "\tlibxcb.so.1 => /lib/x86_64-linux-gnu/libxcb.so.1 (0x00007f0d19e00000)\n"
EXPECTED = (
    "Cove cannot open its window: Qt's xcb platform plugin needs libraries this system lacks: "
    "libxcb-cursor.so.0, libxcb-icccm.so.4. Install them: sudo apt install libxcb-cursor0 "
    "libxcb-icccm4 (Debian/Ubuntu) or sudo dnf install xcb-util-cursor xcb-util-wm (Fedora)."
)


@pytest.fixture
def plugins(tmp_path: Path) -> Path:
    """A platform-plugins folder with stand-ins for the X11 and Wayland plugins."""
    folder = tmp_path / "platforms"
    folder.mkdir()
    for name in ("libqxcb.so", "libqwayland.so", "libqoffscreen.so"):
        (folder / name).write_bytes(b"\x7fELF")
    return folder


def fake_ldd(reports: dict[str, str]) -> platform_check.Ldd:
    return lambda library: reports[library.name]


@pytest.mark.parametrize(
    ("env", "candidates"),
    [
        ({"DISPLAY": ":0"}, ["xcb"]),
        ({"DISPLAY": ":0", "WAYLAND_DISPLAY": "wayland-0"}, ["wayland", "xcb"]),
        ({"XDG_SESSION_TYPE": "wayland"}, ["wayland", "xcb"]),
        ({"QT_QPA_PLATFORM": "offscreen", "DISPLAY": ":0"}, ["offscreen"]),
        ({"QT_QPA_PLATFORM": "wayland;xcb:nograb"}, ["wayland", "xcb"]),
    ],
)
def test_the_plugins_qt_will_try(env: dict[str, str], candidates: list[str]) -> None:
    assert platform_candidates(env) == candidates


def test_missing_libraries_are_named_with_their_packages(plugins: Path) -> None:
    env = {"DISPLAY": ":0", "QT_QPA_PLATFORM_PLUGIN_PATH": str(plugins)}
    ldd = fake_ldd({"libqxcb.so": LDD_LACKING})
    assert check(env, ldd) == [Lack("xcb", ("libxcb-cursor.so.0", "libxcb-icccm.so.4"))]
    assert problem(env, ldd) == EXPECTED


def test_a_library_not_in_the_table_is_still_named() -> None:
    text = message([Lack("xcb", ("libxcb-cursor.so.0", "libxcb-future.so.9"))])
    assert "lacks: libxcb-cursor.so.0, libxcb-future.so.9." in text
    assert "sudo apt install libxcb-cursor0 (Debian/Ubuntu)" in text
    assert text.endswith("Install the packages that provide libxcb-future.so.9.")


def test_the_window_opens_when_one_of_the_plugins_qt_tries_can_load(plugins: Path) -> None:
    env = {"WAYLAND_DISPLAY": "wayland-0", "QT_QPA_PLATFORM_PLUGIN_PATH": str(plugins)}
    lacking = "\tlibwayland-cursor.so.0 => not found\n"
    assert problem(env, fake_ldd({"libqwayland.so": lacking, "libqxcb.so": LDD_FINE})) is None
    both = problem(env, fake_ldd({"libqwayland.so": lacking, "libqxcb.so": LDD_LACKING}))
    assert both is not None
    assert "Qt's wayland platform plugin needs libraries this system lacks: " in both
    assert "libwayland-cursor.so.0; Qt's xcb platform plugin needs" in both
    assert "sudo apt install libwayland-cursor0 libxcb-cursor0 libxcb-icccm4" in both


def test_no_check_without_a_display_plugin_or_without_ldd(plugins: Path) -> None:
    def unused(library: Path) -> str:
        raise AssertionError(f"ldd was asked about {library}")

    offscreen = {"QT_QPA_PLATFORM": "offscreen", "QT_QPA_PLATFORM_PLUGIN_PATH": str(plugins)}
    assert problem(offscreen, unused) is None
    x11 = {"DISPLAY": ":0", "QT_QPA_PLATFORM_PLUGIN_PATH": str(plugins)}
    assert problem(x11, lambda _library: None) is None  # no ldd: Qt has its say


def test_the_window_is_not_opened_and_cove_exits_1(
    plugins: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DISPLAY", ":0")
    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.delenv("XDG_SESSION_TYPE", raising=False)
    monkeypatch.setenv("QT_QPA_PLATFORM_PLUGIN_PATH", str(plugins))
    monkeypatch.setattr(platform_check, "run_ldd", fake_ldd({"libqxcb.so": LDD_LACKING}))
    assert main([]) == 1
    assert capsys.readouterr().err.strip() == EXPECTED


def test_the_real_x11_plugin_is_judged_as_the_loader_judges_it() -> None:
    """On this machine, against PySide6's own plugin: the check finds missing exactly when the
    dynamic loader itself cannot load the plugin (in a child process: loading it here could
    disturb the Qt of these tests)."""
    folder = platform_check.plugins_folder({})
    assert folder is not None
    plugin = folder / "libqxcb.so"
    missing = platform_check.unresolved(plugin)
    if missing is None:
        pytest.skip("no ldd here")
    load = "import ctypes, sys; ctypes.CDLL(sys.argv[1])"
    loaded = subprocess.run(
        [sys.executable, "-c", load, str(plugin)], capture_output=True, text=True, timeout=120
    )
    if missing:
        assert loaded.returncode != 0
        assert any(lib in loaded.stderr for lib in missing), loaded.stderr
        assert problem({"DISPLAY": ":0"}) == message([Lack("xcb", tuple(missing))])
    else:
        assert loaded.returncode == 0, loaded.stderr
        assert problem({"DISPLAY": ":0"}) is None


def test_cove_says_what_to_install_instead_of_qts_abort(tmp_path: Path) -> None:
    """The real ``cove`` in a child process, on an X11 desktop whose loader (a stand-in ``ldd``
    first on the PATH) cannot find two of the plugin's libraries."""
    cove = Path(sys.executable).with_name("cove")
    command = [str(cove)] if cove.is_file() else [sys.executable, "-m", "app"]
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    ldd = bin_dir / "ldd"
    ldd.write_text("#!/bin/sh\ncat <<'EOF'\n" + LDD_LACKING + "EOF\n")
    ldd.chmod(0o755)
    env = {
        "HOME": str(tmp_path / "home"),
        "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}",
        "DISPLAY": ":99",  # no X server there: Qt must never get as far as trying
        "COVE_DATA_DIR": str(tmp_path / "data"),
        "LANG": "C.UTF-8",
    }
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stderr.strip() == EXPECTED
    assert "qt.qpa" not in done.stderr


def test_the_build_asks_for_packages_by_library() -> None:
    out = subprocess.run(
        [
            *(sys.executable, "-m", "app.shell.platform_check", "--packages", "debian"),
            *("libxcb-cursor.so.0", "libxcb-keysyms.so.1", "libxcb-xkb.so.1", "libxcb-shm.so.0"),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.split() == ["libxcb-cursor0", "libxcb-keysyms1", "libxcb-xkb1", "libxcb-shm0"]
