"""``--parallel auto``: as many replies at once as measured to pay on this machine.

The chat model loads at once with the count kept from an earlier measurement, or the planner's
default where there is none (engine/planner/plan.py: up to ``AUTO_PARALLEL``, within memory).
A model not measured yet (or measured on a busy machine) is measured in the engine's idle
moments on its own weights (engine/host/idle/idle_tuning.py, engine/tuning/batching.py), and
where the measured count differs from the loaded one, its context is made again with that count
at the next moment no reply runs.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.host.models.loading import Loader
from engine.host.models.machine import Machine
from engine.host.models.residents import Resident, Residents
from engine.host.models.turns import Turns
from engine.host.models.ways import Ways

if TYPE_CHECKING:
    from engine.backends.llama.model import LlamaModel
    from engine.host.idle.background import Background
    from engine.host.idle.idle_tuning import BatchingTuner
    from engine.planner.plan import Plan
    from engine.tuning.batching import Batching

log = logging.getLogger("cove.host")


def auto_count(machine: Machine, path: Path, plan: Plan) -> int:
    """Replies at once for ``plan`` (one sequence) under ``--parallel auto``: measured, or the
    planner's default."""
    from engine.planner.plan import AUTO_PARALLEL, several_at_once

    if not several_at_once(plan):
        return AUTO_PARALLEL
    from engine.tuning.batching import measured_parallel

    try:
        found = measured_parallel(path, plan, machine.probe())
    except OSError:
        return AUTO_PARALLEL
    return AUTO_PARALLEL if found is None else found[0]


class AutoParallel:
    """Measuring how many replies at once pay for the default chat model, and remaking its
    context with that count."""

    def __init__(
        self,
        loader: Loader,
        residents: Residents,
        turns: Turns,
        background: Background,
        ways: Ways,
        measure_round: Callable[..., tuple[dict[int, float], float]] | None = None,
    ) -> None:
        self.loader = loader
        self.residents = residents
        self.turns = turns
        self.background = background
        # The measuring of the ways to run the model, which the count's measuring follows.
        self.ways = ways
        # What takes one measuring round (engine.tuning.batching.measure_round unless handed
        # another).
        self.measure_round = measure_round
        self.batching: BatchingTuner | None = None

    def measure_later(self, resident: Resident, single: Plan) -> None:
        """Measure how many replies at once pay for ``resident`` in idle moments, unless a
        measurement made on a quiet machine is kept for it."""
        loader = self.loader
        if loader.parallel is not None or loader.workers or os.environ.get("COVE_NO_TUNING"):
            return
        from engine.planner.plan import several_at_once

        if not several_at_once(single):
            return
        from engine.host.idle.idle_tuning import BatchingTuner
        from engine.tuning.batching import batching_key, measured_parallel
        from engine.tuning.store import machine_key

        report = loader.machine.probe()
        found = measured_parallel(resident.path, single, report)
        if found is not None and not found[2].provisional:
            return

        def current() -> tuple[LlamaModel, Path, Plan] | None:
            from engine.backends.llama.parallel import weights_of

            if self.residents.default is not resident:
                return None
            model = weights_of(resident.model)
            if model is None or not _second_copy_fits(loader.machine, model.plan, resident.id):
                return None
            return model, resident.path, model.plan

        def done(batching: Batching, key: str) -> None:
            self._batching_measured(report, resident, batching, key)

        key = f"batching:{machine_key(report)}:{batching_key(resident.path, single)}"
        what = f"Measuring how many replies at once pay for {resident.id}"
        work = self.background.work(what, key)
        tuner = BatchingTuner(work, current, done, self.ways.tuner, self.measure_round)
        self.batching = tuner
        tuner.start(resident.id)

    def _batching_measured(
        self, report: Any, resident: Resident, batching: Batching, key: str
    ) -> None:
        from engine.planner.plan import one_sequence
        from engine.tuning.batching import count_for
        from engine.tuning.store import TuningStore, machine_key

        try:
            TuningStore().save_batching(machine_key(report), key, batching.to_dict())
        except OSError as exc:
            log.warning("could not keep the measurement of replies at once: %s", exc)
        chosen = count_for(one_sequence(resident.plan), batching)
        if chosen is None:
            return
        n, why = chosen
        if self.batching is not None:
            self.batching.found = f"{resident.id}: {why}"
        log.info("measured replies at once for %s: %s", resident.id, why)
        loop = self.turns.loop
        if self.residents.default is not resident or resident.plan.parallel == n or loop is None:
            return
        asyncio.run_coroutine_threadsafe(self._resize(resident, n), loop)

    async def _resize(self, resident: Resident, n: int) -> None:
        """Make the resident model's context again with ``n`` sequences, once no reply runs;
        the resident entry is updated in place, so that requests holding it follow."""
        async with self.turns.turn_alone():
            if self.residents.default is not resident or resident.plan.parallel == n:
                return
            await asyncio.to_thread(self._resized, resident, n)

    def _resized(self, resident: Resident, n: int) -> None:
        from engine.planner.plan import one_sequence

        single, before = one_sequence(resident.plan), resident.plan.parallel
        old = resident.model
        old.close()  # first: the new context may need the memory the old one holds
        try:
            way = self.loader.build(resident.id, resident.path, single, None, auto=n)
        except Exception as exc:
            log.warning("could not run %d replies at once (%s); back to %d", n, exc, before)
            way = self.loader.build(resident.id, resident.path, single, None, auto=before)
        resident.model, resident.plan = way.model, way.plan
        resident.admission.max_queue = way.admission.max_queue  # it scales with the slots
        resident.admission.resize(way.plan.parallel)
        log.info("%s now runs %d replies at once", resident.id, way.plan.parallel)


def _second_copy_fits(machine: Machine, plan: Plan, name: str) -> bool:
    """Whether a measuring process can load the model's weights beside the engine's copy (its
    memory-mapped pages are shared with it, but weights repacked for this processor are not)."""
    need = sum(b.weights for b in plan.budgets) + 64 * 2**20
    if need <= machine.free().cpu.free_bytes:
        return True
    log.info(
        "not measuring how many replies at once pay for %s while it is loaded: a second copy "
        "would not fit beside it (cove tune measures it)",
        name,
    )
    return False
