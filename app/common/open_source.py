"""Open a cited file, at the cited page where the user's PDF viewer can be told one.

Desktops open a file by its path, and drop any ``#page=`` a URL carries; the common Linux PDF
viewers take the page on their command line instead. Elsewhere (macOS Preview, the Windows
default) the file opens at its start.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices

# Linux viewers by the start of their desktop file's name: how each is told a 1-based page.
_PAGE_ARGUMENTS: dict[str, Callable[[str, int], list[str]]] = {
    "org.gnome.evince": lambda path, page: ["evince", f"--page-index={page}", path],
    "evince": lambda path, page: ["evince", f"--page-index={page}", path],
    "org.gnome.papers": lambda path, page: ["papers", f"--page-index={page}", path],
    "atril": lambda path, page: ["atril", f"--page-index={page}", path],
    "xreader": lambda path, page: ["xreader", f"--page-index={page}", path],
    "org.kde.okular": lambda path, page: ["okular", "-p", str(page), path],
    "okular": lambda path, page: ["okular", "-p", str(page), path],
    "org.pwmt.zathura": lambda path, page: ["zathura", "-P", str(page), path],
    "zathura": lambda path, page: ["zathura", "-P", str(page), path],
    "firefox": lambda path, page: ["firefox", f"{Path(path).as_uri()}#page={page}"],
    "google-chrome": lambda path, page: ["google-chrome", f"{Path(path).as_uri()}#page={page}"],
    "chromium": lambda path, page: ["chromium", f"{Path(path).as_uri()}#page={page}"],
}


def default_pdf_viewer() -> str | None:
    """The desktop file that opens PDFs here (Linux), e.g. ``org.gnome.Evince.desktop``."""
    if shutil.which("xdg-mime") is None:
        return None
    try:
        found = subprocess.run(
            ["xdg-mime", "query", "default", "application/pdf"],
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return found.stdout.strip() or None


def viewer_command(
    path: str,
    page: int | None,
    desktop_file: str | None,
    *,
    installed: Callable[[str], str | None] = shutil.which,
) -> list[str] | None:
    """The command that opens ``path`` at ``page`` in the viewer of ``desktop_file``, or None
    when there is no page, or that viewer cannot be told one (or is not on the PATH)."""
    if page is None or not desktop_file or not path.lower().endswith(".pdf"):
        return None
    name = desktop_file.lower().removesuffix(".desktop")
    for prefix, command in _PAGE_ARGUMENTS.items():
        if name == prefix or name.startswith((prefix + ".", prefix + "-")):
            argv = command(path, page)
            return argv if installed(argv[0]) else None
    return None


def open_source(path: str, page: int | None) -> None:
    argv = (
        viewer_command(path, page, default_pdf_viewer())
        if sys.platform.startswith("linux")
        else None
    )
    if argv is not None:
        try:
            subprocess.Popen(argv, start_new_session=True)
            return
        except OSError:
            pass
    QDesktopServices.openUrl(QUrl.fromLocalFile(path))
