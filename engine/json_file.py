"""A small file (JSON, or a key in PEM) written whole or not at all: a temporary file beside it,
then a rename, so that a crash or a full disk mid-write leaves the previous contents in place. The
file is readable by its owner only (``mkstemp`` makes it 0600, and the rename keeps that), so it
may hold secrets."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any


def read_json_object(path: Path) -> dict[str, Any]:
    """The JSON object in ``path``; empty when the file is missing, unreadable or holds
    something else."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def write_json_atomic(path: Path, data: Any) -> None:
    write_bytes_atomic(path, json.dumps(data, indent=2).encode("utf-8"))


def write_bytes_atomic(path: Path, data: bytes) -> None:
    """``data`` in ``path``, whole or not at all, readable by its owner only."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.stem}-", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@contextlib.contextmanager
def written_whole(path: Path) -> Iterator[IO[bytes]]:
    """A file to write ``path`` through, put in place only once it is whole and on the disk
    (flushed and fsynced): a larger file (a copy, an archive) than ``write_bytes_atomic`` holds
    in memory."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    try:
        with os.fdopen(fd, "w+b") as out:
            yield out
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
