"""A streamed code block's colours, checked when its fence closes.

While a code block streams, each line is coloured on its own as it completes; a string or comment
over several lines is then coloured wrongly until the lexer has seen the whole block. When the
fence closes, the whole block is lexed once more and each line whose colours differ is written
again. Lexing a long block costs tens of milliseconds (Pygments is pure Python), so it runs in
slices: one at once, the rest from a timer between events, and each line is left as it is unless
its colours changed (the text, and so every position in the document, never changes).
"""

from __future__ import annotations

import time
from collections.abc import Iterator

from PySide6.QtCore import QTimer
from PySide6.QtGui import QTextBlock, QTextCharFormat, QTextCursor, QTextFrame
from shiboken6 import isValid

# Work per slice, and the pause between slices (a timer, so that input and painting come first).
SLICE_S = 0.008
NEXT_SLICE_MS = 1

Runs = list[tuple[QTextCharFormat, str]]


class Recolour:
    """The lines of ``frame`` from ``first`` on, recoloured from ``tokens`` (the whole block's,
    lexed lazily)."""

    def __init__(
        self, frame: QTextFrame, first: QTextBlock, tokens: Iterator[tuple[QTextCharFormat, str]]
    ) -> None:
        self._frame = frame
        self._block = first
        self._tokens = tokens
        self._line: Runs = []
        self.done = False

    def start(self) -> None:
        """Colour a slice now and the rest from a timer."""
        if not self.step(time.perf_counter() + SLICE_S):
            # A lambda, not the bound method: Qt for Python would hold this object only weakly.
            QTimer.singleShot(NEXT_SLICE_MS, lambda: self.start())

    def step(self, deadline: float) -> bool:
        """Recolour until ``deadline``; True when the block is done."""
        if not isValid(self._frame):  # the document was cleared (a new theme, another version)
            self.done = True
        while not self.done:  # at least one token a slice, however late: every slice progresses
            token = next(self._tokens, None)
            if token is None:
                self._end_line()
                self.done = True
                break
            fmt, value = token
            for i, part in enumerate(value.split("\n")):
                if i:
                    self._end_line()
                if part:
                    _add(self._line, fmt, part)
            if time.perf_counter() >= deadline:
                break
        return self.done

    def _end_line(self) -> None:
        block = self._block
        if not block.isValid() or block.position() > self._frame.lastPosition():
            return
        if runs(block) != self._line:
            cursor = QTextCursor(block)
            cursor.movePosition(
                QTextCursor.MoveOperation.EndOfBlock, QTextCursor.MoveMode.KeepAnchor
            )
            cursor.removeSelectedText()
            for fmt, text in self._line:
                cursor.insertText(text, fmt)
        self._block = block.next()
        self._line = []


def runs(block: QTextBlock) -> Runs:
    """A line's text as runs of one format each."""
    found: Runs = []
    it = block.begin()
    while not it.atEnd():
        fragment = it.fragment()
        _add(found, fragment.charFormat(), fragment.text())
        it += 1
    return found


def _add(line: Runs, fmt: QTextCharFormat, text: str) -> None:
    if not text:
        return
    if line and line[-1][0] == fmt:
        line[-1] = (fmt, line[-1][1] + text)
    else:
        line.append((fmt, text))
