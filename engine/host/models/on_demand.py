"""Any installed chat model by name, for the host: found among the resident ones, or loaded beside
them (once, however many requests ask), the least recently used idle one unloaded when memory
or ``max_models`` says so; unloaded after its keep-alive once idle
(engine/host/models/turns.py)."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from engine.errors import EngineBusy, ModelNotFound
from engine.host.models.admission import ALONE
from engine.host.models.loading import Loader
from engine.host.models.model_names import NameRules, installed_names, unknown_model
from engine.host.models.residents import DEFAULT_KEEP_ALIVE_S, Resident, Residents
from engine.host.models.turns import Turns

if TYPE_CHECKING:
    from engine.hardware.report import HardwareReport
    from engine.planner.plan import Plan

log = logging.getLogger("cove.host")


class OnDemand:
    """Finding the model a request names, loading it when it is installed but not resident, and
    unloading one by name."""

    def __init__(
        self,
        loader: Loader,
        residents: Residents,
        turns: Turns,
        names: NameRules,
        *,
        keep_alive_s: float | None = DEFAULT_KEEP_ALIVE_S,
        max_models: int | None = None,
    ) -> None:
        self.loader = loader
        self.residents = residents
        self.turns = turns
        # The model names clients send, mapped (--alias, --any-model-name).
        self.names = names
        # How long a model loaded on demand stays idle before it is unloaded (None: until told),
        # and how many chat models may be resident at once (None: as many as fit).
        self.keep_alive_s = keep_alive_s
        self.max_models = max_models
        self._loads: dict[Path, asyncio.Future[Resident]] = {}

    @property
    def chat(self) -> Resident | None:
        return self.residents.default

    async def chat_for(self, name: str | None) -> Resident:
        """The chat model a request names, loaded now when it is installed but not resident
        (beside the resident ones, or in place of the least recently used idle one when memory
        or ``max_models`` says so). Held for the request until its turn."""
        resident = self.resident_for(name or "")
        if resident is None:
            target = self.names.target(name or "") or name or ""
            path = installed_path(target) if target else None
            if path is None:
                if not len(self.residents):
                    raise ModelNotFound(
                        "No chat model is loaded. Load one first (POST /cove/v1/load, or start "
                        "the server with --model), or name an installed model."
                    )
                loaded = self.chat.id if self.chat is not None else None
                raise ModelNotFound(unknown_model(name or "", loaded, installed_names()))
            resident = await self._load_on_demand(target, path)
            if name:
                resident.aliases = resident.aliases | {name}
        self.residents.hold(resident)
        return resident

    def resident_for(self, name: str) -> Resident | None:
        residents = self.residents
        if not name:
            return self.chat or next(iter(residents), None)
        found = residents.named(name)
        if found is not None:
            return found
        target = self.names.target(name)
        if target is not None:
            found = residents.named(target) or residents.at(installed_path(target))
            if found is not None:
                found.aliases = found.aliases | {name}
            return found
        if self.names.any_name:  # every name is the loaded model's: nothing to look up
            return self.chat or next(iter(residents), None)
        found = residents.at(installed_path(name))
        if found is not None:
            found.aliases = found.aliases | {name}
        return found

    async def _load_on_demand(self, name: str, path: Path) -> Resident:
        """Load ``path`` beside the resident models; two requests for it load it once."""
        pending = self._loads.get(path)
        if pending is not None:
            return await asyncio.shield(pending)
        future: asyncio.Future[Resident] = asyncio.get_running_loop().create_future()
        self._loads[path] = future
        self.turns.gate.enter()
        try:
            resident = await self._load_beside(name, path)
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # retrieved: the requests that waited on it raise it themselves
            raise
        finally:
            del self._loads[path]
            self.turns.gate.leave()
        future.set_result(resident)
        return resident

    async def _load_beside(self, name: str, path: Path) -> Resident:
        from engine.backends.loader import require_fit

        while True:
            plan = await asyncio.to_thread(self._plan_beside, name, path)
            crowded = self.max_models is not None and len(self.residents) >= self.max_models
            if plan.verdict == "fits" and not crowded:
                break
            victim = self.residents.least_recent_idle()
            if victim is None:
                break
            log.info("unloading %s (idle longest) to make room for %s", victim.id, path.name)
            await self.turns.unload(victim)
        if self.max_models is not None and len(self.residents) >= self.max_models:
            raise EngineBusy(
                f"{len(self.residents)} models are loaded (at most {self.max_models}) and each "
                f"is in use; {path.name} is loaded when one is idle. Try again in a moment."
            )
        require_fit(plan)
        resident = await asyncio.to_thread(self.loader.build, name, path, plan, None)
        resident.on_demand = True
        resident.keep_alive_s = self.keep_alive_s
        self.residents.extra[resident.path] = resident
        return resident

    def _plan_beside(self, name: str, path: Path) -> Plan:
        """The plan for ``path`` in the memory free now (the resident models' counted as used),
        run the way measured fastest here if it was."""
        from engine.backends.loader import plan_model
        from engine.planner.plan import resources_from

        report = without_mapped_weights(
            self.loader.machine.probe(), [(r.backend, r.plan) for r in self.residents]
        )
        plan = plan_model(name, resources=resources_from(report))[2]
        choice = self.loader.choose(path, None, report)
        if choice is not None and choice.plan.verdict == plan.verdict == "fits":
            return choice.plan
        return plan

    async def unload_named(self, name: str | None) -> bool:
        """Unload a chat model by name (the default one without a name), once it is idle."""
        resident = self.chat if not name else self.resident_for(name)
        if resident is None:
            return False
        if resident is self.chat:
            async with self.turns.turn_alone():
                return await asyncio.to_thread(self.unload_default)
        async with resident.admission.turn(ALONE):
            await self.turns.unload(resident)
        return True

    def unload_default(self) -> bool:
        """Unload the default chat model (blocking)."""
        with self.residents.lock:
            chat = self.residents.default
            if chat is not None:
                self.residents.remove(chat)
        if chat is None:
            return False
        chat.model.close()
        log.info("unloaded %s", chat.id)
        return True


def installed_path(name: str) -> Path | None:
    """The model file or folder ``name`` (a path, a catalog id, a file's name) resolves to, or
    None when no installed model has that name."""
    from engine.library.names import resolve_model

    try:
        return resolve_model(name).resolve()
    except (ModelNotFound, OSError):
        return None


def without_mapped_weights(
    report: HardwareReport, residents: Iterable[tuple[str, Plan]]
) -> HardwareReport:
    """``report`` with the resident llama.cpp models' weights in this computer's memory taken
    out of what is available. llama.cpp maps a GGUF file into memory, and the system counts the
    pages of a mapped file as reclaimable (Linux's MemAvailable takes in the file cache): read
    as free, they would plan a second model into the memory the first one reads at every token,
    which the system would then take from it and read from disk again and again."""
    from engine.planner.plan import resources_from

    cpu = resources_from(report).cpu.name
    mapped = sum(
        budget.weights
        for backend, plan in residents
        if backend == "llama.cpp"
        for budget in plan.budgets
        if budget.device == cpu
    )
    if mapped <= 0:
        return report
    memory = report.memory
    left = dataclasses.replace(memory, available_bytes=max(0, memory.available_bytes - mapped))
    return dataclasses.replace(report, memory=left)
