"""The turns in front of the chat models, for the host: a reply waits for one of its model's
sequences (engine/host/models/admission.py), a load, an unload or a switch waits for the default
model alone, and a model loaded on demand counts down its keep-alive once nothing uses it
(engine/host/models/residents.py). Each request is answered as its client (its key, or its
address and user agent) and lets go of the models it named when its handler returns."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Iterator, Mapping

from engine.host.idle.background import IdleGate
from engine.host.models.admission import ALONE, CLIENT, QUEUE_PER_SEQUENCE, Admission, client_key
from engine.host.models.residents import HELD, Resident, Residents, keep_alive_seconds

log = logging.getLogger("cove.host")

# The headers that say whom a request counts for (engine/host/models/admission.py).
CLIENT_HEADERS = ("authorization", "x-api-key", "user-agent")


class Turns:
    """Waiting for a model, and letting go of it."""

    def __init__(self, residents: Residents, gate: IdleGate, max_queue: int | None) -> None:
        self.residents = residents
        # Requests in the engine, for work that waits for an idle moment (measuring).
        self.gate = gate
        # The turns of a request that found no model (it fails when it looks for one).
        self.no_model = Admission(1, QUEUE_PER_SEQUENCE if max_queue is None else max_queue)
        # The server's event loop, once known (keep-alive timers, and a measured way or count is
        # switched to from a thread).
        self.loop: asyncio.AbstractEventLoop | None = None

    @contextlib.asynccontextmanager
    async def turn(self, resident: Resident | None) -> AsyncIterator[None]:
        """Wait for one of the sequences of ``resident`` (in turn across clients); 429 past the
        queue limit. None: no model was found, and the request fails in its turn."""
        self.loop = asyncio.get_running_loop()
        admission = resident.admission if resident is not None else self.no_model
        self.gate.enter()
        try:
            async with admission.turn():
                yield
        finally:
            self.gate.leave()
            if resident is not None:
                self.after_use(resident)

    @contextlib.asynccontextmanager
    async def turn_alone(self) -> AsyncIterator[None]:
        """Wait until no reply of the default model runs and hold it alone (loading another in
        its place, unloading it)."""
        resident = self.residents.default
        admission = resident.admission if resident is not None else self.no_model
        self.gate.enter()
        try:
            async with admission.turn(ALONE):
                yield
        finally:
            self.gate.leave()

    @property
    def queued(self) -> int:
        return sum(r.admission.waiting for r in self.residents) + self.no_model.waiting

    @contextlib.contextmanager
    def answering(self, headers: Mapping[str, str], address: str | None) -> Iterator[None]:
        """One request, as its client, from its start to its handler's return: the models it
        named are let go of then (a stream has its turn by that time, which keeps its model)."""
        CLIENT.set(client_key({k: headers.get(k, "") for k in CLIENT_HEADERS}, address))
        held: list[Resident] = []
        HELD.set(held)
        try:
            yield
        finally:
            for resident in held:
                self.release(resident)

    def release(self, resident: Resident) -> None:
        """A request that named ``resident`` is done with it."""
        resident.held = max(resident.held - 1, 0)
        self.after_use(resident)

    def after_use(self, resident: Resident) -> None:
        """Once nothing uses ``resident``, count down its keep-alive (on the event loop)."""
        if not resident.idle or resident.keep_alive_s is None:
            return
        loop = self.loop
        if loop is None:
            return
        stamp = resident.uses
        if resident.expiry is not None:
            resident.expiry.cancel()

        def expire() -> None:
            resident.expiry = None
            if resident.uses == stamp and resident.idle and resident in list(self.residents):
                loop.create_task(self.unload(resident))

        delay = max(resident.keep_alive_s, 0.0)
        resident.expires_at = time.time() + delay
        resident.expiry = loop.call_later(delay, expire)

    def keep_alive_from(self, resident: Resident, body: object, field: str) -> None:
        """Honour a request's ``keep_alive`` (Ollama) or ``ttl`` (LM Studio) for its model."""
        if isinstance(body, dict) and body.get(field) is not None:
            self.set_keep_alive(resident, keep_alive_seconds(body[field], field))

    def set_keep_alive(self, resident: Resident, seconds: float | None) -> None:
        """A request's ``keep_alive`` / ``ttl``: how long ``resident`` stays once idle."""
        resident.keep_alive_s = seconds
        if seconds is None:
            resident.expires_at = None
            if resident.expiry is not None:
                resident.expiry.cancel()
                resident.expiry = None
        else:
            self.after_use(resident)

    async def unload(self, resident: Resident) -> None:
        """Take ``resident`` out (at once: no request finds it any more), then free it."""
        if resident not in list(self.residents):
            return
        self.residents.remove(resident)
        await asyncio.to_thread(resident.model.close)
        log.info("unloaded %s", resident.id)
