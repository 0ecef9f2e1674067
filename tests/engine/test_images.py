"""Images are read and checked in Python before native code sees them: hostile files are refused
with a message for the user, EXIF orientation is honoured, large images are scaled for the model
and the original kept."""

from __future__ import annotations

import base64
import io
import struct
import zlib
from pathlib import Path

import pytest
from PIL import Image

from engine.errors import ImageError
from engine.images import (
    MAX_SIDE,
    MODEL_SIDE,
    read_base64,
    read_data_url,
    read_image,
    read_image_file,
)


def png(
    size: tuple[int, int] = (40, 30), mode: str = "RGB", color: object = (200, 30, 30)
) -> bytes:
    buf = io.BytesIO()
    Image.new(mode, size, color).save(buf, "PNG")  # type: ignore[arg-type]
    return buf.getvalue()


def with_claimed_size(data: bytes, width: int, height: int) -> bytes:
    """A real PNG whose header claims another size (its CRC fixed, so it parses)."""
    assert data[12:16] == b"IHDR"
    ihdr = struct.pack(">II", width, height) + data[24:29]
    crc = struct.pack(">I", zlib.crc32(b"IHDR" + ihdr) & 0xFFFFFFFF)
    return data[:16] + ihdr + crc + data[33:]


def test_a_png_is_read_as_rgb_pixels() -> None:
    image = read_image(png((40, 30)))
    assert (image.width, image.height) == (40, 30)
    assert len(image.rgb) == 40 * 30 * 3
    assert image.rgb[:3] == bytes((200, 30, 30))
    assert image.mime == "image/png"
    assert read_image(png((40, 30))).digest == image.digest
    assert read_image(png((40, 30), color=(0, 0, 0))).digest != image.digest


def test_a_truncated_png_is_refused() -> None:
    data = png((300, 200), color=(10, 120, 250))
    noisy = Image.effect_noise((300, 200), 60).convert("RGB")
    buf = io.BytesIO()
    noisy.save(buf, "PNG")
    data = buf.getvalue()
    with pytest.raises(ImageError, match=r"damaged or cut short|could not be read"):
        read_image(data[: len(data) // 2], "photo.png")


def test_a_decompression_bomb_is_refused_before_decoding() -> None:
    # 19,000 x 19,000 = 361 megapixels claimed by a file of a few hundred bytes.
    bomb = with_claimed_size(png((16, 16)), 19_000, 19_000)
    assert len(bomb) < 1000
    with pytest.raises(ImageError, match=r"megapixels|more pixels than any photo"):
        read_image(bomb, "bomb.png")


def test_a_40000_pixel_image_is_refused() -> None:
    huge = with_claimed_size(png((16, 16)), 40_000, 40_000)
    with pytest.raises(ImageError, match=rf"{MAX_SIDE:,}|more pixels"):
        read_image(huge, "huge.png")


def test_a_file_that_is_not_an_image_is_refused_whatever_its_name(tmp_path: Path) -> None:
    fake = tmp_path / "holiday.jpg"
    fake.write_text("This is a text file with a .jpg name.\n" * 20)
    with pytest.raises(ImageError, match="not an image Cove can read"):
        read_image_file(fake)
    empty = tmp_path / "empty.png"
    empty.write_bytes(b"")
    with pytest.raises(ImageError, match="empty"):
        read_image_file(empty)
    with pytest.raises(ImageError, match="could not be opened"):
        read_image_file(tmp_path / "missing.png")


def test_exif_orientation_is_honoured() -> None:
    # A 40 x 20 landscape JPEG marked "rotate 90° clockwise to view" (orientation 6) is seen
    # upright: 20 x 40.
    img = Image.new("RGB", (40, 20), (0, 200, 0))
    exif = Image.Exif()
    exif[0x0112] = 6
    buf = io.BytesIO()
    img.save(buf, "JPEG", exif=exif.tobytes())
    image = read_image(buf.getvalue())
    assert (image.width, image.height) == (20, 40)
    assert image.mime == "image/jpeg"


def test_transparency_is_flattened_onto_white() -> None:
    image = read_image(png((8, 8), mode="RGBA", color=(0, 0, 0, 0)))
    assert image.rgb[:3] == b"\xff\xff\xff"


def test_a_large_image_is_scaled_for_the_model_and_kept_whole() -> None:
    data = png((3000, 1500), color=(1, 2, 3))
    image = read_image(data)
    assert (image.width, image.height) == (MODEL_SIDE, MODEL_SIDE // 2)
    assert image.original == (3000, 1500)
    assert image.encoded == data  # what the user gave, untouched


def test_data_urls_and_base64() -> None:
    data = png()
    url = "data:image/png;base64," + base64.b64encode(data).decode()
    assert read_data_url(url).width == 40
    assert read_image(data).data_url() == url
    assert read_base64(base64.b64encode(data).decode()).height == 30
    with pytest.raises(ImageError, match="base64"):
        read_data_url("data:image/png;base64,@@@")
    with pytest.raises(ImageError, match="not an image"):
        read_data_url("data:text/plain;base64," + base64.b64encode(b"hi").decode())
    with pytest.raises(ImageError, match="data: URL"):
        read_data_url("data:image/png,rawbytes")
