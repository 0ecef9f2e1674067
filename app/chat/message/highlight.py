"""Syntax highlighting for code blocks: Pygments tokens turned into QTextCharFormats."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from PySide6.QtGui import QColor, QFont, QTextCharFormat

if TYPE_CHECKING:
    from pygments.lexer import Lexer

# Pygments' lexer and style registries import themselves lazily and swap their module in
# sys.modules as they do, which is not safe when two threads do it at once (the start-up warm-up
# on a worker, and the first code block on the UI thread): one thread at a time.
_PYGMENTS = threading.RLock()

# Names models use in fences that Pygments spells differently.
ALIASES = {"py": "python", "sh": "bash", "shell": "bash", "js": "javascript", "ts": "typescript"}


def lexer_for(language: str) -> Lexer:
    with _PYGMENTS:
        return _lexer_for(language)


@lru_cache(maxsize=64)
def _lexer_for(language: str) -> Lexer:
    from pygments.lexers import TextLexer, get_lexer_by_name
    from pygments.util import ClassNotFound

    name = ALIASES.get(language.lower(), language.lower())
    lexer: Lexer
    try:
        lexer = get_lexer_by_name(name, stripnl=False, ensurenl=False) if name else TextLexer()
    except ClassNotFound:
        lexer = TextLexer()
    return lexer


def style_by_name(name: str) -> Any:
    with _PYGMENTS:
        from pygments.styles import get_style_by_name
        from pygments.util import ClassNotFound

        try:
            return get_style_by_name(name)
        except ClassNotFound:
            return get_style_by_name("default")


class Highlighter:
    """Formats per token type for one Pygments style, cached (a style has a few dozen)."""

    def __init__(self, style_name: str, base: QTextCharFormat) -> None:
        self._style: Any = style_by_name(style_name)
        self._base = base
        self._formats: dict[Any, QTextCharFormat] = {}

    def format_for(self, token_type: Any) -> QTextCharFormat:
        fmt = self._formats.get(token_type)
        if fmt is not None:
            return fmt
        fmt = QTextCharFormat(self._base)
        try:
            style = self._style.style_for_token(token_type)
        except KeyError:
            style = {}
        if style.get("color"):
            fmt.setForeground(QColor("#" + style["color"]))
        if style.get("bold"):
            fmt.setFontWeight(QFont.Weight.Bold)
        if style.get("italic"):
            fmt.setFontItalic(True)
        self._formats[token_type] = fmt
        return fmt

    def tokens_lazily(self, code: str, language: str) -> Iterator[tuple[QTextCharFormat, str]]:
        """``tokens``, lexed as they are asked for: a long block can be coloured in slices."""
        lexer = lexer_for(language)
        with _PYGMENTS:
            stream = iter(lexer.get_tokens(code))
        while True:
            with _PYGMENTS:
                token = next(stream, None)
            if token is None:
                return
            if token[1]:
                yield self.format_for(token[0]), token[1]

    def tokens(self, code: str, language: str) -> Iterator[tuple[QTextCharFormat, str]]:
        """(format, text) pairs for ``code``; newlines are separate tokens."""
        lexer = lexer_for(language)
        with _PYGMENTS:  # lexing may import token helpers on first use
            tokens = list(lexer.get_tokens(code))
        for token_type, value in tokens:
            if not value:
                continue
            yield self.format_for(token_type), value
