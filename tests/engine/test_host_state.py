"""The host's stream runner with a scripted generation: what it counts when a client leaves."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Iterator

from engine.host.state import HostState
from engine.types import Chunk


def generation(cancel: threading.Event, first_read: threading.Event) -> Iterator[Chunk]:
    """Text until cancelled, then the terminal chunk, as a backend does."""
    yield Chunk(text="Once")
    first_read.wait(10)
    while not cancel.is_set():
        yield Chunk(text=" upon")
        cancel.wait(0.001)  # a token's worth of work
    yield Chunk(finish_reason="cancelled")


def test_a_generation_left_by_its_client_counts_as_cancelled() -> None:
    state = HostState()
    cancel = threading.Event()
    first_read = threading.Event()

    async def leave_after_the_first_chunk() -> None:
        items = state.run_stream(lambda: generation(cancel, first_read), cancel)
        async with contextlib.aclosing(items):
            async for item in items:
                if isinstance(item, Chunk):
                    first_read.set()
                    return  # the client went away; closing the runner cancels and waits

    asyncio.run(leave_after_the_first_chunk())
    assert cancel.is_set()
    assert state.counters.cancelled == 1 and state.counters.completed == 0
    assert not state.generating


def test_a_terminal_chunk_that_was_read_is_counted_once() -> None:
    state = HostState()
    cancel = threading.Event()

    def short() -> Iterator[Chunk]:
        yield Chunk(text="Hi")
        yield Chunk(finish_reason="stop")

    async def read_to_the_end() -> None:
        items = state.run_stream(short, cancel)
        async with contextlib.aclosing(items):
            async for item in items:
                if isinstance(item, Chunk) and item.is_terminal:
                    return  # as the host does: stop at the terminal chunk

    asyncio.run(read_to_the_end())
    assert state.counters.completed == 1 and state.counters.cancelled == 0
