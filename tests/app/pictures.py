"""Pictures a user would ask about, drawn with Pillow: a sales chart and a photo-like scene."""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw, ImageFilter, ImageFont

BLUE = (37, 99, 235)
GREY = (107, 114, 128)


def sales_chart(
    path: Path,
    title: str = "Sales by quarter, 2024 ($ thousands)",
    values: tuple[int, ...] = (182, 241, 317, 268),
    labels: tuple[str, ...] = ("Q1", "Q2", "Q3", "Q4"),
    size: tuple[int, int] = (1200, 800),
) -> Path:
    """A bar chart with a title, axis, gridlines and a value on each bar."""
    w, h = size
    image = Image.new("RGB", size, "white")
    draw = ImageDraw.Draw(image)
    title_font = ImageFont.load_default(size=h // 16)
    font = ImageFont.load_default(size=h // 26)
    draw.text((w // 2, h // 14), title, fill=(17, 24, 39), font=title_font, anchor="mm")
    left, right, top, bottom = w // 10, w - w // 20, h // 6, h - h // 8
    top_value = -(-max(values) * 11 // 1000) * 100  # the next hundred above, with room
    for step in range(5):
        value = top_value * step / 4
        y = bottom - (bottom - top) * step / 4
        draw.line((left, y, right, y), fill=(229, 231, 235), width=2)
        draw.text((left - 12, y), f"{value:.0f}", fill=GREY, font=font, anchor="rm")
    slot = (right - left) / len(values)
    for i, (value, label) in enumerate(zip(values, labels, strict=True)):
        x0 = left + slot * i + slot * 0.2
        x1 = left + slot * (i + 1) - slot * 0.2
        y = bottom - (bottom - top) * value / top_value
        colour = BLUE if value == max(values) else (147, 180, 250)
        draw.rounded_rectangle((x0, y, x1, bottom), radius=8, fill=colour)
        draw.text(((x0 + x1) / 2, y - 8), str(value), fill=(17, 24, 39), font=font, anchor="md")
        draw.text(((x0 + x1) / 2, bottom + 12), label, fill=GREY, font=font, anchor="ma")
    draw.line((left, bottom, right, bottom), fill=(75, 85, 99), width=3)
    image.save(path)
    return path


def landscape(path: Path, size: tuple[int, int] = (1600, 1067), hue: int = 0) -> Path:
    """A photo-like scene (sky, sun, hills and a lake), saved as a JPEG as a camera would."""
    w, h = size
    image = Image.new("RGB", size)
    draw = ImageDraw.Draw(image)
    for y in range(h):
        t = y / h
        draw.line(
            (0, y, w, y), fill=(int(250 - 120 * t), int(190 - 60 * t + hue), int(120 + 110 * t))
        )
    draw.ellipse((w * 0.62, h * 0.18, w * 0.74, h * 0.36), fill=(255, 236, 170))
    draw.polygon(
        [(0, h * 0.62), (w * 0.3, h * 0.38), (w * 0.55, h * 0.6), (0, h * 0.75)], fill=(64, 96, 80)
    )
    draw.polygon(
        [(w * 0.35, h * 0.65), (w * 0.7, h * 0.42), (w, h * 0.6), (w, h * 0.72)], fill=(48, 78, 70)
    )
    draw.rectangle((0, h * 0.7, w, h), fill=(70, 110 + hue // 2, 150))
    image = image.filter(ImageFilter.GaussianBlur(2))
    image.save(path, "JPEG", quality=88)
    return path
