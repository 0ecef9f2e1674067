"""The built bundle (make bundle), as a user runs it: every native library its processes load at
run time is inside it or is part of the base system; its self-test replies from a fresh home;
its installer adds it to the desktop's menu and its uninstaller takes it away, keeping the data.

The bundle takes minutes to build, so these run only where one is built (dist/cove, or the
folder COVE_BUNDLE names); `make bundle && make bundle-test` and `pytest -m bundle` run them.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BUNDLE = Path(os.environ.get("COVE_BUNDLE") or ROOT / "dist" / "cove")
WAIT_S = 600  # a guard against a hang, not a measurement

pytestmark = [
    pytest.mark.bundle,
    pytest.mark.skipif(
        not (BUNDLE / "cove").is_file(), reason=f"no bundle at {BUNDLE}: run make bundle"
    ),
]

# What a Linux desktop provides and a bundle must not carry: the C library and its loader (they
# must match the kernel's userland), the graphics stack (the GPU driver's own OpenGL/EGL), the
# display server's client libraries, fonts, D-Bus and the session's GLib.
BASE_SYSTEM = re.compile(
    r"/(ld-linux[^/]*|libc|libm|libdl|libpthread|librt|libresolv|libutil|libnss_[^/]*|libanl|"
    r"libGL[^/]*|libEGL[^/]*|libGLX[^/]*|libGLdispatch|libOpenGL|libgbm|libdrm[^/]*|"
    r"libX[^/]*|libxcb[^/]*|libxkbcommon[^/]*|libwayland[^/]*|libfontconfig|libfreetype|"
    r"libexpat|libuuid|libbsd|libmd|libdbus-1|libsystemd|libglib-2\.0|libgthread-2\.0|"
    r"libgobject-2\.0|libgio-2\.0|libgmodule-2\.0|libpcre2?[^/]*|libffi|libselinux|libmount|"
    r"libblkid|libcap|libgcrypt|libgpg-error|liblzma|libzstd|liblz4|libz|libbz2|libpng16|"
    r"libbrotli[^/]*|libharfbuzz|libgraphite2|libgcc_s|libstdc\+\+)[.-][^/]*$"
)


def run_bundle(args: list[str], home: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    home.mkdir(parents=True, exist_ok=True)
    env = {
        "HOME": str(home),
        "PATH": "/usr/bin:/bin",
        "QT_QPA_PLATFORM": "offscreen",
        "LANG": "C.UTF-8",
        **extra,
    }
    return subprocess.run(
        [str(BUNDLE / "cove"), *args], env=env, capture_output=True, text=True, timeout=WAIT_S
    )


def test_every_native_library_loaded_is_inside_the_bundle_or_the_base_system(
    tmp_path: Path,
) -> None:
    """The dynamic loader itself lists what the window, the engine host and a document index
    load, including what they open late (llama.cpp's backends, ONNX Runtime's providers, Qt's
    plugins, PDFium)."""
    from tests.documents.test_readers import write_pdf

    home = tmp_path / "home"
    traces = tmp_path / "traces"
    traces.mkdir()
    done = run_bundle(
        ["--self-test", "--timeout", "300"],
        home,
        LD_DEBUG="files",
        LD_DEBUG_OUTPUT=str(traces / "gui"),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    pdf = tmp_path / "notes.pdf"
    write_pdf(pdf, [["The harbour office opens at nine."]])
    indexed = run_bundle(
        ["index", str(pdf), "--collection", "notes"],
        home,
        LD_DEBUG="files",
        LD_DEBUG_OUTPUT=str(traces / "index"),
    )
    assert indexed.returncode == 0, indexed.stdout + indexed.stderr
    # The user's data goes where the platform keeps it, not into the bundle.
    assert (home / ".local" / "share" / "Cove" / "documents.sqlite3").is_file()
    loaded: set[str] = set()
    logs = list(traces.iterdir())  # one file per process
    for log in logs:
        for line in log.read_text(errors="replace").splitlines():
            match = re.search(r"calling init: (\S+)", line)
            if match:
                loaded.add(os.path.realpath(match.group(1)))
    assert len(logs) >= 3  # the window, its engine host, and the index command
    inside = {p for p in loaded if p.startswith(str(BUNDLE.resolve()))}
    outside = sorted(p for p in loaded - inside if not BASE_SYSTEM.search(p))
    assert not outside, "loaded from outside the bundle:\n" + "\n".join(outside)
    names = " ".join(Path(p).name for p in inside)
    for needed in ("libllama", "libonnxruntime", "libQt6Widgets", "libpdfium"):
        assert needed in names, f"{needed} was not loaded from the bundle"


def test_the_self_test_replies_from_a_fresh_home(tmp_path: Path) -> None:
    done = run_bundle(["--self-test", "--timeout", "300"], tmp_path / "home")
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["ok"] is True and report["reply_chars"] > 0
    assert "Paris" in report["reply"]


def test_the_installer_adds_cove_to_the_menu_and_the_uninstaller_keeps_the_data(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin"}
    subprocess.run(["bash", str(BUNDLE / "install.sh")], env=env, check=True, timeout=WAIT_S)
    entry = (home / ".local/share/applications/cove.desktop").read_text()
    assert f"Exec={home}/.local/opt/cove/cove" in entry and "Icon=cove" in entry
    assert (home / ".local/bin/cove").resolve() == (home / ".local/opt/cove/cove").resolve()
    assert (home / ".local/share/icons/hicolor/scalable/apps/cove.svg").is_file()
    data = home / ".local/share/Cove"
    data.mkdir(parents=True)
    (data / "keep.txt").write_text("a user's data")
    subprocess.run(["bash", str(BUNDLE / "uninstall.sh")], env=env, check=True, timeout=WAIT_S)
    assert not (home / ".local/opt/cove").exists()
    assert not (home / ".local/share/applications/cove.desktop").exists()
    assert (data / "keep.txt").read_text() == "a user's data"
