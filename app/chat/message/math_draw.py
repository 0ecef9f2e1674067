"""TeX formulas drawn as images by matplotlib's mathtext.

mathtext is maintained, installs from pip everywhere Cove runs, needs nothing outside the process
(no TeX installation, no browser engine, no network), and draws a typical formula in 1-6 ms (a
large display formula in about 20). Its parser covers the TeX that models write in replies
(fractions, roots, sums and integrals with limits, accents, Greek, blackboard and calligraphic
letters, \\left/\\right); the few common macros it spells differently are renamed before drawing
(the image's alt text keeps the TeX as written). What it cannot draw (matrices, aligned
environments) is shown as its source in the code font (:mod:`app.chat.message.math_render`).

A formula is drawn as an alpha mask by the Agg rasteriser (pyplot is never imported) at the
screen's device pixel ratio, then tinted with the theme's text colour. Both are cached: masks by
(TeX, size, ratio), images by colour as well, so the open block of a streaming reply is rendered
again at no cost and a theme change only tints. An inline mask is padded so that Qt's middle
alignment puts the formula's baseline on the text's baseline.

matplotlib is imported on a worker thread when the first formula appears, not at start-up
(``start_loading``); it is used on the UI thread only once loaded.
"""

from __future__ import annotations

import hashlib
import logging
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, TypeVar

from PySide6.QtGui import QColor, QImage

from app.chat.message.math_source import MAX_TEX_CHARS

log = logging.getLogger(__name__)
T = TypeVar("T")

# mathtext's fonts: Computer Modern, the look of TeX that readers of formulas expect.
FONTSET = "cm"
# Computer Modern's x-height is about 0.43 em, the usual UI fonts' about 0.53: at the text's
# pixel size formulas would look a size smaller than the words around them. Display formulas are
# larger again (mathtext has no display style of its own: its fractions stay in text style).
INLINE_SCALE = 1.25
DISPLAY_SCALE = 1.45
MAX_PIXELS = 4096 * 1024
CACHE_SIZE = 512
RESOURCE_SCHEME = "cove-math"

# TeX that mathtext spells differently; the alt text keeps what the model wrote.
_RENAMED = {
    "le": r"\leq",
    "ge": r"\geq",
    "implies": r"\Longrightarrow",
    "iff": r"\Longleftrightarrow",
    "land": r"\wedge",
    "lor": r"\vee",
    "gets": r"\leftarrow",
    "lvert": "|",
    "rvert": "|",
    "lVert": r"\Vert",
    "rVert": r"\Vert",
    "tfrac": r"\frac",
    "textbf": r"\mathbf",
    "textit": r"\mathit",
    "bmod": r"\,\mathrm{mod}\,",
    "displaystyle": "",
    "textstyle": "",
    "limits": "",
    "nolimits": "",
}
_MACRO = re.compile(r"\\(" + "|".join(_RENAMED) + r")(?![A-Za-z])|\\operatorname\*")


@dataclass(frozen=True, slots=True)
class MathStyle:
    """How a document's formulas look: everything a drawing depends on besides its TeX."""

    colour: str
    pixel_size: int  # the message font's size, in logical pixels
    x_height: int  # the font's x-height, where Qt centres an inline image
    ratio: float  # device pixels per logical pixel


@dataclass(frozen=True, slots=True)
class Drawn:
    name: str  # the document resource's name
    image: QImage
    width: float  # logical pixels
    height: float


# -- the renderer, imported once on first use --------------------------------------------------

_start_lock = threading.Lock()
_ready = threading.Event()
_loader: threading.Thread | None = None
_parser: Any = None  # matplotlib's MathTextParser, once loaded (None: unavailable)


def _load() -> None:
    global _parser
    try:
        from matplotlib.font_manager import FontProperties
        from matplotlib.mathtext import MathTextParser

        parser = MathTextParser("agg")
        # The first parse builds the grammar and loads the fonts.
        parser.parse(
            r"$\frac{x^2}{\sqrt{y}}$", dpi=72, prop=FontProperties(math_fontfamily=FONTSET)
        )
        _parser = parser
    except Exception:  # formulas then show as their source
        log.exception("matplotlib's mathtext is unavailable; formulas are shown as TeX")
    finally:
        _ready.set()


