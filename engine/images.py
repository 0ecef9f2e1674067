"""Images for vision models: read, checked and prepared in Python before any native code sees them.

Every image that reaches a model passes through ``read_image``: it is identified from its bytes
(never its name), its size is checked from the header before a pixel is decoded (a decompression
bomb is refused, not decoded), it is decoded whole (a truncated file is refused, not padded), turned
upright by its EXIF orientation, flattened onto white when it has transparency, and scaled down to
at most ``MODEL_SIDE`` pixels on its longest side. Every vision preprocessor in llama.cpp resizes
again to its own input size (Gemma 3: 896, SmolVLM: 512 tiles, Qwen2.5-VL: up to about 1,800 on a
side), so nothing a model can use is lost, and the raw pixels stay small enough to hold per turn.
"""

from __future__ import annotations

import base64
import binascii
import io
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from engine.errors import ImageError, VisionUnavailable
from engine.types import ImageInput

# Refused before decoding: more pixels than any camera or screenshot has (a 200-megapixel phone
# photo is 16,320 x 12,240), and the point where a small compressed file can claim gigabytes.
MAX_PIXELS = 200_000_000
MAX_SIDE = 20_000  # on either side
MAX_BYTES = 50 * 1024 * 1024  # an encoded file
MODEL_SIDE = 2048  # the longest side handed to a model
FORMATS = ("PNG", "JPEG", "WEBP", "GIF", "BMP", "TIFF")
MIME = {
    "PNG": "image/png",
    "JPEG": "image/jpeg",
    "WEBP": "image/webp",
    "GIF": "image/gif",
    "BMP": "image/bmp",
    "TIFF": "image/tiff",
}


if TYPE_CHECKING:
    from PIL.Image import Image as PILImage

    from engine.types import ChatMessage


def read_image(data: bytes, name: str = "the image") -> ImageInput:
    """``data`` checked and prepared for a model; ``ImageError`` saying why when it cannot be."""
    from PIL import Image, ImageOps, UnidentifiedImageError

    # Pillow's own guard at Cove's limit: a warning past it (an error here), an error past twice.
    Image.MAX_IMAGE_PIXELS = MAX_PIXELS
    if not data:
        raise ImageError(f"{name} is empty.")
    if len(data) > MAX_BYTES:
        raise ImageError(f"{name} is {len(data) / 2**20:.0f} MB; images up to 50 MB are read.")
    with warnings.catch_warnings():
        # Pillow warns (and past twice its limit raises) on huge images; the size is checked here
        # from the header before anything is decoded.
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        try:
            image = Image.open(io.BytesIO(data), formats=FORMATS)
        except UnidentifiedImageError:
            raise ImageError(
                f"{name} is not an image Cove can read (PNG, JPEG, WebP, GIF, BMP or TIFF)."
            ) from None
        except (Image.DecompressionBombError, Image.DecompressionBombWarning):
            raise ImageError(
                f"{name} claims more pixels than any photo has; it was not read."
            ) from None
        except (OSError, ValueError, SyntaxError) as exc:
            raise ImageError(f"{name} could not be read: {exc}") from None
        with image:
            width, height = image.size
            if width < 1 or height < 1:
                raise ImageError(f"{name} has no pixels.")
            if width > MAX_SIDE or height > MAX_SIDE or width * height > MAX_PIXELS:
                raise ImageError(
                    f"{name} is {width} x {height} pixels; images up to {MAX_SIDE:,} pixels on "
                    f"a side and {MAX_PIXELS // 1_000_000} megapixels are read."
                )
            fmt = str(image.format)
            try:
                if width * height > 4 * MODEL_SIDE * MODEL_SIDE and fmt == "JPEG":
                    # A large JPEG is decoded at a fraction of its size (the decoder's own
                    # scaling), never whole only to be thrown away.
                    image.draft("RGB", (MODEL_SIDE, MODEL_SIDE))
                image.load()
                upright = ImageOps.exif_transpose(image)
                rgb = _flatten(upright if upright is not None else image)
            except (Image.DecompressionBombError, Image.DecompressionBombWarning):
                raise ImageError(f"{name} claims more pixels than any photo has.") from None
            except (OSError, ValueError, SyntaxError) as exc:
                raise ImageError(f"{name} is damaged or cut short ({exc}).") from None
    original = rgb.size
    if max(rgb.size) > MODEL_SIDE:
        rgb.thumbnail((MODEL_SIDE, MODEL_SIDE), Image.Resampling.BICUBIC)
    return ImageInput(
        rgb=rgb.tobytes(),
        width=rgb.width,
        height=rgb.height,
        encoded=data,
        mime=MIME[fmt],
        original=(original[0], original[1]),
    )


def _flatten(image: PILImage) -> PILImage:
    """RGB, with any transparency composited onto white (what a chat shows it on)."""
    from PIL import Image

    if image.mode in ("RGBA", "LA") or (image.mode == "P" and "transparency" in image.info):
        rgba = image.convert("RGBA")
        white = Image.new("RGB", rgba.size, (255, 255, 255))
        white.paste(rgba, mask=rgba.getchannel("A"))
        return white
    return image.convert("RGB")


def read_image_file(path: Path) -> ImageInput:
    """An image file from disk, checked as ``read_image`` checks bytes."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise ImageError(f"{path.name} could not be opened: {exc.strerror or exc}") from None
    if size > MAX_BYTES:
        raise ImageError(f"{path.name} is {size / 2**20:.0f} MB; images up to 50 MB are read.")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ImageError(f"{path.name} could not be read: {exc.strerror or exc}") from None
    return read_image(data, path.name)


def read_data_url(url: str, name: str = "the image") -> ImageInput:
    """A ``data:image/...;base64,...`` URL."""
    head, sep, payload = url.partition(",")
    if not sep or not head.startswith("data:") or not head.endswith(";base64"):
        raise ImageError(f"{name} must be a base64 data: URL (data:image/png;base64,...).")
    mime = head[5:-7].lower()
    if mime and not mime.startswith("image/"):
        raise ImageError(f"{name} is {mime}, not an image.")
    try:
        data = base64.b64decode(payload, validate=True)
    except (binascii.Error, ValueError):
        raise ImageError(f"{name} is not valid base64.") from None
    return read_image(data, name)


def read_base64(payload: str, name: str = "the image") -> ImageInput:
    """Plain base64 (Ollama's ``images``, Anthropic's ``source.data``)."""
    try:
        data = base64.b64decode(payload, validate=True)
    except (binascii.Error, ValueError):
        raise ImageError(f"{name} is not valid base64.") from None
    return read_image(data, name)


def no_vision_message(model: str) -> str:
    return (
        f"{model} cannot see images: it is a text model, or its projector (mmproj) file is "
        "missing. Load a vision model (Gemma 3, Qwen2.5-VL, SmolVLM) to ask about images."
    )


def require_vision(model: object, messages: Sequence[ChatMessage]) -> None:
    """A conversation with images for a model that cannot see them (its ``vision`` is false):
    ``VisionUnavailable``, a clear refusal, never a reply that ignores them."""
    if getattr(model, "vision", False) or not any(m.images for m in messages):
        return
    raise VisionUnavailable(no_vision_message(getattr(model, "name", "The loaded model")))
