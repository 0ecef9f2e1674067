"""The Linux bundle's native libraries, for packaging/cove.spec.

PyInstaller leaves some libraries to the system on purpose (libxcb.so.1, Wayland's) and cannot
collect those the build machine lacks (it warns and builds anyway): Qt's X11 plugin then finds
neither on a desktop without them, and the window never opens. Here, after PyInstaller's
analysis:

- Qt's plugins for devices without a desktop, and GTK's theme plugin, are left out, with the
  libraries only they need;
- every library a collected one needs is inside the bundle, or on the allowlist of libraries
  every desktop has (system-libraries.txt), or is collected from the build machine here;
- a library that is none of these, or a "Library not found" from PyInstaller about a library
  the bundle keeps, fails the build.
"""

from __future__ import annotations

import fnmatch
import functools
import logging
import re
import subprocess
from collections.abc import Iterable
from pathlib import Path, PurePosixPath

from PyInstaller.depend.bindepend import resolve_library_path

ALLOWLIST = Path(__file__).with_name("system-libraries.txt")
Entry = tuple[str, str, str]  # PyInstaller's (name in the bundle, source, type)

# What a desktop app never uses: Qt's platforms for machines with no desktop (framebuffer, a
# kiosk's EGL, VNC, a Vulkan display) and their helpers, which need the GPU's kernel interface
# (libdrm) from the system; and GTK's theme plugin, which works only with the desktop's own
# GTK 3 (a bundle cannot carry one); without it Qt draws its own dialogs, and the desktop's
# colour scheme still reaches Cove through the desktop portal.
UNUSED = (
    "PySide6/Qt/plugins/platforms/libqeglfs.so",
    "PySide6/Qt/plugins/platforms/libqlinuxfb.so",
    "PySide6/Qt/plugins/platforms/libqminimalegl.so",
    "PySide6/Qt/plugins/platforms/libqvnc.so",
    "PySide6/Qt/plugins/platforms/libqvkkhrdisplay.so",
    "PySide6/Qt/plugins/egldeviceintegrations/*",
    "PySide6/Qt/lib/libQt6EglFSDeviceIntegration.so.*",
    "PySide6/Qt/lib/libQt6EglFsKmsSupport.so.*",
    "PySide6/Qt/plugins/platformthemes/libqgtk3.so",
)


def allowlist() -> list[str]:
    """The allowlist's patterns: the first word of each line, comments and blanks left out."""
    lines = (line.split("#", 1)[0].split() for line in ALLOWLIST.read_text().splitlines())
    return [words[0] for words in lines if words]


def on_allowlist(name: str, patterns: Iterable[str]) -> bool:
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in patterns)


@functools.cache
def needed(path: str) -> tuple[str, ...]:
    """The libraries ``path`` names as its own dependencies (DT_NEEDED), as objdump reads them
    (PyInstaller itself needs objdump on Linux)."""
    out = subprocess.run(["objdump", "-p", path], capture_output=True, text=True).stdout
    return tuple(re.findall(r"^\s*NEEDED\s+(\S+)", out, re.MULTILINE))


class NotFound(logging.Handler):
    """Keeps PyInstaller's "Library not found" warnings: (library, the binary that needs it)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.found: list[tuple[str, str]] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.getMessage().startswith("Library not found") and len(record.args or ()) == 2:
            library, needed_by = record.args  # type: ignore[misc]
            self.found.append((str(library), str(needed_by)))


def watch() -> NotFound:
    """Start keeping PyInstaller's warnings about libraries it could not find."""
    handler = NotFound()
    logging.getLogger("PyInstaller").addHandler(handler)
    return handler


def _reach(roots: Iterable[str], source: dict[str, str], by_name: dict[str, str]) -> set[str]:
    """The entries ``roots`` need, directly or not, among the bundle's own (roots included)."""
    seen: set[str] = set()
    todo = list(roots)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        todo += [by_name[lib] for lib in needed(source[name]) if lib in by_name]
    return seen


def leave_out_unused(binaries: list[Entry]) -> list[Entry]:
    """``binaries`` without the unused plugins and what only they need."""
    files = [entry for entry in binaries if entry[2] != "SYMLINK"]
    source = {name: src for name, src, _kind in files}
    by_name = {PurePosixPath(name).name: name for name in source}
    unused = [name for name in source if any(fnmatch.fnmatchcase(name, p) for p in UNUSED)]
    theirs = _reach(unused, source, by_name)
    others = _reach([name for name in source if name not in theirs], source, by_name)
    gone = theirs - others
    return [
        (name, src, kind)
        for name, src, kind in binaries
        if name not in gone and not (kind == "SYMLINK" and src in gone)
    ]


def complete(binaries: list[Entry], warnings: NotFound) -> list[Entry]:
    """The bundle's binaries, trimmed of the unused and completed with every library they need
    that is not on the allowlist; a library that cannot be found fails the build."""
    binaries = leave_out_unused(binaries)
    patterns = allowlist()
    present = {PurePosixPath(name).name for name, _src, _kind in binaries}
    kept_sources = {src for _name, src, kind in binaries if kind != "SYMLINK"}
    lacking = [
        f"{lib} (needed by {Path(by).name})"
        for lib, by in warnings.found
        if by in kept_sources and not on_allowlist(lib, patterns)
    ]
    moot = sorted({Path(by).name for _lib, by in warnings.found if by not in kept_sources})
    if moot:
        print(f"left out of the bundle, so what they lack does not matter: {', '.join(moot)}")
    todo = [(name, src) for name, src, kind in binaries if kind != "SYMLINK"]
    while todo:
        name, src = todo.pop()
        for lib in needed(src):
            if lib in present or on_allowlist(lib, patterns):
                continue
            present.add(lib)
            path = resolve_library_path(lib)
            if path is None:
                lacking.append(f"{lib} (needed by {PurePosixPath(name).name})")
                continue
            # Collected beside the others; PyInstaller leaves some out on purpose (Wayland's
            # cursor and EGL libraries), which a desktop without them would then lack.
            binaries.append((lib, str(path), "BINARY"))
            todo.append((lib, str(path)))
    if lacking:
        raise SystemExit(
            "The bundle needs libraries this build machine lacks, and which are not on "
            "packaging/linux/system-libraries.txt:\n  "
            + "\n  ".join(sorted(set(lacking)))
            + "\nInstall them and build again (packaging/linux/build.sh installs those Qt's "
            "display plugins need)."
        )
    return binaries
