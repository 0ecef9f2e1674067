"""Rendering a reply as it streams: final blocks are rendered once, only the open block again."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import pytest
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QTextBrowser

from app.chat.message import document as message_document
from app.chat.message.widget import MessageWidget
from app.common.theme import DARK, LIGHT

if TYPE_CHECKING:
    from pytestqt.qtbot import QtBot

PARAGRAPH = (
    "The **lighthouse** keeper climbed the stairs each evening, counting steps and listening "
    "to the `wind` against the glass; [the log](https://example.com) recorded every ship.\n\n"
)
CODE = "```python\ndef beam(angle: float) -> float:\n    return angle % 360  # sweep\n```\n\n"
LIST = "".join(f"{i}. Step number {i} of the routine\n" for i in range(1, 13)) + "\n"


def synthetic_reply(blocks: int = 60) -> str:
    parts = [PARAGRAPH, CODE, LIST]
    return "".join(parts[i % 3] for i in range(blocks))


def stream(widget: MessageWidget, text: str, piece: int = 5) -> None:
    widget.start_stream()
    for i in range(0, len(text), piece):
        widget.append(text[i : i + piece])
    widget.finish("complete")


def test_streamed_and_stored_renderings_are_identical(qtbot: QtBot) -> None:
    text = synthetic_reply(20)
    streamed = MessageWidget("assistant", LIGHT)
    stored = MessageWidget("assistant", LIGHT)
    for widget in (streamed, stored):
        qtbot.addWidget(widget)
        widget.resize(700, 400)
    stream(streamed, text, piece=3)
    stored.set_text(text)
    assert streamed.to_html() == stored.to_html()
    assert len(streamed.bodies) == len(stored.bodies) > 1
    assert streamed.text == text
    assert len(streamed.renderer.code_blocks) == text.count("```python")


def test_update_cost_does_not_grow_with_the_reply(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    rendered: list[int] = []
    original = message_document.markdown_to_html

    def counting(source: str) -> str:
        rendered.append(len(source))
        return original(source)

    monkeypatch.setattr(message_document, "markdown_to_html", counting)
    widget = MessageWidget("assistant", LIGHT)
    qtbot.addWidget(widget)
    text = synthetic_reply(90)
    stream(widget, text)
    assert len(text) > 15_000
    # Each update renders at most the open block, never the message so far.
    assert max(rendered) < 1_000
    shown = "".join(body.toPlainText() for body in widget.bodies)
    assert shown.count("def beam") == 30


def test_copy_buttons_copy_code_and_message(qtbot: QtBot) -> None:
    widget = MessageWidget("assistant", LIGHT)
    qtbot.addWidget(widget)
    widget.set_text("Intro\n\n```python\nprint('hi')\n```\n")
    anchors = []
    block = widget.body.document().begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fmt = it.fragment().charFormat()
            if fmt.isAnchor():
                anchors.append(fmt.anchorHref())
            it += 1
        block = block.next()
    assert anchors == ["copy:0"]
    from PySide6.QtCore import QUrl

    widget.body.anchorClicked.emit(QUrl("copy:0"))
    assert QGuiApplication.clipboard().text() == "print('hi')"
    widget.copy_message()
    assert QGuiApplication.clipboard().text() == widget.text


def test_code_is_highlighted_per_theme(qtbot: QtBot) -> None:
    colours = {}
    for colors in (LIGHT, DARK):
        widget = MessageWidget("assistant", colors)
        qtbot.addWidget(widget)
        widget.set_text("```python\ndef f():\n    return 1\n```")
        frames = [f for f in widget.body.document().rootFrame().childFrames()]
        assert len(frames) == 1
        colours[colors.pygments_style] = frames[0].frameFormat().background().color().name()
        keyword = _format_of(widget.body, "def").foreground().color().name()
        number = _format_of(widget.body, "1").foreground().color().name()
        assert keyword != number  # highlighted
    assert colours["default"] == LIGHT.code_bg and colours["github-dark"] == DARK.code_bg


def _format_of(body: QTextBrowser, word: str):  # type: ignore[no-untyped-def]
    doc = body.document()
    cursor = doc.find(word)
    assert not cursor.isNull()
    return cursor.charFormat()


def test_unsafe_markdown_is_inert(qtbot: QtBot) -> None:
    widget = MessageWidget("assistant", LIGHT)
    qtbot.addWidget(widget)
    widget.set_text("<img src='file:///etc/passwd'> ![x](file:///etc/passwd) <b>bold?</b>")
    plain = widget.body.toPlainText()
    assert "<img" in plain and "<b>bold?</b>" in plain
    assert "<img" not in widget.body.toHtml().split("<body", 1)[1].replace("&lt;img", "")


def test_the_qt_binding_does_not_leak_none_after_the_guard() -> None:
    from app.common.qt_compat import keep_none_alive, none_leak_per_call

    keep_none_alive()
    before = sys.getrefcount(None)
    assert none_leak_per_call() in (0, 1)
    assert sys.getrefcount(None) > 1 << 40 or before - sys.getrefcount(None) < 10


def test_a_reasoning_models_thinking_streams_above_its_answer_then_folds(qtbot: QtBot) -> None:
    from PySide6.QtCore import Qt

    widget = MessageWidget("assistant", LIGHT)
    qtbot.addWidget(widget)
    widget.show()
    widget.start_stream()
    for piece in ("The user asks ", "for 2+2. <b>Adding</b>", " gives 4."):
        widget.append_reasoning(piece)
    panel = widget.reasoning
    assert panel is not None and panel.toggle.text() == "Thinking… · 8 words"
    assert panel.body.isVisibleTo(widget)  # open, streaming, while the model thinks
    assert widget._outer.indexOf(panel) < widget._outer.indexOf(widget.text_box)  # above it
    widget.append("It is 4.")
    assert not panel.body.isVisibleTo(widget)  # folded as the answer starts
    assert panel.toggle.text() == "Reasoning · 8 words"
    widget.finish("complete", {"reasoning": panel.text})
    assert panel.toggle.text() == "Reasoning · 8 words"
    panel.toggle.click()
    assert panel.body.isVisibleTo(widget) and panel.body.textFormat() == Qt.TextFormat.PlainText
    assert panel.body.text() == "The user asks for 2+2. <b>Adding</b> gives 4."
    # Reopened from the history: the same, from the reply's meta.
    stored = MessageWidget("assistant", LIGHT)
    qtbot.addWidget(stored)
    stored.set_text("It is 4.")
    stored.finish("complete", {"reasoning": panel.text})
    assert stored.reasoning is not None and stored.reasoning.toggle.text() == "Reasoning · 8 words"


def test_a_long_code_line_scrolls_sideways_and_is_never_cut(qtbot: QtBot) -> None:
    widget = MessageWidget("assistant", LIGHT)
    qtbot.addWidget(widget)
    widget.resize(420, 300)
    widget.show()
    line = "result = compute(" + ", ".join(f"argument_{i}" for i in range(40)) + ")"
    widget.set_text(f"Here:\n\n```python\n{line}\n```\n\nDone.")
    widget.finish("complete", {})
    qtbot.waitUntil(lambda: any(b.horizontalScrollBar().maximum() > 0 for b in widget.bodies))
    body = next(b for b in widget.bodies if b.horizontalScrollBar().maximum() > 0)
    bar = body.horizontalScrollBar()
    # The whole line can be reached, and the bar does not cover the text.
    assert bar.maximum() + body.viewport().width() >= body.document().size().width() - 2
    assert body.height() >= body.document().size().height() + bar.sizeHint().height()
