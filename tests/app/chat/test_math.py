"""TeX math in messages: found in the Markdown, drawn as images, streamed without flicker."""

from __future__ import annotations

import html
import threading
from typing import TYPE_CHECKING

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QImage, QTextDocument, QTextFormat
from PySide6.QtWidgets import QTextBrowser

from app.chat.message import math_draw
from app.chat.message.document import code_font
from app.chat.message.markdown_stream import MarkdownBlock, markdown_to_html, split_all
from app.chat.message.math_source import MAX_MATH_LINES, PLACEHOLDER
from app.chat.message.widget import MessageWidget
from app.common.theme import DARK, LIGHT

if TYPE_CHECKING:
    from pytestqt.qtbot import QtBot

REPLY = (
    "Euler's identity $e^{i\\pi} + 1 = 0$ joins five constants, and \\(x_i^2\\) is inline too.\n"
    "\n"
    "$$\n"
    "\\int_0^\\infty e^{-x^2}\\,dx = \\frac{\\sqrt{\\pi}}{2}\n"
    "$$\n"
    "\n"
    "A sum: \\[\\sum_{n=1}^{N} n\\] and the price is $5 and $10.\n"
    "\n"
    "```python\n"
    "cost = '$x$'\n"
    "```\n"
    "\n"
    "Done with `$y$` in code.\n"
)


def formulas(body: QTextBrowser) -> list[tuple[str, str]]:
    """(resource name, alt text) of every formula image in the document, in order."""
    found = []
    block = body.document().begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fmt = it.fragment().charFormat()
            if fmt.isImageFormat():
                image = fmt.toImageFormat()
                alt = str(image.property(QTextFormat.Property.ImageAltText))
                found.append((image.name(), alt))
            it += 1
        block = block.next()
    return found


def shown(widget: MessageWidget) -> str:
    return "".join(body.toPlainText() for body in widget.bodies)


def reply_widget(qtbot: QtBot) -> MessageWidget:
    widget = MessageWidget("assistant", LIGHT)
    qtbot.addWidget(widget)
    widget.resize(700, 400)
    return widget


# -- finding math (Qt-free) --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "tex"),
    [
        ("a $x^2$ b", ["x^2"]),
        ("a \\(x\\) b", ["x"]),
        ("a $$y$$ b", ["y"]),
        ("a \\[z\\] b", ["z"]),
        ("costs $5 and $10", []),
        ("from $5 to $6, or $7", []),
        ("between $6$ and", ["6"]),
        ("$x$5 is money", []),
        ("escaped \\$x$ is text", []),
        ("$ x$ opens on a space", []),
        ("code `$x$` span", []),
        ("$$\n\\frac{a}{b}\n$$", ["\\frac{a}{b}"]),
    ],
)
def test_math_is_found_by_pandocs_rules(source: str, tex: list[str]) -> None:
    found = PLACEHOLDER.finditer(markdown_to_html(source))
    assert [html.unescape(match["tex"]) for match in found] == tex


def test_the_splitter_keeps_a_display_formula_whole() -> None:
    text = "Intro\n\n$$\na\n\nb\n\n# c\n- d\n$$\n\nAfter\n"
    assert split_all(text) == [
        MarkdownBlock("Intro"),
        MarkdownBlock("$$\na\n\nb\n\n# c\n- d\n$$"),
        MarkdownBlock("After"),
    ]
    bracketed = "\\[\nx\n\n\\]\n\nNext\n"
    assert split_all(bracketed) == [MarkdownBlock("\\[\nx\n\n\\]"), MarkdownBlock("Next")]


def test_a_stray_display_delimiter_does_not_hold_the_reply() -> None:
    text = "It costs $$$ here.\n\n" + "".join(f"Line {i}\n\n" for i in range(60))
    blocks = split_all(text)
    assert MAX_MATH_LINES < 60 and MarkdownBlock("Line 59") in blocks  # cut again, in the end


# -- drawing -----------------------------------------------------------------------------------


def test_inline_and_display_math_become_images_with_their_tex(qtbot: QtBot) -> None:
    widget = reply_widget(qtbot)
    widget.set_text(REPLY)
    alts = [alt for _name, alt in formulas(widget.body)]
    assert alts == [
        "e^{i\\pi} + 1 = 0",
        "x_i^2",
        "\\int_0^\\infty e^{-x^2}\\,dx = \\frac{\\sqrt{\\pi}}{2}",
        "\\sum_{n=1}^{N} n",
    ]
    text = shown(widget)
    assert "$5 and $10" in text  # money stays text
    assert "cost = '$x$'" in text and "$y$" in text  # code stays code
    assert 'title="e^{i\\pi} + 1 = 0"' in widget.body.toHtml()
    assert widget.text == REPLY


def test_display_math_is_centered_on_its_own_line(qtbot: QtBot) -> None:
    widget = reply_widget(qtbot)
    widget.set_text("Before\n\n$$a^2 + b^2 = c^2$$\n\nAfter\n")
    document = widget.body.document()
    block = document.findBlockByNumber(1)
    assert block.text().strip() == "\ufffc"
    assert block.blockFormat().alignment() & Qt.AlignmentFlag.AlignHCenter


