"""Pictures for the chat history's tests: a small PNG of a size and colour, and the image a person
attaches, read as the store takes it."""

from __future__ import annotations

import io
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.store import NewImage


def png(path: Path | None = None, size: tuple[int, int] = (40, 30), colour: str = "teal") -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", size, colour).save(out, "PNG")
    if path is not None:
        path.write_bytes(out.getvalue())
    return out.getvalue()


def new_image(data: bytes, name: str = "chart.png") -> NewImage:
    from engine.images import read_image
    from engine.store import NewImage

    return NewImage.of(read_image(data, name), name)
