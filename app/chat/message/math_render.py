"""TeX math in a message's document: each ``<cove-math>`` element of rendered Markdown (see
:mod:`app.chat.message.math_source`) becomes an image resource of the document that an ``<img>``
refers to, with the TeX as its alt text and title, inline in the text or centred on its own line;
a formula the renderer cannot draw becomes its source in the code font. Copying a selection gives
each formula's TeX back.

Until the renderer (:mod:`app.chat.message.math_draw`) is loaded, the open block of a streaming
reply shows formulas as their source, a complete block waits for it, and a stored message being
loaded in steps (``render_some``) yields its step instead of waiting.
"""

from __future__ import annotations

import html
import re
import time

from PySide6.QtCore import QUrl
from PySide6.QtGui import (
    QFont,
    QFontInfo,
    QFontMetrics,
    QGuiApplication,
    QTextCursor,
    QTextDocument,
    QTextFormat,
)

from app.chat.message import math_draw
from app.chat.message.math_draw import RESOURCE_SCHEME, MathStyle, draw, is_drawn
from app.chat.message.math_source import PLACEHOLDER, TAG

# What may open a formula (not "$5"): reason enough to start importing the renderer.
_MAY_OPEN = re.compile(r"\$[^\s\d]|\\[(\[]")


# -- documents ---------------------------------------------------------------------------------


def style_for(font: QFont, colour: str) -> MathStyle:
    app = QGuiApplication.instance()
    ratio = app.devicePixelRatio() if isinstance(app, QGuiApplication) else 1.0
    return MathStyle(colour, QFontInfo(font).pixelSize(), QFontMetrics(font).xHeight(), ratio)


class DocumentMath:
    """Turns the formulas of rendered Markdown (``<cove-math>`` elements) into images of one
    document's font and colour."""

    def __init__(self, colour: str) -> None:
        self.colour = colour

    def notice(self, text: str) -> None:
        """Streamed or loaded text: the renderer starts loading at the first sign of a formula,
        so that it is usually ready by the time the formula's block is complete."""
        if not math_draw.renderer_ready() and _MAY_OPEN.search(text):
            math_draw.start_loading()

    def resolve(self, markup: str, document: QTextDocument, *, final: bool) -> str:
        """``markup`` with its formulas as images. Not ``final`` (the open block of a streaming
        reply) and the renderer not loaded yet: formulas show as their source meanwhile."""
        if TAG not in markup:
            return markup
        if not math_draw.renderer_ready():
            math_draw.start_loading()
            if not final:
                return PLACEHOLDER.sub(_as_text, markup)
            math_draw.wait_for_renderer()
        style = style_for(document.defaultFont(), self.colour)
        return PLACEHOLDER.sub(lambda m: _as_image(m, document, style), markup)

    def prepare(self, markup: str, document: QTextDocument, deadline: float) -> bool:
        """Draw the formulas of ``markup`` until ``deadline``; True when all are drawn (what
        ``resolve`` then costs is a cache look-up)."""
        if TAG not in markup:
            return True
        if not math_draw.renderer_ready():
            math_draw.start_loading()
            return False
        style = style_for(document.defaultFont(), self.colour)
        formulas = (_formula(match) for match in PLACEHOLDER.finditer(markup))
        waiting = [(tex, block) for tex, block in formulas if not is_drawn(tex, block, style)]
        for i, (tex, block) in enumerate(waiting):
            draw(tex, block, style)  # at least one per call, however late: every step progresses
            if i + 1 < len(waiting) and time.perf_counter() >= deadline:
                return False
        return True


def _formula(match: re.Match[str]) -> tuple[str, bool]:
    """(TeX, whether a display block) of a ``<cove-math>`` element."""
    return html.unescape(match["tex"]), match["mode"] == "block"


def _as_text(match: re.Match[str]) -> str:
    source = match["source"]
    return f"<p>{source}</p>" if match["mode"] == "block" else source


def _as_image(match: re.Match[str], document: QTextDocument, style: MathStyle) -> str:
    tex, block = _formula(match)
    drawn = draw(tex, block, style)
    if drawn is None:
        source = match["source"]
        return f"<pre><code>{source}</code></pre>" if block else f"<code>{source}</code>"
    document.addResource(QTextDocument.ResourceType.ImageResource, QUrl(drawn.name), drawn.image)
    alt = match["tex"]  # escaped
    image = (
        f'<img src="{drawn.name}" width="{drawn.width:g}" height="{drawn.height:g}" '
        f'alt="{alt}" title="{alt}"'
    )
    if block:
        return f'<p align="center">{image} /></p>'
    return f'{image} style="vertical-align: middle" />'


# -- copying -----------------------------------------------------------------------------------

_PLAIN = str.maketrans({"\u2028": "\n", "\u00a0": " "})


def math_source(fmt: QTextFormat) -> str | None:
    """The TeX of a formula's image, with its delimiters (``$…$`` or ``$$…$$``); None for any
    other text or image."""
    if not fmt.isImageFormat():
        return None
    name = fmt.toImageFormat().name()
    prefix = f"{RESOURCE_SCHEME}:"
    if not name.startswith(prefix):
        return None
    tex = str(fmt.property(QTextFormat.Property.ImageAltText) or "")
    delimiter = "$$" if name[len(prefix) : len(prefix) + 1] == "d" else "$"
    return f"{delimiter}{tex}{delimiter}"


def selection_text(cursor: QTextCursor) -> str | None:
    """The selected text with each formula as its TeX source; None when the selection holds no
    formula (Qt's own plain text is then right)."""
    start, end = cursor.selectionStart(), cursor.selectionEnd()
    document = cursor.document()
    lines: list[str] = []
    found = False
    block = document.findBlock(start)
    while block.isValid() and block.position() < end:
        parts: list[str] = []
        it = block.begin()
        while not it.atEnd():
            fragment = it.fragment()
            first = max(fragment.position(), start)
            last = min(fragment.position() + fragment.length(), end)
            if first < last:
                tex = math_source(fragment.charFormat())
                if tex is not None:
                    found = True
                    parts.append(tex * (last - first))  # equal images side by side: one fragment
                else:
                    offset = fragment.position()
                    parts.append(fragment.text()[first - offset : last - offset])
            it += 1
        lines.append("".join(parts).translate(_PLAIN))
        block = block.next()
    return "\n".join(lines) if found else None
