"""One thread for all of llama.cpp's computing in this process.

llama.cpp's CPU backend runs each graph on an OpenMP team that belongs to the calling thread and
lives as long as it does. A second long-lived thread that ever evaluated something (the thread
that loaded a model and checked its batches, a request's thread, another model's) keeps a second
team; libgomp then counts more threads than cores and makes every barrier sleep instead of spin,
and decoding runs three times slower (the starter on 2 cores: 98 tokens/s from the thread that
evaluated first, 35 from any other; docs/PERFORMANCE.md). So every evaluation is handed to this
one thread, whichever thread asks.
"""

from __future__ import annotations

import queue
import threading
from _thread import allocate_lock
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

_calls: queue.SimpleQueue[_Call] = queue.SimpleQueue()
_thread: threading.Thread | None = None
_start = threading.Lock()


class _Call:
    __slots__ = ("args", "done", "error", "fn", "result")

    def __init__(self, fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
        self.fn = fn
        self.args = args
        # Held until the call is done: the lightest hand-back there is (an Event is a Condition,
        # a lock and a waiter's lock each time), once a token.
        self.done = allocate_lock()
        self.done.acquire()
        self.result: Any = None
        self.error: BaseException | None = None


def run(fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` on the compute thread (at once when called from it)."""
    thread = _thread or _started()
    if threading.current_thread() is thread:
        return fn(*args)
    call = _Call(fn, args)
    _calls.put(call)
    call.done.acquire()
    if call.error is not None:
        raise call.error
    result: T = call.result
    return result


def _started() -> threading.Thread:
    global _thread
    with _start:
        if _thread is None:
            _thread = threading.Thread(target=_serve, name="cove-compute", daemon=True)
            _thread.start()
        return _thread


def _serve() -> None:
    while True:
        call = _calls.get()
        try:
            call.result = call.fn(*call.args)
        except BaseException as exc:  # handed to the caller, whose error it is
            call.error = exc
        finally:
            call.done.release()
