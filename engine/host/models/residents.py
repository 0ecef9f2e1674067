"""The chat models in memory: the default one (``--model``, ``POST /cove/v1/load``, the window's
choice), kept until told, and the ones requests named (loaded on demand), each unloaded after
its keep-alive idle or when a model that needs the memory is asked for, least recently used
first. Each has its own turns (engine/host/models/admission.py).

A resident is *held* from the moment a request names it until the request has its turn: an
idle model is one that no request holds, runs or waits for, and only an idle model is unloaded.
"""

from __future__ import annotations

import math
import re
import threading
import time
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from engine.client.protocol import ResidentModel
from engine.errors import InvalidRequest
from engine.host.models.admission import Admission

if TYPE_CHECKING:
    import asyncio

    from engine.backends import LoadedModel
    from engine.planner.plan import Plan

# How long a model loaded on demand stays idle before it is unloaded (``--keep-alive``; Ollama's
# default is 5 minutes, LM Studio's JIT models 60).
DEFAULT_KEEP_ALIVE_S = 600.0

# What the request being answered holds, released when its handler returns.
HELD: ContextVar[list[Resident] | None] = ContextVar("cove_held", default=None)


@dataclass(slots=True, eq=False)
class Resident:
    model: LoadedModel
    plan: Plan
    path: Path
    id: str
    aliases: frozenset[str]
    backend: str
    admission: Admission = field(default_factory=Admission)
    # Seconds idle before it is unloaded; None: until told (the default model).
    keep_alive_s: float | None = None
    on_demand: bool = False
    held: int = 0
    last_used: float = field(default_factory=time.monotonic)
    # When it will be unloaded if nothing uses it (wall clock, for /api/ps); None: never.
    expires_at: float | None = None
    expiry: asyncio.TimerHandle | None = None
    uses: int = 0  # counts holds: a timer set before the last use does nothing

    @property
    def idle(self) -> bool:
        return self.held == 0 and self.admission.running == 0 and self.admission.waiting == 0

    def describe(self) -> ResidentModel:
        """The resident as /cove/v1/status shows it."""
        slots = self.model.capabilities.sequences
        running = self.admission.running
        return ResidentModel(
            model=self.id,
            path=str(self.path),
            backend=self.backend,
            device=self.plan.device,
            n_ctx=self.plan.n_ctx,
            parallel=self.plan.parallel,
            flash_attn=self.plan.flash_attn,
            n_batch=self.plan.n_batch,
            n_ubatch=self.plan.n_ubatch,
            kv_type=self.plan.kv_type,
            slots_in_use=running if slots > 1 else min(running, 1),
            queued=self.admission.waiting,
            size_bytes=self.plan.total_bytes,
            on_demand=self.on_demand,
            keep_alive_s=self.keep_alive_s,
            expires_at=self.expires_at,
        )


class Residents:
    """The default chat model and those loaded on demand, by path."""

    def __init__(self) -> None:
        self.default: Resident | None = None
        self.extra: dict[Path, Resident] = {}
        # Guards the slots against a load racing an unload at shutdown.
        self.lock = threading.Lock()

    def __iter__(self) -> Iterator[Resident]:
        if self.default is not None:
            yield self.default
        yield from self.extra.values()

    def __len__(self) -> int:
        return (self.default is not None) + len(self.extra)

    def named(self, name: str) -> Resident | None:
        for resident in self:
            if name in resident.aliases:
                return resident
        return None

    def at(self, path: Path | None) -> Resident | None:
        if path is None:
            return None
        for resident in self:
            if resident.path == path:
                return resident
        return None

    def remove(self, resident: Resident) -> None:
        if self.default is resident:
            self.default = None
        if self.extra.get(resident.path) is resident:
            del self.extra[resident.path]
        if resident.expiry is not None:
            resident.expiry.cancel()
            resident.expiry = None

    def least_recent_idle(self) -> Resident | None:
        """The model to unload for room: the least recently used idle one loaded on demand."""
        idle = [r for r in self.extra.values() if r.idle]
        return min(idle, key=lambda r: r.last_used) if idle else None

    def hold(self, resident: Resident) -> None:
        """A request named ``resident``: it is not unloaded until the request lets go (when
        nothing will let go, outside a request's handler, its turn alone keeps it)."""
        resident.uses += 1
        resident.last_used = time.monotonic()
        resident.expires_at = None
        if resident.expiry is not None:
            resident.expiry.cancel()
            resident.expiry = None
        held = HELD.get()
        if held is not None:
            resident.held += 1
            held.append(resident)


def keep_alive_seconds(value: object, field_name: str = "keep_alive") -> float | None:
    """Ollama's ``keep_alive`` (a duration such as "5m", "1h30m", "300ms", a number of seconds;
    0 unloads at once, a negative value keeps the model until told) or LM Studio's ``ttl``
    (seconds) as seconds, or None for "until told"."""
    if isinstance(value, bool):
        raise InvalidRequest(f"'{field_name}' must be a duration or a number of seconds.")
    if isinstance(value, int | float):
        seconds = float(value)
    elif isinstance(value, str):
        seconds = _duration(value.strip(), field_name)
    else:
        raise InvalidRequest(f"'{field_name}' must be a duration or a number of seconds.")
    if math.isnan(seconds):
        raise InvalidRequest(f"'{field_name}' must be a number.")
    return None if seconds < 0 or math.isinf(seconds) else seconds


_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}
_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)")


def _duration(text: str, field_name: str) -> float:
    """A Go duration ("5m", "1h30m", "-1m") or a plain number of seconds."""
    try:
        return float(text)
    except ValueError:
        pass
    sign = -1.0 if text.startswith("-") else 1.0
    body = text.lstrip("+-")
    total, at = 0.0, 0
    for match in _PART.finditer(body):
        if match.start() != at:
            break
        total += float(match.group(1)) * _UNITS[match.group(2)]
        at = match.end()
    if not body or at != len(body):
        raise InvalidRequest(
            f"'{field_name}' must be a duration such as '5m', '1h' or '30s', or a number of "
            f"seconds; got {text!r}."
        )
    return sign * total


def keep_alive_option(text: str) -> float | None:
    """``--keep-alive DURATION``: "10m", "1h", "300" (seconds), "0" (at once), "-1" (until
    told)."""
    import argparse

    from engine.errors import InvalidRequest

    try:
        return keep_alive_seconds(text, "--keep-alive")
    except InvalidRequest as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
