"""Search across conversations: FTS5 where SQLite has it, LIKE where it does not.

Whatever the user types is treated as plain words: every word is quoted before it reaches FTS5, so
characters that mean something in its query language (``"``, ``*``, ``(``, ``:``, ``AND``, ``NEAR``)
match literally instead of raising a syntax error.
"""

from __future__ import annotations

import re
import sqlite3

from engine.store.schema import MESSAGES_FTS, TITLES_FTS
from engine.store.types import SearchHit, Span

# snippet() wraps each match in these; control characters that chat text does not contain, so they
# can be told apart from the user's own brackets or asterisks and turned into offsets.
_OPEN = "\x02"
_CLOSE = "\x03"
_ELLIPSIS = "…"
_SNIPPET_TOKENS = 16
_LIKE_BEFORE = 40
_LIKE_AFTER = 80
_WORD = re.compile(r"[^\W_]+")


def query_terms(text: str) -> list[str]:
    """The words of a query worth searching for: a word with no letter or digit finds nothing."""
    # FTS5's query parser stops at NUL ("unterminated string"); nothing the user means is lost.
    return [term for term in text.replace("\x00", " ").split() if any(c.isalnum() for c in term)]


def fts_query(text: str) -> str | None:
    """An FTS5 query that finds messages containing every word typed, the last one as a prefix.

    Returns None when nothing searchable is left. Each word becomes a quoted string (``"`` doubled),
    which FTS5 never parses as an operator; its tokenizer splits it as it split the indexed text.
    """
    terms = query_terms(text)
    if not terms:
        return None
    quoted = ['"' + term.replace('"', '""') + '"' for term in terms]
    # The last word is usually still being typed.
    quoted[-1] += " *"
    return " ".join(quoted)


def _split_marked(marked: str) -> tuple[str, tuple[Span, ...]]:
    plain: list[str] = []
    spans: list[Span] = []
    length = 0
    start: int | None = None
    for char in marked:
        if char == _OPEN:
            start = length
        elif char == _CLOSE:
            if start is not None and length > start:
                spans.append((start, length))
            start = None
        else:
            plain.append(char)
            length += 1
    return "".join(plain), tuple(spans)


def search_fts(conn: sqlite3.Connection, text: str, limit: int) -> list[SearchHit]:
    """Title matches first, then messages by relevance (FTS5 bm25 rank)."""
    query = fts_query(text)
    if query is None or limit < 1:
        return []
    hits: list[SearchHit] = []
    titles = conn.execute(
        f"""
        SELECT c.id, c.title, snippet({TITLES_FTS}, 0, ?, ?, ?, ?)
        FROM {TITLES_FTS} JOIN conversations AS c ON c.id = {TITLES_FTS}.rowid
        WHERE {TITLES_FTS} MATCH ? ORDER BY rank LIMIT ?""",
        (_OPEN, _CLOSE, _ELLIPSIS, _SNIPPET_TOKENS, query, limit),
    ).fetchall()
    for conv_id, title, marked in titles:
        snippet, spans = _split_marked(marked)
        hits.append(SearchHit(conv_id, title, None, None, snippet, spans))
    messages = conn.execute(
        f"""
        SELECT m.conversation_id, c.title, m.id, m.role, snippet({MESSAGES_FTS}, 0, ?, ?, ?, ?)
        FROM {MESSAGES_FTS}
            JOIN messages AS m ON m.id = {MESSAGES_FTS}.rowid
            JOIN conversations AS c ON c.id = m.conversation_id
        WHERE {MESSAGES_FTS} MATCH ? ORDER BY rank LIMIT ?""",
        (_OPEN, _CLOSE, _ELLIPSIS, _SNIPPET_TOKENS, query, limit - len(hits)),
    ).fetchall()
    for conv_id, title, msg_id, role, marked in messages:
        snippet, spans = _split_marked(marked)
        hits.append(SearchHit(conv_id, title, msg_id, role, snippet, spans))
    return hits


def _like_words(text: str) -> list[str]:
    # Letters and digits only, as FTS5's tokenizer sees words: "foo-bar" needs "foo" and "bar", and
    # LIKE's own wildcards (% and _) can never reach a pattern.
    return _WORD.findall(text)


def _like_snippet(text: str, terms: list[str]) -> tuple[str, tuple[Span, ...]]:
    pattern = re.compile("|".join(re.escape(term) for term in terms), re.IGNORECASE)
    first = pattern.search(text)
    if first is None:  # SQLite matched case-insensitively where Python's casefolding differs.
        return text[: _LIKE_BEFORE + _LIKE_AFTER], ()
    start = max(0, first.start() - _LIKE_BEFORE)
    end = min(len(text), first.end() + _LIKE_AFTER)
    prefix = _ELLIPSIS if start > 0 else ""
    suffix = _ELLIPSIS if end < len(text) else ""
    window = text[start:end]
    spans = tuple(
        (len(prefix) + m.start(), len(prefix) + m.end()) for m in pattern.finditer(window)
    )
    return prefix + window + suffix, spans


def search_like(conn: sqlite3.Connection, text: str, limit: int) -> list[SearchHit]:
    """The same results shape without FTS5: every word as a substring, newest messages first."""
    terms = _like_words(text)
    if not terms or limit < 1:
        return []
    patterns = [f"%{term}%" for term in terms]
    hits: list[SearchHit] = []
    title_where = " AND ".join("title LIKE ?" for _ in terms)
    for conv_id, title in conn.execute(
        f"SELECT id, title FROM conversations WHERE {title_where} "
        "ORDER BY updated_at DESC, id DESC LIMIT ?",
        (*patterns, limit),
    ).fetchall():
        snippet, spans = _like_snippet(title, terms)
        hits.append(SearchHit(conv_id, title, None, None, snippet, spans))
    content_where = " AND ".join("m.content LIKE ?" for _ in terms)
    for conv_id, title, msg_id, role, content in conn.execute(
        f"""
        SELECT m.conversation_id, c.title, m.id, m.role, m.content
        FROM messages AS m JOIN conversations AS c ON c.id = m.conversation_id
        WHERE {content_where} ORDER BY m.created_at DESC, m.id DESC LIMIT ?""",
        (*patterns, limit - len(hits)),
    ).fetchall():
        snippet, spans = _like_snippet(content, terms)
        hits.append(SearchHit(conv_id, title, msg_id, role, snippet, spans))
    return hits
