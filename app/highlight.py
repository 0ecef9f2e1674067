"""Syntax highlighting for code blocks: Pygments tokens turned into QTextCharFormats."""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from PySide6.QtGui import QColor, QFont, QTextCharFormat

if TYPE_CHECKING:
    from pygments.lexer import Lexer

# Names models use in fences that Pygments spells differently.
ALIASES = {"py": "python", "sh": "bash", "shell": "bash", "js": "javascript", "ts": "typescript"}


@lru_cache(maxsize=64)
def lexer_for(language: str) -> Lexer:
    from pygments.lexers import TextLexer, get_lexer_by_name
    from pygments.util import ClassNotFound

    name = ALIASES.get(language.lower(), language.lower())
    lexer: Lexer
    try:
        lexer = get_lexer_by_name(name, stripnl=False, ensurenl=False) if name else TextLexer()
    except ClassNotFound:
        lexer = TextLexer()
    return lexer


class Highlighter:
    """Formats per token type for one Pygments style, cached (a style has a few dozen)."""

    def __init__(self, style_name: str, base: QTextCharFormat) -> None:
        from pygments.styles import get_style_by_name
        from pygments.util import ClassNotFound

        try:
            self._style: Any = get_style_by_name(style_name)
        except ClassNotFound:
            self._style = get_style_by_name("default")
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

    def tokens(self, code: str, language: str) -> Iterator[tuple[QTextCharFormat, str]]:
        """(format, text) pairs for ``code``; newlines are separate tokens."""
        for token_type, value in lexer_for(language).get_tokens(code):
            if not value:
                continue
            yield self.format_for(token_type), value
