"""When to try again: exponential backoff with jitter for 429, 5xx and dropped connections, and the
server's own ``Retry-After`` when it sends one."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from email.utils import parsedate_to_datetime

RETRY_STATUSES = frozenset({408, 429, 500, 502, 503, 504})


@dataclass(frozen=True, slots=True)
class Backoff:
    attempts: int = 6  # retries after the first try, without progress in between
    base_s: float = 0.5
    cap_s: float = 30.0
    # A server asking for more than this is treated as down for now: the user can resume later.
    max_retry_after_s: float = 120.0

    def delay(self, attempt: int, retry_after: float | None = None) -> float:
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.max_retry_after_s)
        ceiling = min(self.cap_s, self.base_s * (2**attempt))
        return random.uniform(ceiling / 2, ceiling)  # "equal jitter": never zero, never in step

    def sleep(self, seconds: float, interrupt: threading.Event | None = None) -> bool:
        """Wait ``seconds``; False when ``interrupt`` was set first (pause, cancel)."""
        if interrupt is None:
            time.sleep(seconds)
            return True
        return not interrupt.wait(seconds)


def retry_after_s(headers: Mapping[str, str]) -> float | None:
    """``Retry-After`` in seconds: a number, or an HTTP date."""
    value = headers.get("Retry-After")
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())
