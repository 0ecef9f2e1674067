"""One message's Markdown written into a QTextDocument incrementally.

Blocks that are final (see :mod:`app.chat.message.markdown_stream`) are inserted once at the end of
the document through a QTextCursor and never touched again; only the open block at the end (the
"tail") is removed and inserted again on each update. Code blocks are frames whose lines are
appended as they complete, so even a long code block costs one line per update; the block is
highlighted once more as a whole when its fence closes (a line-by-line lexer can miss multi-line
strings and comments), in slices between events (:mod:`app.chat.message.code_colours`).

TeX math in the Markdown becomes images (:mod:`app.chat.message.math_render`); a stored message
loaded in steps draws its formulas within the step's time as well.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontDatabase,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextDocumentFragment,
    QTextFrame,
    QTextFrameFormat,
    QTextLength,
)

from app.chat.message.code_colours import Recolour
from app.chat.message.highlight import Highlighter
from app.chat.message.markdown_stream import (
    BlockSplitter,
    CodeEnded,
    CodeLine,
    CodeStarted,
    Event,
    MarkdownBlock,
    markdown_to_html,
)
from app.chat.message.math_render import DocumentMath
from app.common.theme import Colors

__all__ = [
    "COPY_SCHEME",
    "SEGMENT_CHARS",
    "MessageRenderer",
    "copy_index",
    "document_stylesheet",
    "markdown_to_html",
    "preparing_types",
    "text_ready",
    "warm_up",
    "warm_up_text",
]

COPY_SCHEME = "copy"
# A message's text continues in a new document after this many characters (see MessageRenderer).
SEGMENT_CHARS = 2500
_BETWEEN_TAGS = re.compile(r">\s*\n\s*<")


def code_font() -> QFont:
    return QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)


def document_stylesheet(c: Colors) -> str:
    mono = code_font().family()
    return (
        f"code {{ background-color: {c.inline_code_bg}; font-family: '{mono}'; }}"
        f"a {{ color: {c.accent}; }}"
        f"blockquote {{ color: {c.muted}; }}"
        f"th {{ background-color: {c.inline_code_bg}; }}"
        "table { border-collapse: collapse; }"
        f"td, th {{ border: 1px solid {c.border}; padding: 3px 6px; }}"
        "p, ul, ol, table, pre { margin-top: 5px; margin-bottom: 5px; }"
        "h1, h2, h3, h4, h5, h6 { margin-top: 10px; margin-bottom: 4px; }"
        "h1 { font-size: x-large; } h2 { font-size: large; } h3 { font-size: medium; }"
        "blockquote { margin-left: 14px; margin-top: 5px; margin-bottom: 5px; }"
        "li { margin-top: 2px; margin-bottom: 2px; }"
    )


@dataclass
class _OpenCode:
    frame: QTextFrame
    language: str
    index: int
    lines: list[str] = field(default_factory=list)


class MessageRenderer:
    """Renders Markdown into ``document`` as it arrives; ``code_blocks`` holds each code block's
    text (the copy links refer to it by index).

    With ``next_document``, a long message continues in a fresh document once the current one
    holds ``SEGMENT_CHARS`` (switching only between blocks): laying out and painting a document
    costs more the more blocks it has, so a long reply is a column of small documents and an
    update near its end costs what one near its start did.
    """

    def __init__(
        self,
        document: QTextDocument,
        colors: Colors,
        next_document: Callable[[], QTextDocument] | None = None,
    ) -> None:
        self.colors = colors
        self._next_document = next_document
        self._use(document)
        self.code_blocks: list[str] = []
        self._splitter = BlockSplitter()
        # The last block is an empty placeholder (the document's first block, or the block Qt
        # keeps after a frame): the next insert fills it instead of starting a new block.
        self._placeholder = True
        self._tail_start: int | None = None
        self._tail_in_placeholder = False
        self._code: _OpenCode | None = None
        self._code_font = code_font()
        self._highlighter = Highlighter(colors.pygments_style, self._code_format())
        self._math = DocumentMath(colors.text)
        self._block_html: tuple[str, str] | None = None  # (source, HTML) of the next block
        self._source: list[str] = []
        self._pending: list[Event] = []
        self._bulk = False  # rendering a complete text: code is highlighted once, at its end
        self.finished = False

    def _use(self, document: QTextDocument) -> None:
        self.doc = document
        self.doc.setUndoRedoEnabled(False)  # read-only text: an undo stack would only grow
        self.doc.setDefaultStyleSheet(document_stylesheet(self.colors))
        self.doc.setDocumentMargin(0)
        self._placeholder = True

    def _maybe_next_document(self) -> None:
        if self._next_document is not None and self.doc.characterCount() > SEGMENT_CHARS:
            self._use(self._next_document())

    # -- public ------------------------------------------------------------------------------

    @property
    def source(self) -> str:
        return "".join(self._source)

    def append(self, text: str) -> None:
        """Add streamed text: new final blocks are inserted once, the open block re-rendered."""
        if not text:
            return
        self._source.append(text)
        self._math.notice(text)
        events = self._splitter.feed(text)
        self._apply(events, render_tail=True)

    def finish(self) -> None:
        self._apply(self._splitter.finish(), render_tail=False)
        self.finished = True

    def set_text(self, text: str) -> None:
        """Render a complete message (no tail churn)."""
        self.begin_text(text)
        while not self.render_some(None):
            pass

    def begin_text(self, text: str) -> None:
        """Start rendering a complete message in steps (``render_some``), so that a long one
        never holds the UI thread for long."""
        self._source.append(text)
        self._math.notice(text)
        self._bulk = True
        self._pending = self._splitter.feed(text) + self._splitter.finish()
        self._remove_tail()

    def render_some(self, deadline: float | None) -> bool:
        """Render pending blocks until ``deadline`` (time.perf_counter()); True when done."""
        while self._pending:
            first = self._pending[0]
            if deadline is not None and isinstance(first, MarkdownBlock):
                html = self._markdown_html(first.source)
                if not self._math.prepare(html, self.doc, deadline):
                    return False  # its formulas are drawn over the next steps
            count = 1
            # A code block's lines are cheap to collect: take the block whole.
            if isinstance(self._pending[0], CodeStarted):
                while count < len(self._pending) and not isinstance(
                    self._pending[count - 1], CodeEnded
                ):
                    count += 1
            batch, self._pending = self._pending[:count], self._pending[count:]
            self._apply(batch, render_tail=False)
            if deadline is not None and time.perf_counter() >= deadline:
                break
        if self._pending:
            return False
        self._bulk = False
        self.finished = True
        return True

    # -- events ------------------------------------------------------------------------------

    def _apply(self, events: list[Event], *, render_tail: bool) -> None:
        # One edit block per update: the document is laid out (and its size reported) once,
        # not after the removal of the open block and again after its re-insertion, which
        # would shrink and regrow the message and scroll the chat twice per update.
        doc = self.doc
        block = QTextCursor(doc)
        block.beginEditBlock()
        try:
            self._apply_events(events, render_tail=render_tail)
        finally:
            block.endEditBlock()

    def _apply_events(self, events: list[Event], *, render_tail: bool) -> None:
        if events or not render_tail:
            self._remove_tail()
        else:
            self._remove_tail_markdown_only()
        for event in events:
            if isinstance(event, MarkdownBlock):
                self._maybe_next_document()
                html = self._markdown_html(event.source)
                self._insert_html(self._math.resolve(html, self.doc, final=True))
            elif isinstance(event, CodeStarted):
                self._maybe_next_document()
                self._open_code(event.language)
            elif isinstance(event, CodeLine):
                self._code_line(event.text)
            elif isinstance(event, CodeEnded):
                self._close_code()
        if render_tail:
            self._render_tail()

    def _cursor_at_end(self) -> QTextCursor:
        cursor = QTextCursor(self.doc)
        cursor.movePosition(QTextCursor.MoveOperation.End)
        return cursor

    def _markdown_html(self, source: str) -> str:
        # A block prepared by render_some is rendered again right after: Markdown parsed once.
        if self._block_html is not None and self._block_html[0] == source:
            return self._block_html[1]
        html = markdown_to_html(source)
        self._block_html = (source, html)
        return html

    def _insert_html(self, html: str) -> int:
        """Insert rendered Markdown as new blocks at the end; returns where they start."""
        scratch = QTextDocument()
        scratch.setDefaultFont(self.doc.defaultFont())
        scratch.setDefaultStyleSheet(self.doc.defaultStyleSheet())
        scratch.setHtml(_BETWEEN_TAGS.sub("><", html))
        first = scratch.begin()
        # A list makes a block of its own; anything else is inserted into a fresh block, which
        # takes the fragment's first block format (insertFragment keeps the host block's).
        starts_list = first.textList() is not None
        cursor = self._cursor_at_end()
        start = cursor.position()
        if not self._placeholder and not starts_list:
            cursor.insertBlock(QTextBlockFormat(), QTextCharFormat())
        block_start = cursor.position()
        cursor.insertFragment(QTextDocumentFragment(scratch))
        if not starts_list:
            fix = QTextCursor(self.doc)
            fix.setPosition(block_start)
            fix.setBlockFormat(first.blockFormat())
        self._placeholder = False
        return start

    # -- the open block ----------------------------------------------------------------------

    def _render_tail(self) -> None:
        if self._code is not None:
            self._set_code_partial(self._splitter.open_code_line)
            return
        tail = self._splitter.open_markdown
        if not tail:
            return
        self._tail_in_placeholder = self._placeholder
        html = self._math.resolve(markdown_to_html(tail), self.doc, final=False)
        self._tail_start = self._insert_html(html)

    def _remove_tail_markdown_only(self) -> None:
        if self._code is None:
            self._remove_tail()

    def _remove_tail(self) -> None:
        if self._tail_start is None:
            return
        cursor = QTextCursor(self.doc)
        cursor.setPosition(self._tail_start)
        cursor.movePosition(QTextCursor.MoveOperation.End, QTextCursor.MoveMode.KeepAnchor)
        cursor.removeSelectedText()
        if self._tail_in_placeholder:
            # The tail filled the placeholder block and left its list/heading format on it.
            block = cursor.block()
            text_list = block.textList()
            if text_list is not None:
                text_list.remove(block)
            cursor.setBlockFormat(QTextBlockFormat())
            cursor.setBlockCharFormat(QTextCharFormat())
            cursor.setCharFormat(QTextCharFormat())
            self._placeholder = True
        self._tail_start = None

    # -- code blocks -------------------------------------------------------------------------

    def _code_format(self) -> QTextCharFormat:
        fmt = QTextCharFormat()
        fmt.setFontFamilies([self._code_font.family()])
        fmt.setFontFixedPitch(True)
        fmt.setForeground(QBrush(QColor(self.colors.text)))
        return fmt

    def _open_code(self, language: str) -> None:
        cursor = self._cursor_at_end()
        if self._placeholder:
            # The empty block Qt keeps before a frame at the start of a document would show as a
            # blank line above the code.
            cursor.setBlockFormat(_collapsed_block())
        frame_format = QTextFrameFormat()
        frame_format.setBackground(QColor(self.colors.code_bg))
        frame_format.setBorder(1)
        frame_format.setBorderBrush(QColor(self.colors.code_border))
        frame_format.setBorderStyle(QTextFrameFormat.BorderStyle.BorderStyle_Solid)
        frame_format.setPadding(8)
        frame_format.setTopMargin(4)
        frame_format.setBottomMargin(4)
        frame_format.setWidth(QTextLength(QTextLength.Type.PercentageLength, 100))
        frame = cursor.insertFrame(frame_format)
        index = len(self.code_blocks)
        self.code_blocks.append("")
        self._code = _OpenCode(frame, language, index)
        # Header line: the language and a copy link; then one (empty) line for the code.
        header = QTextCharFormat()
        header.setForeground(QColor(self.colors.muted))
        header.setFontPointSize(max(6.0, self.doc.defaultFont().pointSizeF() * 0.85))
        cursor.insertText(language or "text", header)
        cursor.insertText("   ", header)
        link = QTextCharFormat(header)
        link.setAnchor(True)
        link.setAnchorHref(f"{COPY_SCHEME}:{index}")
        link.setForeground(QColor(self.colors.accent))
        cursor.insertText("Copy", link)
        block_format = QTextBlockFormat()
        block_format.setNonBreakableLines(True)
        cursor.insertBlock(block_format, self._code_format())
        # The block Qt keeps after the frame: collapsed until text fills it (_insert_html gives
        # it the format of what is inserted).
        after = self._cursor_at_end()
        after.setBlockFormat(_collapsed_block())
        self._placeholder = True

    def _partial_cursor(self) -> QTextCursor:
        """A selection of the code frame's last line (the one still being written)."""
        assert self._code is not None
        cursor = self._code.frame.lastCursorPosition()
        cursor.movePosition(QTextCursor.MoveOperation.StartOfBlock, QTextCursor.MoveMode.KeepAnchor)
        return cursor

    def _set_code_partial(self, text: str) -> None:
        cursor = self._partial_cursor()
        if cursor.selectedText() == text:
            return
        cursor.insertText(text, self._code_format())

    def _code_line(self, text: str) -> None:
        assert self._code is not None
        self._code.lines.append(text)
        if self._bulk:
            return
        cursor = self._partial_cursor()
        cursor.removeSelectedText()
        for fmt, value in self._highlighter.tokens(text, self._code.language):
            cursor.insertText(value.rstrip("\n"), fmt)
        block_format = QTextBlockFormat()
        block_format.setNonBreakableLines(True)
        cursor.insertBlock(block_format, self._code_format())

    def _close_code(self) -> None:
        code = self._code
        assert code is not None
        self._code = None
        source = "\n".join(code.lines)
        self.code_blocks[code.index] = source
        first = code.frame.firstCursorPosition()
        first.movePosition(QTextCursor.MoveOperation.NextBlock)
        if not self._bulk and code.lines:
            # Streamed line by line: the empty line that awaited more code goes, and the colours
            # are checked against the whole block's, in slices (see code_colours).
            cursor = code.frame.lastCursorPosition()
            cursor.setPosition(cursor.block().position() - 1, QTextCursor.MoveMode.KeepAnchor)
            cursor.removeSelectedText()
            tokens = self._highlighter.tokens_lazily(source, code.language)
            Recolour(code.frame, first.block(), tokens).start()
            self._placeholder = True
            return
        # Loaded whole (or empty): the block is coloured in one pass.
        cursor = code.frame.lastCursorPosition()
        cursor.setPosition(first.position(), QTextCursor.MoveMode.KeepAnchor)
        cursor.removeSelectedText()
        cursor.setCharFormat(self._code_format())
        for fmt, value in self._highlighter.tokens(source, code.language):
            parts = value.split("\n")
            for i, part in enumerate(parts):
                if i:
                    cursor.insertBlock(cursor.blockFormat(), fmt)
                if part:
                    cursor.insertText(part, fmt)
        self._placeholder = True


