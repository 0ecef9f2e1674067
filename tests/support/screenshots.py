"""Screenshots of the real window, checked not to be blank."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtGui import QImage

if TYPE_CHECKING:
    from app.shell.main_window import MainWindow

SIZE = (1280, 720)


def distinct_colours(image: QImage) -> int:
    seen = set()
    for y in range(0, image.height(), 12):
        for x in range(0, image.width(), 12):
            seen.add(image.pixel(x, y))
    return len(seen)


def save(window: MainWindow, folder: Path, name: str) -> Path:
    path = folder / f"{name}.png"
    assert window.grab().save(str(path))
    image = QImage(str(path))
    assert image.width() >= SIZE[0] and distinct_colours(image) > 8, f"{name} looks blank"
    return path
