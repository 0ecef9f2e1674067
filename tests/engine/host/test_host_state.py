"""The host's stream runner with a scripted generation: what it counts when a client leaves; and
the machine the host is handed, which its plans are made for."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import threading
from collections.abc import Iterator
from pathlib import Path

from engine.hardware.report import MemoryInfo
from engine.host.models.machine import Machine
from engine.host.state import HostState
from engine.planner.plan import resources_from
from engine.types import Chunk
from tests.support.machines import cpu_only_8gb


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
        items = state.replies.run_stream(None, lambda: generation(cancel, first_read), cancel)
        async with contextlib.aclosing(items):
            async for item in items:
                if isinstance(item, Chunk):
                    first_read.set()
                    return  # the client went away; closing the runner cancels and waits

    asyncio.run(leave_after_the_first_chunk())
    assert cancel.is_set()
    assert state.replies.counters.cancelled == 1 and state.replies.counters.completed == 0
    assert not state.replies.generating


def test_a_terminal_chunk_that_was_read_is_counted_once() -> None:
    state = HostState()
    cancel = threading.Event()

    def short() -> Iterator[Chunk]:
        yield Chunk(text="Hi")
        yield Chunk(finish_reason="stop")

    async def read_to_the_end() -> None:
        items = state.replies.run_stream(None, short, cancel)
        async with contextlib.aclosing(items):
            async for item in items:
                if isinstance(item, Chunk) and item.is_terminal:
                    return  # as the host does: stop at the terminal chunk

    asyncio.run(read_to_the_end())
    assert state.replies.counters.completed == 1 and state.replies.counters.cancelled == 0


def test_chunks_joined_while_the_client_falls_behind_keep_their_thinking() -> None:
    """The runner joins the chunks waiting when the reader gets to them: the thinking of a
    reasoning model among them is kept, apart from the answer."""
    state = HostState(flush_s=0.0)
    cancel = threading.Event()
    behind = threading.Event()

    def thinking() -> Iterator[Chunk]:
        yield Chunk(reasoning="Two")
        yield Chunk(reasoning=" and two.")
        yield Chunk(reasoning=" Four.")
        yield Chunk(text="4")
        behind.set()  # everything above is waiting for the reader
        yield Chunk(finish_reason="stop")

    async def read_slowly() -> list[Chunk]:
        got: list[Chunk] = []
        items = state.replies.run_stream(None, thinking, cancel)
        async with contextlib.aclosing(items):
            async for item in items:
                if isinstance(item, Chunk):
                    if not got:
                        behind.wait(10)  # the reader is busy (this blocks its loop)
                    got.append(item)
                    if item.is_terminal:
                        return got
        return got

    got = asyncio.run(read_slowly())
    assert got[-1].finish_reason == "stop"
    assert "".join(c.reasoning for c in got) == "Two and two. Four."
    assert "".join(c.text for c in got) == "4"
    assert len(got) <= 3  # what waited behind the first was joined


def test_the_host_plans_on_the_machine_it_is_handed(starter: Path) -> None:
    """The hardware probe and the memory reading are handed to the host when it is made: a
    machine of another's (tests/support/machines.py) plans as that machine would, whatever the
    one running the test has."""
    laptop = cpu_only_8gb()
    crowded = dataclasses.replace(laptop, memory=MemoryInfo(laptop.memory.total_bytes, 2**20))
    roomy_host = HostState(machine=Machine.of(laptop))
    crowded_host = HostState(machine=Machine.of(crowded))
    try:
        roomy = roomy_host.plan(str(starter), 1024)
        assert roomy.verdict == "fits"
        assert {b.device for b in roomy.budgets} == {resources_from(laptop).cpu.name}
        assert crowded_host.plan(str(starter), 1024).verdict == "does_not_fit"
    finally:
        roomy_host.close()
        crowded_host.close()
