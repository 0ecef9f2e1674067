"""The way the default chat model runs, for the host: the way it was loaded (measured fastest, or
the planner's while not measured yet), the ways measured in the engine's idle moments
(engine/host/idle/idle_tuning.py), and the faster way put in place of the loaded one at the next
moment no reply runs."""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.host.idle.background import Background
from engine.host.idle.idle_tuning import IdleTuner
from engine.host.models.loading import Loader
from engine.host.models.residents import Resident, Residents
from engine.host.models.turns import Turns

if TYPE_CHECKING:
    from engine.tuning import Choice

log = logging.getLogger("cove.host")


class Ways:
    """How the default chat model runs, and switching it to the way measured fastest."""

    def __init__(
        self,
        loader: Loader,
        residents: Residents,
        turns: Turns,
        background: Background,
        measure_once: Callable[..., Any] | None = None,
    ) -> None:
        self.loader = loader
        self.residents = residents
        self.turns = turns
        self.background = background
        # What takes one measuring run (engine.tuning.measure.measure_once unless handed another).
        self.measure_once = measure_once
        self.choice: Choice | None = None  # how the default chat model was chosen to run
        self.tuner: IdleTuner | None = None

    def measure_later(self, name: str, path: Path, ctx: int | None, resident: Resident) -> None:
        """Measure ``path``'s ways in the engine's idle moments; load the faster way at the
        next idle moment once known."""
        from engine.backends.loader import resources_after_unload
        from engine.planner.plan import resources_from
        from engine.tuning import choose
        from engine.tuning.store import build_key, machine_key

        if os.environ.get("COVE_NO_TUNING"):
            return
        machine = self.loader.machine
        report = machine.probe()
        # The ways planned as they were for this load: with the resident model's memory free.
        resources = resources_after_unload(resources_from(report), resident.plan)

        def measured(once: Any) -> Choice | None:
            from engine.tuning.ways import installed_siblings, ways_to_run

            ways = ways_to_run(path, resources, ctx=ctx, siblings=installed_siblings(path))
            need = max((w.plan.total_bytes for w in ways), default=0)
            free = machine.free().cpu.free_bytes
            if need > free:
                log.info(
                    "not measuring the ways to run %s while it is loaded: a second copy would "
                    "not fit beside it (cove tune measures them)",
                    path.name,
                )
                return None
            # The machine's quiet was waited for before each run (engine/host/idle/background.py).
            return choose(
                path, resources, report, ctx=ctx, measure_now=True, once=once, quiet=_always
            )

        def chosen(choice: Choice) -> None:
            self._measured(report, name, resident, choice)

        key = f"ways:{machine_key(report)}:{build_key(path)}:{ctx}"
        work = self.background.work(f"Measuring the ways to run {resident.id}", key)
        tuner = IdleTuner(work, measured, chosen, self.measure_once)
        self.turns.gate.touch()
        self.tuner = tuner
        tuner.start(resident.id)

    def _measured(self, report: Any, name: str, resident: Resident, choice: Choice) -> None:
        from engine.speed.check import check_choice
        from engine.tuning.configs import Config

        if choice.source == "measured":
            try:
                check_choice(report, choice, record=True)
            except OSError as exc:
                log.warning("could not record %s's measured speed: %s", resident.id, exc)
        if self.residents.default is not resident:
            return  # another model was loaded meanwhile; its own load reads the measurement
        self.choice = choice
        if choice.config.key == Config.of(resident.path, resident.plan).key:
            return
        loop = self.turns.loop
        if loop is None:
            return  # the next load reads the measurement
        asyncio.run_coroutine_threadsafe(self._switch(name, resident, choice), loop)

    async def _switch(self, name: str, resident: Resident, choice: Choice) -> None:
        """Load the way measured fastest in place of the resident one, once no reply runs. The
        new way is loaded before the old one is freed (measuring had both in memory), and the
        resident entry is updated in place, so that requests already holding it use the new
        way when their turn comes."""
        async with self.turns.turn_alone():
            if self.residents.default is not resident:
                return
            log.info("switching %s to the way measured fastest: %s", resident.id, choice.reason)
            await asyncio.to_thread(self._swap_way, resident, choice)

    def _swap_way(self, resident: Resident, choice: Choice) -> None:
        way = self.loader.build(resident.id, choice.path, choice.plan, None)
        with self.residents.lock:
            old = resident.model
            resident.model, resident.plan = way.model, way.plan
            resident.path, resident.backend = way.path, way.backend
            resident.aliases = resident.aliases | {str(choice.path)}
        old.close()
        resident.admission.resize(way.plan.parallel)
        self.choice = choice
        log.info("loaded %s the way measured fastest (%s)", resident.id, choice.config.label)


def _always() -> bool:
    return True
