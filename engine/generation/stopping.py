"""Stop strings over a text stream: never emit text that might turn out to be a stop string."""

from __future__ import annotations

from collections.abc import Sequence


class StopMatcher:
    """Feed decoded text; get back what is safe to show and whether a stop string was hit.

    Text that could still be the start of a stop string is held back until the next piece shows
    that it is not, so a stop string split across tokens never leaks into the reply.
    """

    def __init__(self, stops: Sequence[str]) -> None:
        self._stops = tuple(dict.fromkeys(s for s in stops if s))
        self._longest = max((len(s) for s in self._stops), default=0)
        self._pending = ""

    def feed(self, text: str) -> tuple[str, bool]:
        if not self._stops:
            return text, False
        pending = self._pending + text
        first = min((i for i in (pending.find(s) for s in self._stops) if i >= 0), default=-1)
        if first >= 0:
            self._pending = ""
            return pending[:first], True
        keep = self._held_back(pending)
        self._pending = pending[len(pending) - keep :] if keep else ""
        return pending[: len(pending) - keep], False

    def flush(self, text: str = "") -> str:
        """The rest of the text at the end of the stream (a held-back prefix was not a stop)."""
        out, hit = self.feed(text)
        if hit:
            return out
        rest, self._pending = self._pending, ""
        return out + rest

    def _held_back(self, text: str) -> int:
        """Length of the longest suffix of ``text`` that is a proper prefix of a stop string."""
        for n in range(min(len(text), self._longest - 1), 0, -1):
            suffix = text[-n:]
            if any(s.startswith(suffix) for s in self._stops):
                return n
        return 0