def test_images_are_drawn_in_the_themes_text_colour(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    widget = reply_widget(qtbot)
    widget.set_text("A square: $\\blacksquare$\n")
    light = _ink(widget)
    parsed: list[object] = []
    monkeypatch.setattr(math_draw, "_parser", CountingParser(math_draw._parser, parsed))
    widget.set_colors(DARK)
    dark = _ink(widget)
    assert parsed == []  # the new theme tints what the old one drew
    for got, colors in ((light, LIGHT), (dark, DARK)):
        want = QColor(colors.text)
        assert abs(got.red() - want.red()) + abs(got.green() - want.green()) <= 6
        assert abs(got.blue() - want.blue()) <= 3


class CountingParser:
    def __init__(self, parser: object, calls: list[object]) -> None:
        self._parser = parser
        self.calls = calls

    def parse(self, *args: object, **kwargs: object) -> object:
        self.calls.append(args[0])
        return self._parser.parse(*args, **kwargs)  # type: ignore[attr-defined]


def _ink(widget: MessageWidget) -> QColor:
    """The colour of the formula image's most opaque pixel."""
    ((name, _alt),) = formulas(widget.body)
    image = widget.body.document().resource(QTextDocument.ResourceType.ImageResource, name)
    assert isinstance(image, QImage)
    image = image.convertToFormat(QImage.Format.Format_ARGB32)
    best = QColor(0, 0, 0, 0)
    for y in range(image.height()):
        for x in range(image.width()):
            pixel = image.pixelColor(x, y)
            if pixel.alpha() > best.alpha():
                best = pixel
    assert best.alpha() > 128
    return best


def test_tex_the_renderer_cannot_draw_is_shown_as_source_in_the_code_font(qtbot: QtBot) -> None:
    widget = reply_widget(qtbot)
    widget.set_text("Bad $\\frac{a$ here.\n\n$$\n\\begin{pmatrix} a \\\\ b \\end{pmatrix}\n$$\n")
    assert formulas(widget.body) == []
    text = shown(widget)
    assert "$\\frac{a$" in text and "\\begin{pmatrix} a \\\\ b \\end{pmatrix}" in text
    for source in ("\\frac{a", "\\begin{pmatrix}"):
        families = widget.body.document().find(source).charFormat().fontFamilies()
        assert isinstance(families, list) and code_font().family() in families


def test_formulas_are_copied_as_their_tex(qtbot: QtBot) -> None:
    widget = reply_widget(qtbot)
    text = "Euler $e^{i\\pi}$ and\n\n$$x^2$$\n"
    widget.set_text(text)
    widget.copy_message()
    assert QGuiApplication.clipboard().text() == text
    widget.body.selectAll()
    copied = widget.body.createMimeDataFromSelection()
    assert copied.text().split() == ["Euler", "$e^{i\\pi}$", "and", "$$x^2$$"]


# -- streaming ---------------------------------------------------------------------------------


def test_unclosed_math_streams_as_text_until_it_closes(qtbot: QtBot) -> None:
    widget = reply_widget(qtbot)
    widget.start_stream()
    widget.append("So $a^")
    assert formulas(widget.body) == [] and "$a^" in shown(widget)
    widget.append("2$ and\n\n$$\n\\frac{1}")
    assert [alt for _n, alt in formulas(widget.body)] == ["a^2"]
    assert "$$" in shown(widget) and "\\frac{1}" in shown(widget)
    widget.append("{2}\n$")
    assert len(formulas(widget.body)) == 1  # "$$" not complete yet
    widget.append("$\n")
    assert [alt for _n, alt in formulas(widget.body)] == ["a^2", "\\frac{1}{2}"]
    widget.finish("complete")


def test_streaming_char_by_char_renders_what_loading_renders(qtbot: QtBot) -> None:
    streamed = reply_widget(qtbot)
    stored = reply_widget(qtbot)
    streamed.start_stream()
    for char in REPLY:
        streamed.append(char)
    streamed.finish("complete")
    stored.set_text(REPLY)
    assert streamed.to_html() == stored.to_html()
    assert formulas(streamed.body) == formulas(stored.body)
    assert shown(streamed) == shown(stored)


def test_a_stored_message_is_loaded_in_steps_with_its_formulas(qtbot: QtBot) -> None:
    text = "".join(f"Step {i}: $x_{{{i}}} = {i}^2$ and $\\sqrt{{{i}}}$\n\n" for i in range(30))
    stepped = reply_widget(qtbot)
    stepped.load_text(text)
    steps = 1
    while not stepped.load_step(0.0):  # a deadline long past: one block per step
        steps += 1
    stepped.finish("complete", {})
    whole = reply_widget(qtbot)
    whole.set_text(text)
    assert steps > 1
    assert stepped.to_html() == whole.to_html()


# -- before the renderer is loaded -------------------------------------------------------------


@pytest.fixture
def renderer_loading(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """The renderer as if its import were still running on the worker thread; set the event to
    let it finish."""
    math_draw.wait_for_renderer()
    ready = threading.Event()
    monkeypatch.setattr(math_draw, "_ready", ready)
    monkeypatch.setattr(math_draw, "start_loading", lambda: None)
    return ready


def test_the_open_block_shows_source_while_the_renderer_loads(
    qtbot: QtBot, renderer_loading: threading.Event
) -> None:
    widget = reply_widget(qtbot)
    widget.start_stream()
    widget.append("Area $\\pi r^2$ of")
    assert formulas(widget.body) == [] and "$\\pi r^2$" in shown(widget)
    renderer_loading.set()
    widget.append(" a circle")
    assert [alt for _n, alt in formulas(widget.body)] == ["\\pi r^2"]


def test_loading_in_steps_waits_for_the_renderer_without_blocking(
    qtbot: QtBot, renderer_loading: threading.Event
) -> None:
    widget = reply_widget(qtbot)
    widget.load_text("Plain first.\n\nThen $\\alpha$.\n")
    assert not widget.load_step(0.0)  # the plain block
    assert not widget.load_step(0.0)  # the formula's block waits
    assert not widget.load_step(0.0)
    assert shown(widget).startswith("Plain first.") and "alpha" not in shown(widget)
    renderer_loading.set()
    assert widget.load_step(0.0)
    assert [alt for _n, alt in formulas(widget.body)] == ["\\alpha"]
