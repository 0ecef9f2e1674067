"""What the engine host holds: the chat models in memory (the default one and those requests named:
engine/host/on_demand.py), an embedding model and a reranker, and the turns in front of them;
how a reply runs is engine/host/replies.py.

Native calls run in worker threads; the event loop only waits. A chat model generates as many
replies at once as it has sequences (``--parallel``); requests behind them wait their turn
(engine/host/admission.py: first come first served per client, in turn across clients), and past
``max_queue`` waiting requests the host answers 429 rather than letting a queue grow without
bound.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import threading
from collections.abc import AsyncIterator, Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.client.protocol import SPEED_WORK, EngineStatus
from engine.errors import (
    ModelNotFound,
)
from engine.formats.thinking_switch import switches_thinking
from engine.generation.loop import GenerationLoop
from engine.generation.state_cache import StateCache
from engine.host.admission import ALONE, QUEUE_PER_SEQUENCE, Admission
from engine.host.auto_parallel import AutoParallel
from engine.host.background import Background, IdleGate
from engine.host.encoders import cross_encoders, sentence_encoders
from engine.host.idle_tuning import BatchingTuner, IdleTuner, SpeedProber
from engine.host.model_names import NameRules, installed_names, unknown_model
from engine.host.on_demand import OnDemand, _installed_path
from engine.host.replies import STREAM_FLUSH_S, Counters, Replies
from engine.host.residents import CURRENT, DEFAULT_KEEP_ALIVE_S, Resident, Residents

if TYPE_CHECKING:
    from engine.backends.llama.parallel import ParallelLlamaCpp
    from engine.documents.embeddings import EmbeddingModel
    from engine.documents.rerank import CrossEncoder
    from engine.hardware.report import HardwareReport
    from engine.planner.plan import Plan
    from engine.remote.split import WorkerShare
    from engine.tuning import Choice

log = logging.getLogger("cove.host")


class HostState(OnDemand, Replies, AutoParallel):
    def __init__(
        self,
        *,
        max_queue: int | None = 8,
        log_prompts: bool = False,
        flush_s: float = STREAM_FLUSH_S,
        states: StateCache | None = None,
        draft: str | None = None,
        workers: tuple[WorkerShare, ...] = (),
        names: NameRules | None = None,
        parallel: int | None = 1,
        keep_alive_s: float | None = DEFAULT_KEEP_ALIVE_S,
        max_models: int | None = None,
        background_measuring: bool = True,
    ) -> None:
        self.max_queue = max_queue
        # Replies at once for a llama.cpp model (None: as many as fit, up to AUTO_PARALLEL).
        self.parallel = parallel
        # The model names clients send, mapped (--alias, --any-model-name).
        self.names = names or NameRules()
        # ``cove worker`` machines reached through loopback tunnels: GGUF models are split
        # across this machine and them (engine/remote/split.py).
        self.workers = workers
        self.states = states
        # A model to draft for the chat model: a name or path, or "auto" (the catalog's, when
        # installed, compatible and fitting beside it); None: none.
        self.draft = draft
        self.log_prompts = log_prompts
        self.flush_s = flush_s
        self.residents = Residents()
        # How long a model loaded on demand stays idle before it is unloaded (None: until told),
        # and how many chat models may be resident at once (None: as many as fit).
        self.keep_alive_s = keep_alive_s
        self.max_models = max_models
        self._loads: dict[Path, asyncio.Future[Resident]] = {}
        # The sentence encoder and the cross-encoder, loaded when named (engine/host/encoders.py).
        self.embeddings = sentence_encoders()
        self.rerankers = cross_encoders()
        self.counters = Counters()
        self.streams = 0  # replies being generated now
        self.loading: str | None = None
        self.choice: Choice | None = None  # how the chat model was chosen to run
        # The first reply after each load is compared with the predicted speed (engine/speed).
        self._speed_checked: Resident | None = None
        self.last_long_prompt: dict[str, object] | None = None
        # The turns of a request that found no model (it fails when it looks for one).
        self._no_model = Admission(1, QUEUE_PER_SEQUENCE if max_queue is None else max_queue)
        # Requests in the engine, for work that waits for an idle moment (measuring).
        self.gate = IdleGate()
        # Idle work as a whole: on or off, the watch on the rest of the machine, what waits
        # (engine/host/background.py).
        self.background = Background(self.gate, allowed=background_measuring)
        self.tuner: IdleTuner | None = None
        # What takes one measuring run (engine.tuning.measure.measure_once unless replaced).
        self.measure_once: Callable[..., Any] | None = None
        # This computer's speed profile, probed when idle (the hardware report's predictions).
        self.speed_probe: SpeedProber | None = None
        # How many replies at once pay, measured when idle (engine/host/auto_parallel.py).
        self.batching: BatchingTuner | None = None
        self.measure_round: Callable[..., tuple[dict[int, float], float]] | None = None
        # The server's event loop, once known (a measured way is switched to from a thread).
        self.loop: asyncio.AbstractEventLoop | None = None
        # Guards the resident slots against a load racing an unload at shutdown.
        self._slot_lock = threading.Lock()

    # -- queueing --------------------------------------------------------------------------------

    @property
    def chat(self) -> Resident | None:
        """The default chat model: loaded by name (``--model``, ``POST /cove/v1/load``), kept
        until told, answering requests that name no model."""
        return self.residents.default

    @chat.setter
    def chat(self, resident: Resident | None) -> None:
        self.residents.default = resident

    @contextlib.asynccontextmanager
    async def turn(self) -> AsyncIterator[None]:
        """Wait for one of the sequences of the model this request named (in turn across
        clients); 429 past the queue limit."""
        self.loop = asyncio.get_running_loop()
        resident = CURRENT.get() or self.chat
        admission = resident.admission if resident is not None else self._no_model
        self.gate.enter()
        try:
            async with admission.turn():
                yield
        finally:
            self.gate.leave()
            if resident is not None:
                self._after_use(resident)

    @contextlib.asynccontextmanager
    async def turn_alone(self) -> AsyncIterator[None]:
        """Wait until no reply of the default model runs and hold it alone (loading another in
        its place, unloading it)."""
        resident = self.chat
        admission = resident.admission if resident is not None else self._no_model
        self.gate.enter()
        try:
            async with admission.turn(ALONE):
                yield
        finally:
            self.gate.leave()

    @property
    def queued(self) -> int:
        return sum(r.admission.waiting for r in self.residents) + self._no_model.waiting

    @property
    def generating(self) -> bool:
        return self.streams > 0

    # -- chat model ------------------------------------------------------------------------------

    def resolve_chat(self, name: str) -> Resident:
        """A resident chat model by any of its names (nothing is loaded)."""
        found = self._resident_for(name)
        if found is not None:
            return found
        if not len(self.residents):
            raise ModelNotFound(
                "No chat model is loaded. Load one first (POST /cove/v1/load, or start the "
                "server with --model)."
            )
        loaded = self.chat.id if self.chat is not None else None
        if _installed_path(self.names.target(name) or name) is not None:
            raise ModelNotFound(f"The model {name!r} is installed but not loaded.")
        raise ModelNotFound(unknown_model(name, loaded, installed_names()))

    def load_chat(
        self, name: str, ctx: int | None, progress: Callable[[float], bool] | None = None
    ) -> Resident:
        """Plan, then load (blocking; run in a worker thread). The resident model's memory
        counts as free for the plan, and it is unloaded only once the new plan fits. Where the
        model runs more than one way here, the way measured fastest for this context is loaded;
        a way not measured yet loads the planner's way at once and is measured when the engine
        is idle (engine/host/idle_tuning.py)."""
        from engine.backends.loader import require_fit
        from engine.library.names import resolve_model

        path = resolve_model(name)
        current = self.chat
        same = current is not None and current.path == path.resolve()
        if current is not None and same and ctx in (None, current.model.n_ctx):
            current.aliases = current.aliases | {name}
            return current
        extra = self.residents.extra.get(path.resolve())
        if extra is not None and extra.idle and ctx in (None, extra.model.n_ctx):
            # Loaded on demand already: it becomes the default model, kept until told.
            self.residents.remove(extra)
            self.unload_chat()
            extra.on_demand, extra.keep_alive_s, extra.expires_at = False, None, None
            extra.aliases = extra.aliases | {name}
            self.chat = extra
            return extra
        plan = self.plan(name, ctx)
        require_fit(plan)
        choice = None if self.workers else self._choose(path, ctx)
        source = path
        if choice is not None:
            path, plan = choice.path, choice.plan
        self.unload_chat()
        resident = self._build_resident(name, path, plan, progress)
        with self._slot_lock:
            self.chat = resident
        self.choice = choice
        if choice is not None and (choice.source == "not_measured" or choice.provisional):
            self._tune_later(name, source, ctx, resident)
        self._measure_batching_later(resident, plan)
        return resident

    def _build_resident(
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
            if self.parallel is None and auto is None:
                auto = self._auto_count(path, plan)
            plan = with_parallel(plan, self.parallel, auto=auto or AUTO_PARALLEL)
        self.loading = path.name
        try:
            backend = backend_for(path)
            if self.workers:
                from engine.native.rpc import add_server

                for worker in self.workers:
                    add_server(worker.endpoint)
            model = backend.load(path, plan, progress)
            looped = _looped(model)
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

    # -- measuring the ways to run it, when idle --------------------------------------------------

    def _tune_later(self, name: str, path: Path, ctx: int | None, resident: Resident) -> None:
        """Measure ``path``'s ways in the engine's idle moments; load the faster way at the
        next idle moment once known."""
        from engine.backends.loader import current_resources, resources_after_unload
        from engine.hardware import probe_hardware
        from engine.host.idle_tuning import IdleTuner
        from engine.planner.plan import resources_from
        from engine.tuning import choose
        from engine.tuning.store import build_key, machine_key

        if os.environ.get("COVE_NO_TUNING"):
            return
        report = probe_hardware()
        # The ways planned as they were for this load: with the resident model's memory free.
        resources = resources_after_unload(resources_from(report), resident.plan)

        def measured(once: Any) -> Choice | None:
            from engine.tuning.ways import installed_siblings, ways_to_run

            ways = ways_to_run(path, resources, ctx=ctx, siblings=installed_siblings(path))
            need = max((w.plan.total_bytes for w in ways), default=0)
            free = current_resources().cpu.free_bytes
            if need > free:
                log.info(
                    "not measuring the ways to run %s while it is loaded: a second copy would "
                    "not fit beside it (cove tune measures them)",
                    path.name,
                )
                return None
            # The machine's quiet was waited for before each run (engine/host/background.py).
            return choose(
                path, resources, report, ctx=ctx, measure_now=True, once=once, quiet=_always
            )

        def chosen(choice: Choice) -> None:
            self._measured(report, name, resident, choice)

        key = f"ways:{machine_key(report)}:{build_key(path)}:{ctx}"
        work = self.background.work(f"Measuring the ways to run {resident.id}", key)
        tuner = IdleTuner(work, measured, chosen, self.measure_once)
        self.gate.touch()
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
        if self.chat is not resident:
            return  # another model was loaded meanwhile; its own load reads the measurement
        self.choice = choice
        if choice.config.key == Config.of(resident.path, resident.plan).key:
            return
        loop = self.loop
        if loop is None:
            return  # the next load reads the measurement
        asyncio.run_coroutine_threadsafe(self._switch(name, resident, choice), loop)

    async def _switch(self, name: str, resident: Resident, choice: Choice) -> None:
        """Load the way measured fastest in place of the resident one, once no reply runs. The
        new way is loaded before the old one is freed (measuring had both in memory), and the
        resident entry is updated in place, so that requests already holding it use the new
        way when their turn comes."""
        async with self.turn_alone():
            if self.chat is not resident:
                return
            log.info("switching %s to the way measured fastest: %s", resident.id, choice.reason)
            await asyncio.to_thread(self._swap_way, resident, choice)

    def _swap_way(self, resident: Resident, choice: Choice) -> None:
        way = self._build_resident(resident.id, choice.path, choice.plan, None)
        with self._slot_lock:
            old = resident.model
            resident.model, resident.plan = way.model, way.plan
            resident.path, resident.backend = way.path, way.backend
            resident.aliases = resident.aliases | {str(choice.path)}
        old.close()
        resident.admission.resize(way.plan.parallel)
        self.choice = choice
        log.info("loaded %s the way measured fastest (%s)", resident.id, choice.config.label)

    # -- this computer's speed, probed when idle --------------------------------------------------

    def hardware_report(self) -> HardwareReport:
        """What the probe found, with this computer's speed profile. A fresh data folder has
        none: the devices' figures are probed now (about a second: the window's first start
        shows predicted speeds at once), and the rest, the starter run to calibrate llama.cpp
        (seconds of both cores), is left to when the computer is idle, as is probing again a
        profile taken on a busy machine."""
        from dataclasses import replace

        from engine.hardware import probe_hardware
        from engine.speed.machine import calibration_wanted, profile_for
        from engine.speed.store import SpeedStore
        from engine.tuning.store import machine_key

        report = probe_hardware()
        store, machine = SpeedStore(), machine_key(report)
        try:
            fresh = store.devices(machine) is None
            profile = profile_for(report, store=store, measure=fresh, calibrate=False)
            uncalibrated = calibration_wanted(report) and not store.calibrating(machine)
        except OSError as exc:  # an unwritable data folder: predictions are not worth a failure
            log.warning("speed profile unavailable: %s", exc)
            return report
        if profile is None or profile.provisional or uncalibrated:
            self._probe_speed_later(report)
        return replace(report, speed=profile)

    def _probe_speed_later(self, report: HardwareReport) -> None:
        from engine.tuning.store import machine_key

        running = self.speed_probe
        if running is not None and not running.work.finished:
            return
        key = f"speed:{machine_key(report)}"
        work = self.background.work(SPEED_WORK, key)
        self.speed_probe = SpeedProber(work)
        self.speed_probe.start()

    def _attach_draft(
        self, model: GenerationLoop | ParallelLlamaCpp, path: Path, plan: Plan
    ) -> None:
        """Load the draft model asked for, when it can draft for this one and fits beside it;
        otherwise say why in the log and go on without."""
        from engine.advice.drafts import beside, check_draft, draft_choices
        from engine.backends.draft import DraftModel
        from engine.backends.loader import current_resources
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
        choice = beside(choice, current_resources().cpu.free_bytes)
        if not choice.usable or choice.path is None or choice.plan is None:
            log.warning("not drafting with %s: %s", choice.id, choice.reason)
            return
        model.attach_draft(DraftModel.load(choice.path, choice.plan))
        log.info("drafting with %s", choice.id)

    def _choose(
        self, path: Path, ctx: int | None, report: HardwareReport | None = None
    ) -> Choice | None:
        """The way to load ``path``: measured, chosen with ``cove tune``, or the planner's when
        it is not measured yet (never measured here: a reply must not wait for it). ``report``:
        the hardware probed just now, when the caller has it."""
        from engine.hardware import probe_hardware
        from engine.planner.plan import resources_from
        from engine.tuning import choose

        if os.environ.get("COVE_NO_TUNING"):
            return None
        report = report or probe_hardware()
        return choose(path, resources_from(report), report, ctx=ctx, measure_now=False)

    def plan(self, name: str, ctx: int | None) -> Plan:
        """The plan for ``name`` against the memory free now, counting the resident chat model's
        memory as free (loading another unloads it)."""
        from engine.backends.loader import current_resources, plan_model, resources_after_unload

        resources = current_resources()
        chat = self.chat
        if chat is not None:
            resources = resources_after_unload(resources, chat.plan)
        if self.workers:
            from engine.remote.split import plan_with_workers

            return plan_with_workers(name, ctx, resources, self.workers)
        return plan_model(name, ctx=ctx, resources=resources)[2]

    def unload_chat(self) -> bool:
        """Unload the default chat model (blocking)."""
        with self._slot_lock:
            chat = self.chat
            if chat is not None:
                self.residents.remove(chat)
        if chat is None:
            return False
        chat.model.close()
        log.info("unloaded %s", chat.id)
        return True

    # -- embedding model -------------------------------------------------------------------------

    @property
    def embedder(self) -> EmbeddingModel | None:
        return self.embeddings.model

    @property
    def embedder_path(self) -> Path | None:
        return self.embeddings.path

    def load_embedder(self, folder: Path) -> EmbeddingModel:
        if not folder.is_dir():
            raise ModelNotFound(f"No embedding model folder at {folder}.")
        from engine.documents.embeddings import EmbeddingModel

        model = EmbeddingModel.load(folder)
        self.embeddings.put(folder, model, model.name)
        log.info("loaded embedding model %s", model.name)
        return model

    def resolve_embedder(self, name: str | None) -> EmbeddingModel:
        """The resident embedding model (by name, when given): nothing is loaded."""
        model = self.embedder
        if model is None:
            raise ModelNotFound(
                "No embedding model is loaded. Start the server with --embedding-model FOLDER."
            )
        if name is not None and name not in self.embeddings.names():
            raise ModelNotFound(
                f"The embedding model {name!r} is not loaded; this engine has {model.name!r}."
            )
        return model

    async def embedder_for(self, name: str | None) -> EmbeddingModel:
        """The embedding model a request names, loaded now when it is installed but another is
        resident (or none is)."""
        return await self.embeddings.get(name)

    async def reranker_for(self, name: str | None) -> CrossEncoder:
        return await self.rerankers.get(name)

    @contextlib.asynccontextmanager
    async def embed_turn(self) -> AsyncIterator[None]:
        self.gate.enter()
        try:
            async with self.embeddings.turn:
                yield
        finally:
            self.gate.leave()

    # -- status ----------------------------------------------------------------------------------

    def status(self) -> EngineStatus:
        chat = self.chat
        looped = _looped(chat.model) if chat is not None else None
        return EngineStatus(
            model=chat.id if chat else None,
            model_path=str(chat.path) if chat else None,
            backend=chat.backend if chat else None,
            device=chat.plan.device if chat else None,
            n_ctx=chat.model.n_ctx if chat else None,
            plan=chat.plan if chat else None,
            generating=self.generating,
            queued=self.queued,
            loading=self.loading,
            generations_completed=self.counters.completed,
            generations_cancelled=self.counters.cancelled,
            generation_errors=self.counters.errors,
            embedding_model=self.embedder.name if self.embedder else None,
            pid=os.getpid(),
            draft=looped.draft_name if looped is not None else None,
            exact_tokens=chat.model.capabilities.exact_cells if chat else 0,
            parallel=chat.plan.parallel if chat else 1,
            running=self.streams,
            measuring=_first(
                t.status for t in (self.tuner, self.batching, self.speed_probe) if t is not None
            ),
            background=tuple(self.background.describe()),
            background_measuring=self.background.enabled(),
            measured=_first(t.found for t in (self.batching, self.tuner) if t is not None),
            vision=bool(chat and chat.model.capabilities.vision),
            thinking_switch=bool(chat and switches_thinking(_template_source(chat.model))),
            residents=tuple(r.describe() for r in self.residents),
            last_long_prompt=self.last_long_prompt,
        )

    def close(self) -> None:
        self.gate.close()
        if self.tuner is not None:
            self.tuner.join(timeout=30)  # its measuring run frees its copy of the model
        if self.batching is not None:
            self.batching.join(timeout=30)
        if self.speed_probe is not None:
            self.speed_probe.join(timeout=30)
        self.unload_chat()
        with self._slot_lock:
            others = list(self.residents)
            for resident in others:
                self.residents.remove(resident)
        for resident in others:
            resident.model.close()
        if self.states is not None:
            self.states.flush(timeout=30)
        self.embeddings.close()
        self.rerankers.close()


def _template_source(model: object) -> str | None:
    """The chat template a model renders its prompts with (None: a runtime without one)."""
    template = getattr(model, "template", None)
    source = getattr(template, "source", None)
    return source if isinstance(source, str) else None


def _looped(model: object) -> GenerationLoop | ParallelLlamaCpp | None:
    """The model as the shared generation loop sees it (saved state, drafts), or None for a
    runtime outside it."""
    from engine.backends.llama.parallel import ParallelLlamaCpp

    return model if isinstance(model, GenerationLoop | ParallelLlamaCpp) else None


def _always() -> bool:
    return True


def _first(texts: Iterable[str | None]) -> str | None:
    return next((t for t in texts if t), None)
