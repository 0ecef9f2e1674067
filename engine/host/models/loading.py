"""Loading a chat model for the host the way it should run here: planned against the memory
free (the resident model's counted as free when it is to be replaced), the way measured fastest
for its context when there is one (engine/tuning), as many replies at once as ``--parallel``
says, split across ``cove worker`` machines when there are some, with a draft model when one
was asked for and fits beside it."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from engine.generation.loop import GenerationLoop
from engine.generation.state_cache import StateCache
from engine.host.models.admission import QUEUE_PER_SEQUENCE, Admission
from engine.host.models.machine import Machine
from engine.host.models.residents import Resident

if TYPE_CHECKING:
    from engine.backends.llama.parallel import ParallelLlamaCpp
    from engine.hardware.report import HardwareReport
    from engine.planner.plan import Plan
    from engine.remote.split import WorkerShare
    from engine.tuning import Choice

log = logging.getLogger("cove.host")


class Loader:
    """Plans and loads chat models into resident entries (blocking: run in a worker thread)."""

    def __init__(
        self,
        machine: Machine,
        *,
        parallel: int | None = 1,
        max_queue: int | None = 8,
        workers: tuple[WorkerShare, ...] = (),
        states: StateCache | None = None,
        draft: str | None = None,
        auto_count: Callable[[Path, Plan], int] | None = None,
    ) -> None:
        self.machine = machine
        # Replies at once for a llama.cpp model (None: as many as fit, up to AUTO_PARALLEL).
        self.parallel = parallel
        self.max_queue = max_queue
        # ``cove worker`` machines reached through loopback tunnels: GGUF models are split
        # across this machine and them (engine/remote/split.py).
        self.workers = workers
        self.states = states
        # A model to draft for the chat model: a name or path, or "auto" (the catalog's, when
        # installed, compatible and fitting beside it); None: none.
        self.draft = draft
        # ``--parallel auto``'s count for a plan (engine/host/models/auto_parallel.py).
        self.auto_count = auto_count
        self.loading: str | None = None  # the model being loaded now

    def build(
        self,
        name: str,
        path: Path,
        plan: Plan,
        progress: Callable[[float], bool] | None,
        aliases: frozenset[str] = frozenset(),
        *,
        auto: int | None = None,
    ) -> Resident:
        """Load ``path`` with ``plan`` (one sequence), running as many replies at once as
        ``--parallel`` says; for "auto", ``auto`` or what was measured to pay."""
        from engine.backends import backend_for
        from engine.planner.plan import AUTO_PARALLEL, with_parallel

        if not self.workers:  # a model split across machines generates one sequence
            if self.parallel is None and auto is None and self.auto_count is not None:
                auto = self.auto_count(path, plan)
            plan = with_parallel(plan, self.parallel, auto=auto or AUTO_PARALLEL)
        self.loading = path.name
        try:
            backend = backend_for(path)
            if self.workers:
                from engine.native.rpc import add_server

                for worker in self.workers:
                    add_server(worker.endpoint)
            model = backend.load(path, plan, progress)
            looped = looped_model(model)
            if looped is not None:
                looped.keep_states(self.states)
                self._attach_draft(looped, path, plan)
        finally:
            self.loading = None
        resolved = path.resolve()
        model_id = path.name if path.is_dir() else path.stem
        queue = QUEUE_PER_SEQUENCE * plan.parallel if self.max_queue is None else self.max_queue
        resident = Resident(
            model=model,
            plan=plan,
            path=resolved,
            id=model_id,
            aliases=aliases | {name, model_id, str(path), str(resolved)},
            backend=backend.name,
            admission=Admission(plan.parallel, queue),
        )
        log.info("loaded %s (%s, context %d)", resident.id, plan.device, model.n_ctx)
        return resident

    def choose(
        self, path: Path, ctx: int | None, report: HardwareReport | None = None
    ) -> Choice | None:
        """The way to load ``path``: measured, chosen with ``cove tune``, or the planner's when
        it is not measured yet (never measured here: a reply must not wait for it). ``report``:
        the hardware probed just now, when the caller has it."""
        from engine.planner.plan import resources_from
        from engine.tuning import choose

        if os.environ.get("COVE_NO_TUNING"):
            return None
        report = report or self.machine.probe()
        return choose(path, resources_from(report), report, ctx=ctx, measure_now=False)

    def plan(self, name: str, ctx: int | None, replaced: Resident | None) -> Plan:
        """The plan for ``name`` against the memory free now, counting the memory of the model
        it replaces (``replaced``) as free."""
        from engine.backends.loader import plan_model, resources_after_unload

        resources = self.machine.free()
        if replaced is not None:
            resources = resources_after_unload(resources, replaced.plan)
        if self.workers:
            from engine.remote.split import plan_with_workers

            return plan_with_workers(name, ctx, resources, self.workers)
        return plan_model(name, ctx=ctx, resources=resources)[2]

    def _attach_draft(
        self, model: GenerationLoop | ParallelLlamaCpp, path: Path, plan: Plan
    ) -> None:
        """Load the draft model asked for, when it can draft for this one and fits beside it;
        otherwise say why in the log and go on without."""
        from engine.advice.drafts import beside, check_draft, draft_choices
        from engine.backends.draft import DraftModel
        from engine.formats.gguf import read_gguf
        from engine.library.names import resolve_model

        if self.draft is None or path.suffix.lower() != ".gguf":
            return
        if self.draft == "auto":
            usable = [d for d in draft_choices(path, plan.n_ctx) if d.usable]
            if not usable:
                log.info("no installed draft model can draft for %s", path.name)
                return
            choice = usable[0]
        else:
            choice = check_draft(read_gguf(path), resolve_model(self.draft), plan.n_ctx)
        # The model is loaded: what is free now is what is left beside it.
        choice = beside(choice, self.machine.free().cpu.free_bytes)
        if not choice.usable or choice.path is None or choice.plan is None:
            log.warning("not drafting with %s: %s", choice.id, choice.reason)
            return
        model.attach_draft(DraftModel.load(choice.path, choice.plan))
        log.info("drafting with %s", choice.id)


def looped_model(model: object) -> GenerationLoop | ParallelLlamaCpp | None:
    """The model as the shared generation loop sees it (saved state, drafts), or None for a
    runtime outside it."""
    from engine.backends.llama.parallel import ParallelLlamaCpp

    return model if isinstance(model, GenerationLoop | ParallelLlamaCpp) else None
