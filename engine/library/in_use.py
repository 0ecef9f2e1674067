"""Is a model file loaded right now, by any of this user's processes? A loaded GGUF is memory-mapped
by the runtime (llama.cpp maps its weights), and an ONNX model's files are open: both show in the
operating system's view of the process, whichever process (the window's engine host, a
``cove serve``) loaded it."""

from __future__ import annotations

import os
import sys
from pathlib import Path


def processes_using(path: Path) -> list[int]:
    """Process ids that map or hold open ``path`` (or, for a folder, a file inside it)."""
    target = os.path.realpath(path)
    if sys.platform.startswith("linux"):
        return _linux(target)
    return _portable(target)


def _matches(candidate: str, target: str) -> bool:
    return candidate == target or candidate.startswith(target + os.sep)


def _linux(target: str) -> list[int]:
    found: list[int] = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        pid = int(entry.name)
        try:
            with open(f"/proc/{pid}/maps", encoding="utf-8", errors="replace") as maps:
                if any(_matches(line.rstrip("\n").split(maxsplit=5)[-1], target) for line in maps):
                    found.append(pid)
                    continue
            for fd in os.scandir(f"/proc/{pid}/fd"):
                if _matches(os.readlink(fd.path), target):
                    found.append(pid)
                    break
        except OSError:  # another user's process, or one that just ended
            continue
    return found


def _portable(target: str) -> list[int]:
    import psutil

    found: list[int] = []
    for proc in psutil.process_iter():
        try:
            paths = [m.path for m in proc.memory_maps()] + [f.path for f in proc.open_files()]
        except (psutil.Error, OSError):
            continue
        if any(_matches(os.path.realpath(p), target) for p in paths if p):
            found.append(proc.pid)
    return found
