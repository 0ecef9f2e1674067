"""Images the user gives the composer: from a file dialog, a drop or the clipboard.

Each one is read and checked at once by engine/images.py (off the UI thread: a large photo takes
a moment to decode), so a file that is not an image, is cut short or is absurdly large is refused
with its reason before anything is sent. What is kept is the file as given (sent to the model,
scaled by the engine, and stored whole with the chat) and a small thumbnail for the composer.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QMimeData, Qt
from PySide6.QtGui import QImage, QImageWriter

from app.common.i18n import tr
from engine.images import read_image, read_image_file
from engine.types import ImageInput

MAX_IMAGES = 8  # in one message
THUMB_SIDE = 56  # the composer's chips, in pixels
# Formats a clipboard may hold as the file's own bytes (kept as they are, not re-encoded).
CLIPBOARD_FORMATS = ("image/png", "image/jpeg", "image/webp", "image/gif", "image/bmp")
IMAGE_PATTERNS = "*.png *.jpg *.jpeg *.webp *.gif *.bmp *.tif *.tiff"
FILE_FILTER = f"Images ({IMAGE_PATTERNS})"  # in English; file_filter() is the one shown


def file_filter() -> str:
    """The file dialog's filter for images, in the window's language."""
    return tr("Attachments", "Images ({patterns})").format(patterns=IMAGE_PATTERNS)


def pasted_name() -> str:
    """The name an image from the clipboard goes by."""
    return tr("Attachments", "Pasted image")


@dataclass(frozen=True, slots=True)
class ImageSource:
    """Where an image comes from: a file, or bytes (the clipboard)."""

    name: str
    path: Path | None = None
    data: bytes | None = field(default=None, repr=False)


@dataclass(frozen=True, slots=True)
class Attachment:
    """An image read and checked, waiting in the composer to be sent."""

    name: str
    image: ImageInput
    thumbnail: QImage = field(repr=False, compare=False)

    @property
    def size_text(self) -> str:
        width, height = self.image.original
        return f"{width} x {height}"


def sources_from_mime(mime: QMimeData) -> list[ImageSource]:
    """The images a drop or a paste carries: local files (each checked when read, so a file that
    is not an image is refused with its reason), else the image's own bytes, else Qt's image."""
    files = [Path(url.toLocalFile()) for url in mime.urls() if url.isLocalFile()]
    if files:
        return [ImageSource(path.name, path=path) for path in files if path.name]
    for fmt in CLIPBOARD_FORMATS:
        if mime.hasFormat(fmt):
            data = bytes(mime.data(fmt).data())
            if data:
                return [ImageSource(pasted_name(), data=data)]
    if mime.hasImage():
        image = QImage(mime.imageData())
        if not image.isNull():
            return [ImageSource(pasted_name(), data=png_bytes(image))]
    return []


def carries_images(mime: QMimeData) -> bool:
    """Whether a drop or a paste is for the image strip rather than the text."""
    if any(url.isLocalFile() for url in mime.urls()):
        return True
    return mime.hasImage() or any(mime.hasFormat(fmt) for fmt in CLIPBOARD_FORMATS)


def png_bytes(image: QImage) -> bytes:
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    QImageWriter(buffer, QByteArray(b"PNG")).write(image)
    return bytes(buffer.data().data())


def read_source(source: ImageSource) -> Attachment:
    """Read and check one image (on a worker thread); ``ImageError`` says why it cannot be."""
    if source.path is not None:
        image = read_image_file(source.path)
    else:
        image = read_image(source.data or b"", source.name)
    return Attachment(source.name, image, thumbnail(image, THUMB_SIDE))


def qimage(image: ImageInput) -> QImage:
    """The pixels the model gets (upright, at most 2048 on a side) as a QImage of its own."""
    view = QImage(
        image.rgb, image.width, image.height, 3 * image.width, QImage.Format.Format_RGB888
    )
    return view.copy()


def thumbnail(image: ImageInput, side: int) -> QImage:
    """A square crop of the middle, ``side`` pixels (device-independent) on each side."""
    full = QImage(
        image.rgb, image.width, image.height, 3 * image.width, QImage.Format.Format_RGB888
    )
    scale = 2 * side  # sharp on a high-density screen
    scaled = full.scaled(
        scale,
        scale,
        Qt.AspectRatioMode.KeepAspectRatioByExpanding,
        Qt.TransformationMode.SmoothTransformation,
    )
    x = (scaled.width() - scale) // 2
    y = (scaled.height() - scale) // 2
    return scaled.copy(x, y, scale, scale)
