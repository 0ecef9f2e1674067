"""Who generates next (engine/host/models/admission.py) and how long an idle model stays
(engine/host/models/residents.py): turns per model, in turn across clients, a load alone."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

import pytest

from engine.errors import EngineBusy, InvalidRequest
from engine.host.models.admission import ALONE, Admission, client_key
from engine.host.models.residents import keep_alive_seconds


def run(test: Callable[[], Coroutine[Any, Any, None]]) -> None:
    asyncio.run(test())


class Tracker:
    """Requests that hold their turn until told, recording the order they got it in."""

    def __init__(self, admission: Admission) -> None:
        self.admission = admission
        self.order: list[str] = []
        self.release: dict[str, asyncio.Event] = {}
        self.tasks: list[asyncio.Task[None]] = []

    def start(self, name: str, client: str) -> asyncio.Task[None]:
        self.release[name] = asyncio.Event()

        async def request() -> None:
            async with self.admission.turn(client):
                self.order.append(name)
                await self.release[name].wait()

        task = asyncio.create_task(request())
        self.tasks.append(task)
        return task

    async def settle(self) -> None:
        for _ in range(10):
            await asyncio.sleep(0)

    async def finish(self, name: str) -> None:
        self.release[name].set()
        await self.settle()


def test_as_many_run_as_there_are_sequences_and_the_rest_wait() -> None:
    async def main() -> None:
        t = Tracker(Admission(capacity=2, max_queue=8))
        for name in ("a", "b", "c"):
            t.start(name, "one")
        await t.settle()
        assert t.order == ["a", "b"] and t.admission.waiting == 1
        await t.finish("a")
        assert t.order == ["a", "b", "c"] and t.admission.waiting == 0
        await t.finish("b")
        await t.finish("c")
        assert t.admission.running == 0

    run(main)


def test_one_clients_many_requests_do_not_starve_anothers_one() -> None:
    async def main() -> None:
        t = Tracker(Admission(capacity=1, max_queue=32))
        for i in range(6):
            t.start(f"busy{i}", "busy client")
        await t.settle()
        t.start("other", "other client")
        await t.settle()
        await t.finish("busy0")
        assert t.order == ["busy0", "busy1"]
        await t.finish("busy1")
        assert t.order[-1] == "other"  # its turn came next, not after busy5
        for name in ("other", "busy2", "busy3", "busy4", "busy5"):
            await t.finish(name)
        assert t.order == ["busy0", "busy1", "other", "busy2", "busy3", "busy4", "busy5"]

    run(main)


def test_a_load_waits_for_running_replies_and_holds_the_model_alone() -> None:
    async def main() -> None:
        t = Tracker(Admission(capacity=3, max_queue=8))
        t.start("reply", "a")
        await t.settle()
        t.start("load", ALONE)
        t.start("later", "b")
        await t.settle()
        assert t.order == ["reply"]  # the later reply waits behind the load
        await t.finish("reply")
        assert t.order == ["reply", "load"]
        await t.finish("load")
        assert t.order == ["reply", "load", "later"]
        await t.finish("later")

    run(main)


def test_past_the_queue_limit_a_request_is_told_busy() -> None:
    async def main() -> None:
        t = Tracker(Admission(capacity=1, max_queue=1))
        t.start("a", "x")
        t.start("b", "x")
        await t.settle()
        with pytest.raises(EngineBusy):
            async with t.admission.turn("y"):
                pass
        await t.finish("a")
        await t.finish("b")

    run(main)


def test_a_request_that_gives_up_waiting_leaves_no_trace() -> None:
    async def main() -> None:
        t = Tracker(Admission(capacity=1, max_queue=8))
        t.start("a", "x")
        gone = t.start("gone", "y")
        await t.settle()
        gone.cancel()
        await t.settle()
        assert t.admission.waiting == 0
        t.start("next", "z")
        await t.finish("a")
        assert t.order == ["a", "next"]
        await t.finish("next")
        assert t.admission.running == 0

    run(main)


def test_clients_are_told_apart_by_key_then_by_address_and_agent() -> None:
    with_key = client_key({"authorization": "Bearer k1", "user-agent": "x"}, "127.0.0.1")
    assert with_key == client_key({"authorization": "Bearer k1", "user-agent": "y"}, "10.0.0.2")
    assert with_key != client_key({"authorization": "Bearer k2"}, "127.0.0.1")
    editor = client_key({"user-agent": "editor/1"}, "127.0.0.1")
    assert editor != client_key({"user-agent": "agent/2"}, "127.0.0.1")


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        ("5m", 300.0),
        ("1h30m", 5400.0),
        ("300ms", 0.3),
        ("45", 45.0),
        (0, 0.0),
        (2.5, 2.5),
        ("0", 0.0),
        (-1, None),
        ("-1m", None),
    ],
)
def test_keep_alive_reads_ollamas_durations_and_seconds(
    value: object, seconds: float | None
) -> None:
    assert keep_alive_seconds(value) == (pytest.approx(seconds) if seconds is not None else None)


@pytest.mark.parametrize("value", ["soon", "5 minutes", "", True, [], "m5"])
def test_a_keep_alive_that_is_not_a_duration_is_refused(value: object) -> None:
    with pytest.raises(InvalidRequest, match="keep_alive"):
        keep_alive_seconds(value)
