"""The built bundle (make bundle), as a user runs it: every native library its processes load at
run time is inside it or is part of the base system; its self-test replies from a fresh home;
its installer adds it to the desktop's menu and its uninstaller takes it away, keeping the data.

The bundle takes minutes to build, so these run only where one is built (dist/cove, or the
folder COVE_BUNDLE names); `make bundle && make bundle-test` and `pytest -m bundle` run them.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
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

# The libraries a bundle may take from the system: those every Linux desktop has, one shell
# pattern a line (the build and make bundle-test read the same file).
ALLOWLIST = ROOT / "packaging" / "linux" / "system-libraries.txt"


def system_libraries() -> list[str]:
    lines = (line.split("#", 1)[0].split() for line in ALLOWLIST.read_text().splitlines())
    return [words[0] for words in lines if words]


def on_allowlist(path: str) -> bool:
    return any(fnmatch.fnmatchcase(Path(path).name, p) for p in system_libraries())


@pytest.fixture(scope="module")
def desktop() -> Iterator[dict[str, str]]:
    """A display as a desktop has one: an X server (Xvfb) and Qt's xcb plugin, which loads the
    desktop's libraries; Qt's offscreen plugin where there is no Xvfb."""
    xvfb = shutil.which("Xvfb")
    if xvfb is None:
        yield {"QT_QPA_PLATFORM": "offscreen"}
        return
    read, write = os.pipe()
    # -displayfd: the server writes its display number once it accepts clients.
    server = subprocess.Popen(
        [xvfb, "-displayfd", str(write), "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
        pass_fds=(write,),
        stderr=subprocess.DEVNULL,
    )
    os.close(write)
    with os.fdopen(read) as numbers:
        display = numbers.readline().strip()
    try:
        assert display, "Xvfb did not start"
        yield {"QT_QPA_PLATFORM": "xcb", "DISPLAY": f":{display}"}
    finally:
        server.terminate()
        server.wait(timeout=WAIT_S)


def run_bundle(
    args: list[str], home: Path, display: dict[str, str], **extra: str
) -> subprocess.CompletedProcess[str]:
    home.mkdir(parents=True, exist_ok=True)
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", **display, **extra}
    return subprocess.run(
        [str(BUNDLE / "cove"), *args], env=env, capture_output=True, text=True, timeout=WAIT_S
    )


def test_every_library_the_bundle_needs_is_inside_it_or_on_the_allowlist() -> None:
    """What the bundle's files name as their dependencies, read from the files themselves."""
    if shutil.which("objdump") is None:
        pytest.skip("no objdump here")
    files = [p for p in BUNDLE.rglob("*") if p.is_file() and not p.is_symlink()]
    elfs = [str(p) for p in files if p.read_bytes()[:4] == b"\x7fELF"]
    dumped = subprocess.run(
        ["objdump", "-p", *elfs], capture_output=True, text=True, timeout=WAIT_S
    ).stdout
    needed = set(re.findall(r"^\s*NEEDED\s+(\S+)", dumped, re.MULTILINE))
    held = {p.name for p in BUNDLE.rglob("*.so*")}
    outside = sorted(lib for lib in needed - held if not on_allowlist(lib))
    assert not outside, "needed, but neither inside the bundle nor on the allowlist: " + ", ".join(
        outside
    )
    for plugin in ("libqxcb.so", "libqwayland.so"):
        assert (BUNDLE / "_internal/PySide6/Qt/plugins/platforms" / plugin).is_file()


def test_every_native_library_loaded_is_inside_the_bundle_or_on_the_allowlist(
    tmp_path: Path, desktop: dict[str, str]
) -> None:
    """The dynamic loader itself lists what the window, the engine host and a document index
    load, including what they open late (llama.cpp's backends, ONNX Runtime's providers, Qt's
    plugins, PDFium)."""
    from tests.support.pdf_files import write_pdf

    home = tmp_path / "home"
    traces = tmp_path / "traces"
    traces.mkdir()
    done = run_bundle(
        ["--self-test", "--timeout", "300"],
        home,
        desktop,
        LD_DEBUG="files",
        LD_DEBUG_OUTPUT=str(traces / "gui"),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    pdf = tmp_path / "notes.pdf"
    write_pdf(pdf, [["The harbour office opens at nine."]])
    indexed = run_bundle(
        ["index", str(pdf), "--collection", "notes"],
        home,
        desktop,
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
                loaded.add(match.group(1))
    assert len(logs) >= 3  # the window, its engine host, and the index command
    # Inside: wherever the path leads; on the allowlist: by the name the loader asked for
    # (libxcb.so.1, not the libxcb.so.1.1.0 it links to).
    bundle = BUNDLE.resolve()
    inside = {p for p in loaded if Path(os.path.realpath(p)).is_relative_to(bundle)}
    outside = sorted(p for p in loaded - inside if not on_allowlist(p))
    assert not outside, "loaded from outside the bundle:\n" + "\n".join(outside)
    names = " ".join(Path(p).name for p in inside)
    for needed in ("libllama", "libonnxruntime", "libQt6Widgets", "libpdfium"):
        assert needed in names, f"{needed} was not loaded from the bundle"


def test_the_self_test_replies_from_a_fresh_home(tmp_path: Path, desktop: dict[str, str]) -> None:
    done = run_bundle(["--self-test", "--timeout", "300"], tmp_path / "home", desktop)
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    # A reply, whatever its words: a 135M model's greedy answer depends on the CPU's SIMD paths.
    assert report["ok"] is True and report["reply_chars"] > 0 and report["reply"].strip()


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
