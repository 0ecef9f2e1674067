"""Per-address limits for what Cove serves beyond loopback: requests per minute, and a lock-out
after repeated wrong keys (which makes guessing a 32-character key hopeless, and keeps a
misconfigured client from hammering the machine). Memory is bounded: the oldest addresses are
forgotten first."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field

MAX_ADDRESSES = 4096


@dataclass(slots=True)
class _Window:
    started: float
    requests: int = 0
    failures: int = 0
    blocked_until: float = 0.0


@dataclass(slots=True)
class RateLimit:
    requests_per_minute: int = 600
    failures_per_minute: int = 10
    lockout_s: float = 60.0
    _seen: OrderedDict[str, _Window] = field(default_factory=OrderedDict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def check(self, address: str, now: float | None = None) -> float | None:
        """Count a request from ``address``; None to serve it, else the seconds to wait."""
        now = time.monotonic() if now is None else now
        with self._lock:
            w = self._window(address, now)
            if w.blocked_until > now:
                return w.blocked_until - now
            w.requests += 1
            if w.requests > self.requests_per_minute:
                return max(0.0, w.started + 60.0 - now)
            return None

    def failed(self, address: str, now: float | None = None) -> None:
        """A wrong key from ``address``: too many within a minute lock it out."""
        now = time.monotonic() if now is None else now
        with self._lock:
            w = self._window(address, now)
            w.failures += 1
            if w.failures >= self.failures_per_minute:
                w.blocked_until = now + self.lockout_s

    def _window(self, address: str, now: float) -> _Window:
        w = self._seen.get(address)
        if w is None or (now - w.started >= 60.0 and w.blocked_until <= now):
            w = _Window(started=now)
            self._seen[address] = w
        self._seen.move_to_end(address)
        while len(self._seen) > MAX_ADDRESSES:
            self._seen.popitem(last=False)
        return w
