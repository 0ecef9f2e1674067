"""Who generates next: a model's replies run up to its number of sequences at once; the rest wait,
first come first served within one client and in turn across clients, so that one client's
sixteen requests cannot starve another's one. A load or unload waits for every running reply to
end and holds the model alone.

A client is its API key when it sends one, else its address and user agent (every program on
this computer shares the loopback address; they rarely share a user agent).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
from collections import OrderedDict, deque
from collections.abc import AsyncIterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Final

from engine.errors import EngineBusy
from engine.planner.plan import PARALLEL_MAX

# The client of the request being answered (set by the endpoint wrapper).
CLIENT: ContextVar[str] = ContextVar("cove_client", default="")
# A load or an unload: waits for the whole model.
ALONE = "\x00alone"


def client_key(headers: dict[str, str], address: str | None) -> str:
    """Whom a request counts for in the turns."""
    auth = headers.get("authorization", "") or headers.get("x-api-key", "")
    if auth:
        return "key:" + hashlib.sha256(auth.encode()).hexdigest()[:16]
    return f"at:{address or 'local'}|{headers.get('user-agent', '')[:80]}"


@dataclass(eq=False)
class _Waiter:
    future: asyncio.Future[None]
    weight: int


# Requests that may wait for each sequence of the chat model before the host answers 429.
QUEUE_PER_SEQUENCE: Final = 8


class Admission:
    """Up to ``capacity`` replies at once; waiting ones in turn across clients."""

    def __init__(self, capacity: int = 1, max_queue: int = 8) -> None:
        self.capacity = max(1, capacity)
        self.max_queue = max_queue
        self.running = 0
        self._queues: OrderedDict[str, deque[_Waiter]] = OrderedDict()

    @property
    def waiting(self) -> int:
        return sum(len(q) for q in self._queues.values())

    def resize(self, capacity: int) -> None:
        """Replies at once from now on (a model with another number of sequences loaded)."""
        self.capacity = max(1, capacity)
        self._grant()

    @contextlib.asynccontextmanager
    async def turn(self, client: str | None = None) -> AsyncIterator[None]:
        """Wait for a sequence of the model; 429 (EngineBusy) past the queue's limit."""
        key = CLIENT.get() if client is None else client
        weight = self.capacity if key == ALONE else 1
        if not self._queues and self.running + weight <= self.capacity:
            self.running += weight
        else:
            if self.waiting >= self.max_queue:
                raise EngineBusy(
                    f"The engine is busy: {self.waiting} requests are already waiting. "
                    "Try again in a moment."
                )
            waiter = _Waiter(asyncio.get_running_loop().create_future(), weight)
            self._queues.setdefault(key, deque()).append(waiter)
            try:
                await waiter.future
            except BaseException:
                if waiter.future.done() and not waiter.future.cancelled():
                    self._release(waiter.weight)  # granted as it was given up
                else:
                    self._forget(key, waiter)
                raise
            weight = waiter.weight
        try:
            yield
        finally:
            self._release(weight)

    def _release(self, weight: int) -> None:
        self.running -= weight
        self._grant()

    def _forget(self, key: str, waiter: _Waiter) -> None:
        queue = self._queues.get(key)
        if queue is not None and waiter in queue:
            queue.remove(waiter)
            if not queue:
                del self._queues[key]
        self._grant()

    def _grant(self) -> None:
        """Wake waiters in turn: the first client in the rotation, then it goes to the back."""
        while self._queues:
            key, queue = next(iter(self._queues.items()))
            waiter = queue[0]
            weight = min(waiter.weight, self.capacity)
            if self.running + weight > self.capacity:
                return
            queue.popleft()
            del self._queues[key]
            if queue:
                self._queues[key] = queue  # to the back of the rotation
            waiter.weight = weight
            self.running += weight
            waiter.future.set_result(None)


def parallel_count(text: str) -> int | None:
    """``--parallel N|auto``: replies at once, None for "auto"."""
    import argparse

    if text.strip().lower() == "auto":
        return None
    try:
        value = int(text)
    except ValueError:
        value = 0
    if not 1 <= value <= PARALLEL_MAX:
        raise argparse.ArgumentTypeError(f"must be 'auto' or a number from 1 to {PARALLEL_MAX}")
    return value
