"""The chat history's images on disk: one file per image, named by the SHA-256 of its bytes.

Files live in ``images/`` beside the database, two hex digits of the digest as a subfolder
(``images/3f/3fa9…e1.png``), so that no folder grows to hold every image a user ever sent. The
bytes are the ones the user gave, never re-encoded: the window shows them whole, the model gets
them scaled (engine/images.py). A file is written whole to a temporary name and renamed into
place, so a crash never leaves half an image under a digest.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

from engine.store.types import image_extension

FOLDER = "images"


class ImageFiles:
    """The images folder of one chat history."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def path(self, sha256: str, mime: str) -> Path:
        return self.folder / sha256[:2] / f"{sha256}.{image_extension(mime)}"

    def write(self, sha256: str, mime: str, data: bytes) -> Path:
        """Keep ``data`` under its digest; a file already there with the same size stays."""
        path = self.path(sha256, mime)
        with contextlib.suppress(OSError):
            if path.stat().st_size == len(data):
                return path
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(prefix=".part-", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(data)
                out.flush()
                os.fsync(out.fileno())
            os.replace(temp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise
        return path

    def remove(self, items: Iterable[tuple[str, str]]) -> None:
        """Delete the files of these (sha256, mime); ones already gone are not an error."""
        for sha256, mime in items:
            path = self.path(sha256, mime)
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
            with contextlib.suppress(OSError):  # only when empty
                path.parent.rmdir()
