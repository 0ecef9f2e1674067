"""Markdown that arrives a few characters at a time, cut into blocks that are final.

A reply is rendered block by block: once a block can no longer change (a blank line and a new
unindented line follow it, or a code fence closes) it is rendered once and never touched again. Only
the open block at the end is rendered again as text arrives, so the cost of an update does not grow
with the length of the reply. The cut depends only on the text, not on how it was chunked, so a
reply rendered while streaming looks exactly like the same reply loaded from disk. Display math
(``$$``/``\\[``) left open keeps its lines in one block until it closes, so a formula is never cut
(see :mod:`app.chat.message.math_source`).

Qt-free: the splitter emits events that the Qt document writer applies.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from app.chat.message.math_source import MAX_MATH_LINES, math_plugin, math_state

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

# A fenced code block opener: up to a few spaces (fences inside list items are indented), three or
# more backticks or tildes, then an optional info string whose first word is the language.
_FENCE = re.compile(r"^(?P<indent> {0,8})(?P<fence>`{3,}|~{3,})\s*(?P<info>[^`]*)$")
# Lines that start a new block even without a blank line before them.
_HEADING = re.compile(r"^ {0,3}#{1,6}(\s|$)")
_LIST_ITEM = re.compile(r"^(?:[-*+]|\d{1,9}[.)])\s")
# A long tight list or paragraph run is cut at its next list item once it has this many lines, so
# that even a reply made of one 100-item list keeps a small open block.
MAX_OPEN_LINES = 8


@dataclass(frozen=True, slots=True)
class MarkdownBlock:
    """A finished run of Markdown (paragraphs, a list, a table, a heading...)."""

    source: str


@dataclass(frozen=True, slots=True)
class CodeStarted:
    language: str


@dataclass(frozen=True, slots=True)
class CodeLine:
    text: str


@dataclass(frozen=True, slots=True)
class CodeEnded:
    pass


Event = MarkdownBlock | CodeStarted | CodeLine | CodeEnded


class BlockSplitter:
    """Feed text; get the events for what became final. ``open_markdown`` / ``open_code_line``
    hold what is still open (exactly one of them is meaningful, depending on ``in_code``)."""

    def __init__(self) -> None:
        self._partial = ""  # the current line, not yet ended by a newline
        self._lines: list[str] = []  # complete lines of the open Markdown block
        self._blank_after = False  # the open block is followed by blank line(s)
        self._fence: str | None = None  # the opening fence while inside a code block
        self._fence_indent = 0
        self._math: str | None = None  # the delimiter an open display formula waits for
        self._math_lines = 0

    @property
    def in_code(self) -> bool:
        return self._fence is not None

    @property
    def open_markdown(self) -> str:
        """The Markdown block that is still open, including the line being typed."""
        if self._fence is not None:
            return ""
        lines = list(self._lines)
        if self._partial:
            if self._blank_after and lines:
                lines.append("")
            lines.append(self._partial)
        return "\n".join(lines)

    @property
    def open_code_line(self) -> str:
        if self._fence is None:
            return ""
        return _dedent(self._partial, self._fence_indent)

    def feed(self, text: str) -> list[Event]:
        events: list[Event] = []
        if not text:
            return events
        data = self._partial + text.replace("\r\n", "\n").replace("\r", "\n")
        *complete, self._partial = data.split("\n")
        for line in complete:
            self._line(line, events)
        return events

    def finish(self) -> list[Event]:
        """The text is complete: close whatever is open."""
        events: list[Event] = []
        if self._partial:
            line, self._partial = self._partial, ""
            self._line(line, events)
        if self._fence is not None:
            events.append(CodeEnded())
            self._fence = None
        self._commit(events)
        return events

    def _line(self, line: str, events: list[Event]) -> None:
        if self._fence is not None:
            stripped = line.strip()
            if stripped and set(stripped) == {self._fence[0]} and len(stripped) >= len(self._fence):
                events.append(CodeEnded())
                self._fence = None
            else:
                events.append(CodeLine(_dedent(line, self._fence_indent)))
            return
        fence = _FENCE.match(line)
        if fence and not (fence["fence"][0] == "`" and "`" in fence["info"]):
            self._commit(events)
            self._fence = fence["fence"]
            self._fence_indent = len(fence["indent"])
            language = fence["info"].strip().split(" ", 1)[0] if fence["info"].strip() else ""
            events.append(CodeStarted(language))
            return
        if self._math is not None:
            self._math_line(line)
            return
        if not line.strip():
            if self._lines:
                self._blank_after = True
            return
        starts_block = bool(_HEADING.match(line))
        continues = line[:1].isspace()
        if self._lines and (
            (self._blank_after and not continues)
            or starts_block
            or _HEADING.match(self._lines[-1])
            or (len(self._lines) >= MAX_OPEN_LINES and _LIST_ITEM.match(line))
        ):
            self._commit(events)
        elif self._blank_after:
            self._lines.append("")
        self._blank_after = False
        self._lines.append(line)
        self._math = math_state(line, None)
        self._math_lines = 0

    def _math_line(self, line: str) -> None:
        """A line of an open display formula: kept in the block whatever it looks like."""
        self._lines.append(line)
        self._math = math_state(line, self._math)
        self._math_lines += 1
        if self._math_lines >= MAX_MATH_LINES:
            self._math = None  # a stray delimiter, not a formula: the usual cuts apply again

    def _commit(self, events: list[Event]) -> None:
        if self._lines:
            events.append(MarkdownBlock("\n".join(self._lines)))
        self._lines = []
        self._blank_after = False
        self._math = None


def split_all(text: str) -> list[Event]:
    """Every event for a complete text (what a stored message renders from)."""
    splitter = BlockSplitter()
    return splitter.feed(text) + splitter.finish()


def _dedent(line: str, indent: int) -> str:
    if not indent:
        return line
    spaces = len(line) - len(line.lstrip(" "))
    return line[min(spaces, indent) :]


_MARKDOWN_LOCK = threading.Lock()


def _markdown() -> MarkdownIt:
    # Built once; the warm-up on a worker and the UI thread may both ask first.
    with _MARKDOWN_LOCK:
        return _build_markdown()


@lru_cache(maxsize=1)
def _build_markdown() -> MarkdownIt:
    # Imported on first use: the window paints before any Markdown is rendered.
    from markdown_it import MarkdownIt

    # Raw HTML in a model's reply is shown as text, never interpreted.
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.enable(["table", "strikethrough"])
    md.disable("image")
    md.use(math_plugin)
    md.add_render_rule("fence", _render_fence_inline)
    md.add_render_rule("code_block", _render_fence_inline)
    return md


def _render_fence_inline(
    self: Any, tokens: Any, idx: int, options: Any, env: Any
) -> str:  # pragma: no cover - fences are cut out by the splitter; indented code lands here
    from html import escape

    return f"<pre>{escape(tokens[idx].content)}</pre>"


def markdown_to_html(source: str) -> str:
    """One block of Markdown as the HTML subset QTextDocument understands."""
    html: str = _markdown().render(source)
    return html
