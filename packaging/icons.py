"""Cove's icon (assets/icons/cove.svg) in the sizes and formats the platforms want: a macOS
.iconset folder (for iconutil) and a Windows .ico. Run by the bundle recipes.

    python packaging/icons.py macos|windows
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SVG = ROOT / "assets" / "icons" / "cove.svg"


def render(size: int) -> Any:
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    QGuiApplication.instance() or QGuiApplication([])
    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    QSvgRenderer(str(SVG)).render(painter)
    painter.end()
    return image


def macos() -> None:
    folder = ROOT / "packaging" / "macos" / "Cove.iconset"
    folder.mkdir(exist_ok=True)
    for size in (16, 32, 128, 256, 512):
        render(size).save(str(folder / f"icon_{size}x{size}.png"))
        render(size * 2).save(str(folder / f"icon_{size}x{size}@2x.png"))


def windows() -> None:
    from PIL import Image

    png = ROOT / "build" / "cove-256.png"
    png.parent.mkdir(exist_ok=True)
    render(256).save(str(png))
    Image.open(png).save(
        ROOT / "packaging" / "windows" / "cove.ico",
        sizes=[(16, 16), (24, 24), (32, 32), (48, 48), (64, 64), (128, 128), (256, 256)],
    )


if __name__ == "__main__":
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    {"macos": macos, "windows": windows}[sys.argv[1]]()