def _collapsed_block() -> QTextBlockFormat:
    fmt = QTextBlockFormat()
    fmt.setLineHeight(1, QTextBlockFormat.LineHeightTypes.FixedHeight.value)
    return fmt


def copy_index(href: str) -> int | None:
    """The code block a ``copy:N`` link refers to."""
    scheme, _, rest = href.partition(":")
    if scheme != COPY_SCHEME or not rest.isdigit():
        return None
    return int(rest)


_warming = threading.Event()
_text_ready = threading.Event()
_preparing_types = threading.Event()
_types_ready = threading.Event()


def text_ready() -> bool:
    """False while the start-up warm-up is still preparing what rendering needs (imports on a
    worker, Qt types on the UI thread): the chat then waits without blocking rather than pay
    for them in one piece."""
    text = _text_ready.is_set() or not _warming.is_set()
    types = _types_ready.is_set() or not _preparing_types.is_set()
    return text and types


def preparing_types(done: bool = False) -> None:
    (_types_ready if done else _preparing_types).set()


def warm_up_text() -> None:
    """Import and build the Markdown and highlighting machinery, so that the first message shown
    does not pay for it on the UI thread. Qt-free."""
    from app.chat.message.highlight import lexer_for, style_by_name

    _warming.set()
    try:
        markdown_to_html("*warm* `up`\n\n- a\n\n| a |\n|---|\n| b |")
        for language in ("python", "bash", "javascript", "json", ""):
            lexer_for(language)
        for name in ("default", "github-dark"):
            style_by_name(name)
    finally:
        _text_ready.set()


def warm_up() -> None:
    """The part of the start-up warm-up that runs on a worker thread."""
    warm_up_text()
