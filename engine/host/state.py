"""What the engine host holds: the chat models in memory (the default one and those requests named:
engine/host/models/on_demand.py), an embedding model and a reranker, and the turns in front of
them; how a reply runs is engine/host/models/replies.py.

Native calls run in worker threads; the event loop only waits. A chat model generates as many
replies at once as it has sequences (``--parallel``); requests behind them wait their turn
(engine/host/models/admission.py: first come first served per client, in turn across clients),
and past ``max_queue`` waiting requests the host answers 429 rather than letting a queue grow
without bound.

The host is made of parts with a job each, handed what they share when it is made: the machine
(engine/host/models/machine.py), the resident models, their turns, loading, the way the default
model runs, ``--parallel auto``, the replies, the speed profile and idle work.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import os
import threading
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.client.protocol import EngineStatus
from engine.errors import ModelNotFound
from engine.formats.thinking_switch import switches_thinking
from engine.generation.state_cache import StateCache
from engine.host.idle.background import Background, IdleGate
from engine.host.idle.speed_profile import SpeedProfile
from engine.host.models.auto_parallel import AutoParallel, auto_count
from engine.host.models.encoders import cross_encoders, sentence_encoders
from engine.host.models.loading import Loader, looped_model
from engine.host.models.machine import Machine
from engine.host.models.model_names import NameRules, installed_names, unknown_model
from engine.host.models.on_demand import OnDemand, installed_path
from engine.host.models.replies import STREAM_FLUSH_S, Replies
from engine.host.models.residents import DEFAULT_KEEP_ALIVE_S, Resident, Residents
from engine.host.models.turns import Turns
from engine.host.models.ways import Ways
from engine.types import Chunk

if TYPE_CHECKING:
    from engine.documents.embeddings import EmbeddingModel
    from engine.documents.rerank import CrossEncoder
    from engine.hardware.report import HardwareReport
    from engine.planner.plan import Plan
    from engine.remote.split import WorkerShare

log = logging.getLogger("cove.host")


class HostState:
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
        machine: Machine | None = None,
        measure_once: Callable[..., Any] | None = None,
        measure_round: Callable[..., tuple[dict[int, float], float]] | None = None,
    ) -> None:
        # The computer the models load on: its hardware probe and the memory free now.
        self.machine = machine or Machine()
        self.log_prompts = log_prompts
        # The model names clients send, mapped (--alias, --any-model-name).
        self.names = names or NameRules()
        self.states = states
        self.residents = Residents()
        # Requests in the engine, for work that waits for an idle moment (measuring).
        self.gate = IdleGate()
        # Idle work as a whole: on or off, the watch on the rest of the machine, what waits
        # (engine/host/idle/background.py).
        self.background = Background(self.gate, allowed=background_measuring)
        self.turns = Turns(self.residents, self.gate, max_queue)
        self.loader = Loader(
            self.machine,
            parallel=parallel,
            max_queue=max_queue,
            workers=workers,
            states=states,
            draft=draft,
            auto_count=functools.partial(auto_count, self.machine),
        )
        self.on_demand = OnDemand(
            self.loader,
            self.residents,
            self.turns,
            self.names,
            keep_alive_s=keep_alive_s,
            max_models=max_models,
        )
        # The way the default model runs, measured when idle (engine/host/models/ways.py), and
        # how many replies at once pay for it (engine/host/models/auto_parallel.py).
        self.ways = Ways(self.loader, self.residents, self.turns, self.background, measure_once)
        self.auto_parallel = AutoParallel(
            self.loader, self.residents, self.turns, self.background, self.ways, measure_round
        )
        self.replies = Replies(self.background, self.machine.probe, flush_s)
        # This computer's speed profile, probed when idle (the hardware report's predictions).
        self.speed = SpeedProfile(self.background, self.machine.probe)
        # The sentence encoder and the cross-encoder, loaded when named
        # (engine/host/models/encoders.py).
        self.embeddings = sentence_encoders()
        self.rerankers = cross_encoders()

    # -- the models and their turns ----------------------------------------------------------------

    @property
    def chat(self) -> Resident | None:
        """The default chat model: loaded by name (``--model``, ``POST /cove/v1/load``), kept
        until told, answering requests that name no model."""
        return self.residents.default

    @property
    def loop(self) -> asyncio.AbstractEventLoop | None:
        """The server's event loop, once known."""
        return self.turns.loop

    @loop.setter
    def loop(self, loop: asyncio.AbstractEventLoop | None) -> None:
        self.turns.loop = loop

    def replies_of(self, resident: Resident | None) -> ModelReplies:
        """Replies of ``resident`` (None: no model was found), each in its turn."""
        return ModelReplies(self.turns, self.replies, resident)

    async def chat_for(self, name: str | None) -> Resident:
        """The chat model a request names, loaded now when it is installed but not resident.
        Held for the request until its handler returns."""
        return await self.on_demand.chat_for(name)

    def turn_alone(self) -> contextlib.AbstractAsyncContextManager[None]:
        return self.turns.turn_alone()

    def answering(
        self, headers: Mapping[str, str], address: str | None
    ) -> contextlib.AbstractContextManager[None]:
        """One request, as its client (engine/host/http/endpoint.py)."""
        return self.turns.answering(headers, address)

    def keep_alive_from(self, resident: Resident, body: object, field: str) -> None:
        self.turns.keep_alive_from(resident, body, field)

    async def unload_named(self, name: str | None) -> bool:
        return await self.on_demand.unload_named(name)

    # -- the default chat model ----------------------------------------------------------------

    def resolve_chat(self, name: str) -> Resident:
        """A resident chat model by any of its names (nothing is loaded)."""
        found = self.on_demand.resident_for(name)
        if found is not None:
            return found
        if not len(self.residents):
            raise ModelNotFound(
                "No chat model is loaded. Load one first (POST /cove/v1/load, or start the "
                "server with --model)."
            )
        loaded = self.chat.id if self.chat is not None else None
        if installed_path(self.names.target(name) or name) is not None:
            raise ModelNotFound(f"The model {name!r} is installed but not loaded.")
        raise ModelNotFound(unknown_model(name, loaded, installed_names()))

    def load_chat(
        self, name: str, ctx: int | None, progress: Callable[[float], bool] | None = None
    ) -> Resident:
        """Plan, then load (blocking; run in a worker thread). The resident model's memory
        counts as free for the plan, and it is unloaded only once the new plan fits. Where the
        model runs more than one way here, the way measured fastest for this context is loaded;
        a way not measured yet loads the planner's way at once and is measured when the engine
        is idle (engine/host/idle/idle_tuning.py)."""
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
            self.residents.default = extra
            return extra
        plan = self.plan(name, ctx)
        require_fit(plan)
        choice = None if self.loader.workers else self.loader.choose(path, ctx)
        source = path
        if choice is not None:
            path, plan = choice.path, choice.plan
        self.unload_chat()
        resident = self.loader.build(name, path, plan, progress)
        with self.residents.lock:
            self.residents.default = resident
        self.ways.choice = choice
        if choice is not None and (choice.source == "not_measured" or choice.provisional):
            self.ways.measure_later(name, source, ctx, resident)
        self.auto_parallel.measure_later(resident, plan)
        return resident

    def plan(self, name: str, ctx: int | None) -> Plan:
        """The plan for ``name`` against the memory free now, counting the resident chat model's
        memory as free (loading another unloads it)."""
        return self.loader.plan(name, ctx, self.chat)

    def unload_chat(self) -> bool:
        """Unload the default chat model (blocking)."""
        return self.on_demand.unload_default()

    def hardware_report(self) -> HardwareReport:
        """What the probe found, with this computer's speed profile (probed when idle)."""
        return self.speed.hardware_report()

    # -- embedding model and reranker ---------------------------------------------------------

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
        looped = looped_model(chat.model) if chat is not None else None
        replies = self.replies
        tuner, batching = self.ways.tuner, self.auto_parallel.batching
        return EngineStatus(
            model=chat.id if chat else None,
            model_path=str(chat.path) if chat else None,
            backend=chat.backend if chat else None,
            device=chat.plan.device if chat else None,
            n_ctx=chat.model.n_ctx if chat else None,
            plan=chat.plan if chat else None,
            generating=replies.generating,
            queued=self.turns.queued,
            loading=self.loader.loading,
            generations_completed=replies.counters.completed,
            generations_cancelled=replies.counters.cancelled,
            generation_errors=replies.counters.errors,
            embedding_model=self.embedder.name if self.embedder else None,
            pid=os.getpid(),
            draft=looped.draft_name if looped is not None else None,
            exact_tokens=chat.model.capabilities.exact_cells if chat else 0,
            parallel=chat.plan.parallel if chat else 1,
            running=replies.streams,
            measuring=_first(
                t.status for t in (tuner, batching, self.speed.prober) if t is not None
            ),
            background=tuple(self.background.describe()),
            background_measuring=self.background.enabled(),
            measured=_first(t.found for t in (batching, tuner) if t is not None),
            vision=bool(chat and chat.model.capabilities.vision),
            thinking_switch=bool(chat and switches_thinking(_template_source(chat.model))),
            residents=tuple(r.describe() for r in self.residents),
            last_long_prompt=replies.last_long_prompt,
        )

    def close(self) -> None:
        self.gate.close()
        for idle in (self.ways.tuner, self.auto_parallel.batching, self.speed.prober):
            if idle is not None:
                idle.join(timeout=30)  # a measuring run frees its copy of the model
        self.unload_chat()
        with self.residents.lock:
            others = list(self.residents)
            for resident in others:
                self.residents.remove(resident)
        for resident in others:
            resident.model.close()
        if self.states is not None:
            self.states.flush(timeout=30)
        self.embeddings.close()
        self.rerankers.close()


@dataclass(frozen=True, slots=True)
class ModelReplies:
    """The replies of one model, in its turns: what a route's stream runs
    (engine/host/http/streaming.py)."""

    turns: Turns
    replies: Replies
    resident: Resident | None

    def turn(self) -> contextlib.AbstractAsyncContextManager[None]:
        return self.turns.turn(self.resident)

    def run_stream(
        self, produce: Callable[[], Iterator[Chunk]], cancel: threading.Event
    ) -> AsyncGenerator[Chunk | str, None]:
        return self.replies.run_stream(self.resident, produce, cancel)


def _template_source(model: object) -> str | None:
    """The chat template a model renders its prompts with (None: a runtime without one)."""
    template = getattr(model, "template", None)
    source = getattr(template, "source", None)
    return source if isinstance(source, str) else None


def _first(texts: Iterable[str | None]) -> str | None:
    return next((t for t in texts if t), None)
