"""A partial download on disk: the ``.part`` file (bytes at their final offsets) and its
``.part.json`` (which byte ranges are done), written so that a crash, a reboot or an app update
resumes without fetching a completed part again.

The state is written after the bytes it describes are flushed to disk (``fsync`` of the data, then
an atomic replace of the JSON), so it never claims bytes a power cut lost. A state from another
version of the file (size or SHA-256 changed on the hub) or an unreadable one is discarded.
"""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.library.layout import (
    PART_SUFFIX,
    partial_path,
    repo_of_folder,
    state_path,
)

STATE_VERSION = 1


@dataclass(frozen=True, slots=True)
class FileSpec:
    """What is being downloaded, and what its bytes must hash to."""

    repo: str
    file: str
    revision: str
    size: int
    sha256: str

    @property
    def name(self) -> str:
        return f"{self.repo}/{self.file}"


@dataclass(slots=True)
class Part:
    """``[start, end)`` of the file; ``done`` bytes from ``start`` are on disk."""

    start: int
    end: int
    done: int = 0

    @property
    def offset(self) -> int:
        return self.start + self.done

    @property
    def remaining(self) -> int:
        return self.end - self.offset

    @property
    def complete(self) -> bool:
        return self.offset >= self.end


@dataclass(slots=True)
class PartialState:
    spec: FileSpec
    ranged: bool
    parts: list[Part]

    @property
    def done_bytes(self) -> int:
        return sum(p.done for p in self.parts)

    def to_json(self) -> dict[str, Any]:
        s = self.spec
        return {
            "version": STATE_VERSION,
            "repo": s.repo,
            "file": s.file,
            "revision": s.revision,
            "size": s.size,
            "sha256": s.sha256,
            "ranged": self.ranged,
            "parts": [[p.start, p.end, p.done] for p in self.parts],
        }

    @classmethod
    def from_json(cls, data: object) -> PartialState | None:
        """None for anything this version cannot trust."""
        if not isinstance(data, dict) or data.get("version") != STATE_VERSION:
            return None
        try:
            spec = FileSpec(
                str(data["repo"]),
                str(data["file"]),
                str(data["revision"]),
                int(data["size"]),
                str(data["sha256"]),
            )
            parts = [Part(int(a), int(b), int(c)) for a, b, c in data["parts"]]
        except (KeyError, TypeError, ValueError):
            return None
        position = 0
        for part in parts:  # contiguous, in order, covering the file
            if part.start != position or not 0 <= part.done <= part.end - part.start:
                return None
            position = part.end
        if position != spec.size:
            return None
        return cls(spec, bool(data.get("ranged", True)), parts)


def split_parts(size: int, part_size: int) -> list[Part]:
    if size <= 0:
        return [Part(0, 0)]
    return [Part(start, min(start + part_size, size)) for start in range(0, size, part_size)]


def load_state(target: Path, spec: FileSpec) -> PartialState | None:
    """The saved state for ``spec`` if it matches and its ``.part`` file is still there."""
    try:
        raw = json.loads(state_path(target).read_text(encoding="utf-8"))
        part_size = partial_path(target).stat().st_size
    except (OSError, ValueError):
        return None
    state = PartialState.from_json(raw)
    if state is None or state.spec != spec or part_size != spec.size:
        return None
    return state


def save_state(target: Path, state: PartialState) -> None:
    """Atomically replace the state file (the data it describes must be flushed already)."""
    path = state_path(target)
    tmp = path.with_name(path.name + ".tmp")
    data = json.dumps(state.to_json(), separators=(",", ":")).encode()
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)


def remove_partial(target: Path) -> int:
    """Delete a partial download's files; the bytes of disk space freed."""
    freed = 0
    for path in (partial_path(target), state_path(target)):
        with contextlib.suppress(FileNotFoundError):
            freed += disk_usage(path)
            path.unlink()
    with contextlib.suppress(OSError):
        target.parent.rmdir()  # only if nothing else is in the repository's folder
    return freed


def disk_usage(path: Path) -> int:
    """Bytes a file takes on disk (a partial file is sparse until its parts arrive)."""
    st = path.stat()
    blocks = getattr(st, "st_blocks", None)
    return min(st.st_size, blocks * 512) if blocks is not None else st.st_size


@dataclass(frozen=True, slots=True)
class PartialDownload:
    """An unfinished download, as ``cove models`` and the window list it."""

    repo: str
    file: str
    target: Path
    downloaded_bytes: int
    total_bytes: int
    disk_bytes: int

    def to_dict(self) -> dict[str, object]:
        return {
            "model": f"{self.repo}/{self.file}",
            "path": str(partial_path(self.target)),
            "downloaded_bytes": self.downloaded_bytes,
            "total_bytes": self.total_bytes,
            "disk_bytes": self.disk_bytes,
        }


def list_partials(models: Path) -> list[PartialDownload]:
    """Every partial download in the models folder, with how much of it is done."""
    found: list[PartialDownload] = []
    if not models.is_dir():
        return found
    for folder in sorted(models.iterdir()):
        repo = repo_of_folder(folder)
        if repo is None or not folder.is_dir():
            continue
        for part_file in sorted(folder.rglob("*" + PART_SUFFIX)):
            target = part_file.with_name(part_file.name[: -len(PART_SUFFIX)])
            try:
                raw = json.loads(state_path(target).read_text(encoding="utf-8"))
                disk = disk_usage(part_file)
            except (OSError, ValueError):
                raw, disk = None, 0
            state = PartialState.from_json(raw)
            done = state.done_bytes if state else 0
            total = state.spec.size if state else 0
            file = state.spec.file if state else target.name
            found.append(PartialDownload(repo, file, target, done, total, disk))
    return found
