"""Where a message's Markdown holds TeX math: a markdown-it plugin, and the splitter's rule for
display math that spans lines. Qt-free.

Delimiters: ``$…$`` and ``\\(…\\)`` inline; ``$$…$$`` and ``\\[…\\]`` display (a block of their
own when they start a line, inline inside a sentence). A single ``$`` follows pandoc's rule, so
that money stays text: the opening ``$`` is followed by a non-space, the closing one preceded by a
non-space and not followed by a digit ("costs $5 and $10" has no math). Code spans and fenced code
are never searched (markdown-it hands them to their own rules first; fences never reach it).

The plugin does not draw anything: each formula becomes a ``<cove-math>`` element carrying its TeX
and its source as written, which :mod:`app.chat.message.math_render` turns into an image (or into
the source in the code font when the TeX cannot be drawn). Unresolved, the element shows its
source as text, so unclosed or unrendered math is never lost.
"""

from __future__ import annotations

import re
from html import escape
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.rules_block import StateBlock
    from markdown_it.rules_inline import StateInline

TAG = "cove-math"
# A formula as the plugin writes it: mode ("inline" or "block"), TeX, source (all escaped).
PLACEHOLDER = re.compile(
    rf'<{TAG} mode="(?P<mode>inline|block)" tex="(?P<tex>[^"]*)">(?P<source>.*?)</{TAG}>',
    re.DOTALL,
)
# Longer formulas are shown as their source: a runaway "formula" must not cost seconds.
MAX_TEX_CHARS = 2000
# A display formula left open this many lines is taken for a stray delimiter (see math_state).
MAX_MATH_LINES = 40

_CLOSERS = {"$": "$", "$$": "$$", "\\(": "\\)", "\\[": "\\]"}
# Delimiters of display math in a line; an escaped backslash (TeX's line break ``\\``) is matched
# first so that ``\\[2pt]`` is not read as an opening ``\[``.
_DISPLAY_DELIMITER = re.compile(r"\\\\|\$\$|\\\[|\\\]")
_CODE_SPAN = re.compile(r"(`+).*?\1")


def placeholder(tex: str, source: str, *, block: bool) -> str:
    mode = "block" if block else "inline"
    return f'<{TAG} mode="{mode}" tex="{escape(tex)}">{escape(source)}</{TAG}>'


def math_plugin(md: MarkdownIt) -> None:
    """Teach ``md`` the math delimiters (see the module's docstring)."""
    # Before "escape", which would read \( and \[ as escaped brackets.
    md.inline.ruler.before("escape", "math_inline", _math_inline)
    md.block.ruler.before(
        "fence",
        "math_block",
        _math_block,
        {"alt": ["paragraph", "reference", "blockquote", "list"]},
    )
    md.add_render_rule("math_inline", _render_math)
    md.add_render_rule("math_block", _render_math)


def _render_math(self: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
    token = tokens[idx]
    block = token.type == "math_block"
    html = placeholder(token.content, token.meta["source"], block=block)
    return html + "\n" if block else html


def _math_inline(state: StateInline, silent: bool) -> bool:
    src, start, end = state.src, state.pos, state.posMax
    opener = _opener_at(src, start, end)
    if opener is None:
        return False
    closer = _CLOSERS[opener]
    inner = start + len(opener)
    close = _closing(src, inner, end, opener)
    if close is None:
        return False
    tex = src[inner:close].strip()
    if not tex or "`" in tex:  # a code span's backtick: not a formula
        return False
    if not silent:
        token = state.push("math_inline", "math", 0)
        token.content = tex
        token.markup = opener
        token.meta = {"source": src[start : close + len(closer)]}
    state.pos = close + len(closer)
    return True


def _opener_at(src: str, pos: int, end: int) -> str | None:
    if src[pos] == "$":
        if pos > 0 and src[pos - 1] == "$":
            return None  # the middle of a run of dollars
        if src.startswith("$$", pos):
            return "$$"
        following = src[pos + 1] if pos + 1 < end else " "
        return None if following.isspace() else "$"
    if src.startswith(("\\(", "\\["), pos) and pos + 2 <= end:
        return src[pos : pos + 2]
    return None


def _closing(src: str, start: int, end: int, opener: str) -> int | None:
    """Where the math opened by ``opener`` before ``start`` closes, or None."""
    closer = _CLOSERS[opener]
    at = start
    while True:
        at = src.find(closer, at, end)
        if at < 0:
            return None
        if opener != "$":
            return at
        if src[at - 1] == "\\":  # an escaped dollar inside the formula
            at += 1
            continue
        # The first unescaped dollar closes the formula, or there is none (pandoc's rule).
        after = src[at + 1] if at + 1 < end else ""
        if src[at - 1].isspace() or after.isdigit() or after == "$":
            return None
        return at


def _math_block(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    if state.is_code_block(start_line):
        return False
    first = _line(state, start_line)
    opener = next((o for o in ("$$", "\\[") if first.startswith(o)), None)
    if opener is None:
        return False
    closer = _CLOSERS[opener]
    parts = [first[len(opener) :]]
    line = start_line
    while True:
        at = parts[-1].find(closer)
        if at >= 0:
            if parts[-1][at + len(closer) :].strip():
                return False  # words follow the formula: inline math in a paragraph
            parts[-1] = parts[-1][:at]
            break
        line += 1
        if line >= end_line:
            return False  # not closed (yet): shown as text
        text = _line(state, line)
        if text and state.sCount[line] < state.blkIndent:
            return False  # the formula would end outside its list item or quote
        parts.append(text)
    tex = "\n".join(parts).strip()
    if not tex:
        return False
    if silent:
        return True
    source = state.getLines(start_line, line + 1, state.blkIndent, False).strip()
    state.line = line + 1
    token = state.push("math_block", "math", 0)
    token.block = True
    token.content = tex
    token.markup = opener
    token.map = [start_line, state.line]
    token.meta = {"source": source}
    return True


def _line(state: StateBlock, line: int) -> str:
    return str(state.src[state.bMarks[line] + state.tShift[line] : state.eMarks[line]])


def math_state(line: str, waiting_for: str | None) -> str | None:
    """The closing delimiter display math still waits for after ``line`` (None: none open), given
    the one it waited for before. The splitter keeps the lines of an open ``$$``/``\\[`` together,
    so that a formula is never cut into two blocks."""
    for match in _DISPLAY_DELIMITER.finditer(_CODE_SPAN.sub("", line)):
        found = match.group()
        if waiting_for is None:
            waiting_for = {"$$": "$$", "\\[": "\\]"}.get(found)
        elif found == waiting_for:
            waiting_for = None
    return waiting_for
