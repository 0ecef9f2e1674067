"""Fields a request carried that Cove does not read: ignored, never a 400, as the real APIs and
the other local engines do (a client made for a newer API version must not fail on Cove).

Parsers call ``ignore`` with where the field was (``context_management``,
``messages[2].cache_hint``); the route's endpoint collects them for the one request
(``collecting``) and names them in the ``cove-ignored`` response header, so that a user can see
what was left out. Logged at debug level."""

from __future__ import annotations

import logging
from collections.abc import Collection, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar

log = logging.getLogger("cove.host")

HEADER = "cove-ignored"
MAX_NAMED = 24  # fields named in the header; the rest are counted
MAX_HEADER_CHARS = 1500

_ignored: ContextVar[list[str] | None] = ContextVar("cove_ignored", default=None)


def ignore(where: str) -> None:
    """``where`` was not read (an unknown field, or a part Cove cannot use and leaves out)."""
    log.debug("ignored %s", where)
    seen = _ignored.get()
    if seen is not None and where not in seen:
        seen.append(where)


def unknown_fields(raw: Mapping[str, object], known: Collection[str], where: str = "") -> None:
    """Ignore every key of ``raw`` outside ``known``; ``where`` prefixes their names."""
    for key in raw:
        if key not in known:
            ignore(f"{where}.{key}" if where else str(key))


@contextmanager
def collecting() -> Iterator[list[str]]:
    """What ``ignore`` records while this block runs (also in threads started from it with
    ``asyncio.to_thread``, which copy the context)."""
    seen: list[str] = []
    token = _ignored.set(seen)
    try:
        yield seen
    finally:
        _ignored.reset(token)


def header_value(ignored: list[str]) -> str:
    """The fields, comma-separated, in printable ASCII (a header cannot carry more), the list
    shortened with a count when it is long."""
    named = [_printable(name) for name in ignored[:MAX_NAMED]]
    value = ", ".join(named)
    if len(value) > MAX_HEADER_CHARS:
        value = value[:MAX_HEADER_CHARS].rsplit(", ", 1)[0]
    shown = value.count(", ") + 1 if value else 0
    if shown < len(ignored):
        value += f", and {len(ignored) - shown} more"
    return value


def _printable(name: str) -> str:
    text = name.encode("ascii", "backslashreplace").decode("ascii")
    return "".join(c if " " <= c <= "~" and c != "," else "?" for c in text)[:120]