def start_loading() -> None:
    """Import and warm the renderer on a worker thread (once)."""
    global _loader
    with _start_lock:
        if _loader is None:
            _loader = threading.Thread(target=_load, name="math renderer", daemon=True)
            _loader.start()


def renderer_ready() -> bool:
    return _ready.is_set()


def wait_for_renderer() -> None:
    start_loading()
    _ready.wait()


# -- drawing -----------------------------------------------------------------------------------

# The renderer's alpha masks (the slow part: parsing and rasterising), and their images in a
# colour: a theme change tints the masks again instead of drawing every formula anew.
_masks: OrderedDict[tuple[str, bool, int, int, float], Any] = OrderedDict()
_drawn: OrderedDict[tuple[str, bool, MathStyle], Drawn | None] = OrderedDict()


def draw(tex: str, block: bool, style: MathStyle) -> Drawn | None:
    """The formula's image (cached), or None when the renderer cannot draw it."""
    key = (tex, block, style)
    if key in _drawn:
        _drawn.move_to_end(key)
        return _drawn[key]
    shape = (tex, block, style.pixel_size, style.x_height, style.ratio)
    if shape in _masks:
        _masks.move_to_end(shape)
        mask = _masks[shape]
    else:
        mask = _keep(_masks, shape, _mask(tex, block, style))
    return _keep(_drawn, key, None if mask is None else _tint(mask, tex, block, style))


def _keep(cache: OrderedDict[Any, T], key: object, value: T) -> T:
    cache[key] = value
    if len(cache) > CACHE_SIZE:
        cache.popitem(last=False)
    return value


def is_drawn(tex: str, block: bool, style: MathStyle) -> bool:
    return (tex, block, style) in _drawn


def _mask(tex: str, block: bool, style: MathStyle) -> Any:
    """The formula's coverage (a numpy array of alpha values, rows of device pixels), padded for
    the baseline; None when mathtext cannot draw it."""
    if _parser is None or len(tex) > MAX_TEX_CHARS:
        return None
    import numpy as np
    from matplotlib.font_manager import FontProperties

    size = style.pixel_size * (DISPLAY_SCALE if block else INLINE_SCALE)
    prop = FontProperties(size=size, math_fontfamily=FONTSET)
    try:
        parsed = _parser.parse(f"${_for_mathtext(tex)}$", dpi=72 * style.ratio, prop=prop)
    except Exception:  # mathtext's parse errors (ValueError) and anything its fonts raise
        return None
    mask = np.asarray(parsed.image, dtype=np.uint8)
    rows, cols = mask.shape
    if not rows or not cols or rows * cols > MAX_PIXELS:
        return None
    if block:
        return mask
    # Qt centres an inline image (vertical-align: middle) half an x-height above the baseline:
    # pad the top or the bottom so that the formula's baseline lands on the text's.
    ascent = parsed.height - parsed.depth
    shift = round(style.x_height / 2 * style.ratio + rows - 2 * ascent)
    return np.pad(mask, ((max(shift, 0), max(-shift, 0)), (0, 0)))


def _tint(mask: Any, tex: str, block: bool, style: MathStyle) -> Drawn:
    import numpy as np

    rows, cols = mask.shape
    colour = QColor(style.colour)
    pixels = np.empty((rows, cols, 4), dtype=np.uint8)
    alpha = mask.astype(np.uint16)
    for channel, value in enumerate((colour.red(), colour.green(), colour.blue())):
        pixels[:, :, channel] = (alpha * value + 127) // 255  # premultiplied
    pixels[:, :, 3] = mask
    image = QImage(
        pixels.data, cols, rows, cols * 4, QImage.Format.Format_RGBA8888_Premultiplied
    ).copy()  # the array's memory is freed with it
    image.setDevicePixelRatio(style.ratio)
    # Named by all it depends on: a stored and a streamed message hold the same names.
    digest = hashlib.blake2b(repr((tex, block, style)).encode(), digest_size=10).hexdigest()
    name = f"{RESOURCE_SCHEME}:{'d' if block else 'i'}{digest}"
    return Drawn(name, image, cols / style.ratio, rows / style.ratio)


def _for_mathtext(tex: str) -> str:
    def rename(match: re.Match[str]) -> str:
        name = match.group(1)
        return r"\operatorname" if name is None else _RENAMED[name]

    return _MACRO.sub(rename, tex.replace("\n", " "))
