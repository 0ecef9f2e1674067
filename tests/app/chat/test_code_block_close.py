"""A streamed code block's colours are checked against the whole block's when its fence closes,
in slices between events."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from app.chat.message import code_colours
from app.chat.message.widget import MessageWidget
from app.common.theme import DARK, LIGHT

if TYPE_CHECKING:
    from pytestqt.qtbot import QtBot

# The docstring's middle lines look like code to a lexer that sees one line at a time.
CODE = (
    "Some code:\n\n```python\n"
    "def f(x: int) -> int:\n"
    '    """Double it.\n'
    "    return x  # not code: inside the string\n"
    '    """\n'
    + "".join(f"    y_{i} = x * {i}  # line {i}\n" for i in range(40))
    + "    return 2 * x\n```\n\nAfter.\n"
)


@pytest.fixture
def one_token_a_slice(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(code_colours, "SLICE_S", 0.0)


def stream(widget: MessageWidget, text: str) -> None:
    widget.start_stream()
    for i in range(0, len(text), 4):
        widget.append(text[i : i + 4])
    widget.finish("complete")


def widgets(qtbot: QtBot) -> tuple[MessageWidget, MessageWidget]:
    pair = (MessageWidget("assistant", LIGHT), MessageWidget("assistant", LIGHT))
    for widget in pair:
        qtbot.addWidget(widget)
        widget.resize(700, 400)
    return pair


def test_a_streamed_block_ends_coloured_as_a_loaded_one(
    qtbot: QtBot, one_token_a_slice: None
) -> None:
    streamed, stored = widgets(qtbot)
    stream(streamed, CODE)
    stored.set_text(CODE)
    assert streamed.body.toPlainText() == stored.body.toPlainText()  # the text at once
    qtbot.waitUntil(lambda: streamed.to_html() == stored.to_html())
    assert streamed.renderer.code_blocks == stored.renderer.code_blocks


def test_a_cleared_document_stops_the_colouring(qtbot: QtBot, one_token_a_slice: None) -> None:
    streamed, stored = widgets(qtbot)
    stream(streamed, CODE)
    streamed.set_colors(DARK)  # the document is cleared and rendered again
    stored.set_colors(DARK)
    stored.set_text(CODE)
    qtbot.waitUntil(lambda: streamed.to_html() == stored.to_html())
    streamed.set_text("Another text")  # cleared again while nothing is left to colour
    assert streamed.body.toPlainText().strip() == "Another text"


def test_an_empty_block_closes_cleanly(qtbot: QtBot) -> None:
    streamed, stored = widgets(qtbot)
    text = "Nothing:\n\n```\n```\n\nDone.\n"
    stream(streamed, text)
    stored.set_text(text)
    qtbot.waitUntil(lambda: streamed.to_html() == stored.to_html())
