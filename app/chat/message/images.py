"""A user message's images in the chat: thumbnails sized for the bubble, each opening the whole
image (the file kept with the chat, as the user gave it) when clicked.

Thumbnails are decoded off the UI thread, at the size they are shown (JPEG decodes straight to a
fraction of its size), so a chat of large photos opens as fast as one of text; until a thumbnail
is ready its place is held at the image's shape.
"""

from __future__ import annotations

import hashlib
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QSize, Qt, QUrl, Signal
from PySide6.QtGui import QDesktopServices, QImage, QImageReader, QMouseEvent, QPixmap
from PySide6.QtWidgets import QGridLayout, QLabel, QSizePolicy, QWidget

from app.common.i18n import tr
from app.common.workers import WorkerPool

if TYPE_CHECKING:
    from engine.store import StoredImage

ONE_IMAGE = QSize(320, 240)  # the box a message's only image fits in
SEVERAL = QSize(168, 126)  # each of several
PER_ROW = 4
SCALE = 2  # decoded at twice the shown size: sharp on a high-density screen

_pool: WorkerPool | None = None


def _decoder() -> WorkerPool:
    global _pool
    if _pool is None:
        _pool = WorkerPool("thumbnails", 1)
    return _pool


@dataclass(frozen=True, slots=True)
class ImageRef:
    """An image of a message: its file once the chat has it, its bytes until then."""

    name: str
    width: int
    height: int
    mime: str
    path: Path | None = None
    data: bytes | None = field(default=None, repr=False)


def stored_refs(images: Sequence[StoredImage]) -> list[ImageRef]:
    return [ImageRef(i.name, i.width, i.height, i.mime, path=i.path) for i in images]


def shown_size(ref: ImageRef, box: QSize) -> QSize:
    """The image's shape, fitted in ``box`` and never enlarged."""
    size = QSize(max(1, ref.width), max(1, ref.height))
    if size.width() > box.width() or size.height() > box.height():
        size = size.scaled(box, Qt.AspectRatioMode.KeepAspectRatio)
    return QSize(max(16, size.width()), max(16, size.height()))


def decode(ref: ImageRef, size: QSize) -> QImage:
    """The image at ``size`` (on a worker thread); a null image when it cannot be read."""
    if ref.path is not None:
        reader = QImageReader(str(ref.path))
    else:
        buffer = QBuffer()
        buffer.setData(QByteArray(ref.data or b""))
        buffer.open(QIODevice.OpenModeFlag.ReadOnly)
        reader = QImageReader(buffer)
    reader.setAutoTransform(True)  # upright, by its EXIF orientation
    raw = reader.size()
    target = QSize(size.width() * SCALE, size.height() * SCALE)
    if raw.isValid() and raw.width() > 0 and raw.height() > 0:
        # The reader scales before turning the image upright: give it the raw shape's target.
        turned = ref.width != ref.height and (raw.width() > raw.height()) != (
            ref.width > ref.height
        )
        wanted = target.transposed() if turned else target
        if raw.width() > wanted.width() or raw.height() > wanted.height():
            reader.setScaledSize(raw.scaled(wanted, Qt.AspectRatioMode.KeepAspectRatio))
    image = reader.read()
    if image.isNull():
        return image
    return image.scaled(
        target, Qt.AspectRatioMode.KeepAspectRatio, Qt.TransformationMode.SmoothTransformation
    )


def _open_url(url: QUrl) -> bool:
    return QDesktopServices.openUrl(url)


def open_image(ref: ImageRef) -> None:
    """The whole image in the system's image viewer: the chat's own file (bytes not yet saved go
    to a temporary file first)."""
    path = ref.path
    if path is None or not path.is_file():
        if ref.data is None:
            return
        digest = hashlib.sha256(ref.data).hexdigest()[:16]
        folder = Path(tempfile.gettempdir()) / "cove-images"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{digest}{Path(ref.name).suffix or '.png'}"
        if not path.exists():
            path.write_bytes(ref.data)
    _open_url(QUrl.fromLocalFile(str(path)))


class ImageThumb(QLabel):
    """One image, clickable; its place is held at its shape until it is decoded."""

    clicked = Signal()

    def __init__(self, ref: ImageRef, box: QSize, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("MessageImage")
        self.ref = ref
        self.setFixedSize(shown_size(ref, box))
        self.setScaledContents(True)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        name = ref.name or tr("Message", "Image")
        self.setToolTip(
            tr("Message", "{name} ({width} x {height}): click to open it").format(
                name=name, width=ref.width, height=ref.height
            )
        )
        self.setAccessibleName(name)
        self.loaded = False
        size = self.size()
        _decoder().submit(lambda: decode(ref, size), self._decoded)

    def _decoded(self, image: QImage) -> None:
        try:
            if image.isNull():
                self.setText("?")
                self.setToolTip(
                    tr("Message", "{name} could not be read.").format(name=self.ref.name)
                    if self.ref.name
                    else tr("Message", "This image could not be read.")
                )
                return
            self.setPixmap(QPixmap.fromImage(image))
            self.loaded = True
        except RuntimeError:  # the message was deleted while its image was decoding
            return

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton and self.rect().contains(
            event.position().toPoint()
        ):
            self.clicked.emit()
        super().mouseReleaseEvent(event)


class MessageImages(QWidget):
    """A message's images in a grid, above its text."""

    def __init__(self, refs: Sequence[ImageRef], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setSizePolicy(QSizePolicy.Policy.Maximum, QSizePolicy.Policy.Fixed)
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 2, 0, 6)
        grid.setSpacing(6)
        box = ONE_IMAGE if len(refs) == 1 else SEVERAL
        self.thumbs: list[ImageThumb] = []
        for i, ref in enumerate(refs):
            thumb = ImageThumb(ref, box)
            thumb.clicked.connect(partial(self._open, thumb))
            grid.addWidget(thumb, i // PER_ROW, i % PER_ROW, Qt.AlignmentFlag.AlignLeft)
            self.thumbs.append(thumb)

    def _open(self, thumb: ImageThumb) -> None:
        open_image(thumb.ref)

    def set_paths(self, paths: Sequence[Path]) -> None:
        """The files the chat keeps them in, once it has saved them."""
        for thumb, path in zip(self.thumbs, paths, strict=False):
            thumb.ref = replace(thumb.ref, path=path, data=None)
