"""What the engine host holds: one resident chat model, one embedding model, and the queue in front
of them.

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
import time
from collections import deque
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from engine.client.protocol import EngineStatus
from engine.errors import (
    EngineError,
    ModelNotFound,
)
from engine.generation.loop import GenerationLoop
from engine.generation.state_cache import StateCache
from engine.host.admission import ALONE, Admission
from engine.host.model_names import NameRules, installed_names, unknown_model
from engine.types import Chunk, TokenLogprob

if TYPE_CHECKING:
    from engine.backends import LoadedModel
    from engine.backends.llama_parallel import ParallelLlamaCpp
    from engine.documents.embeddings import EmbeddingModel
    from engine.planner.plan import Plan
    from engine.remote.split import WorkerShare
    from engine.tuning import Choice

log = logging.getLogger("cove.host")

# Sent on a stream when nothing else has been for this long, so that a client blocked on a read
# regains control (to notice its own cancel) even while a long prompt is evaluated.
HEARTBEAT_S: Final = 0.25
HEARTBEAT: Final = "heartbeat"
# Text is handed from the generating thread to the event loop at most this often (the first piece
# at once). Every hand-off wakes the loop thread, which writes an SSE event that wakes the client:
# per token, those wake-ups take CPU from the runtime's own threads when they use every core
# (docs/PERFORMANCE.md measures it). The window repaints about every 30 ms, so nothing shows later.
STREAM_FLUSH_S: Final = 0.03
# Requests that may wait for each sequence of the chat model before the host answers 429.
QUEUE_PER_SEQUENCE: Final = 8


@dataclass(slots=True)
class Resident:
    model: LoadedModel
    plan: Plan
    path: Path
    id: str
    aliases: frozenset[str]
    backend: str


@dataclass(slots=True)
class Counters:
    completed: int = 0
    cancelled: int = 0
    errors: int = 0


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
        self.chat: Resident | None = None
        self.embedder: EmbeddingModel | None = None
        self.embedder_path: Path | None = None
        self.counters = Counters()
        self.streams = 0  # replies being generated now
        self.loading: str | None = None
        self.choice: Choice | None = None  # how the chat model was chosen to run
        # The first reply after each load is compared with the predicted speed (engine/speed).
        self._speed_checked: Resident | None = None
        self._admission = Admission(1, QUEUE_PER_SEQUENCE if max_queue is None else max_queue)
        self._embed_turn = asyncio.Lock()
        # Guards the resident slots against a load racing an unload at shutdown.
        self._slot_lock = threading.Lock()

    # -- queueing --------------------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def turn(self) -> AsyncIterator[None]:
        """Wait for one of the chat model's sequences (in turn across clients); 429 past the
        queue limit."""
        async with self._admission.turn():
            yield

    @contextlib.asynccontextmanager
    async def turn_alone(self) -> AsyncIterator[None]:
        """Wait until no reply is running and hold the chat model alone (loading, unloading)."""
        async with self._admission.turn(ALONE):
            yield

    @property
    def queued(self) -> int:
        return self._admission.waiting

    @property
    def generating(self) -> bool:
        return self.streams > 0

    # -- chat model ------------------------------------------------------------------------------

    def resolve_chat(self, name: str) -> Resident:
        chat = self.chat
        if chat is None:
            raise ModelNotFound(
                "No chat model is loaded. Load one first (POST /cove/v1/load, or start the "
                "server with --model)."
            )
        if name in chat.aliases:
            return chat
        target = self.names.target(name)
        if target is not None:
            if target in chat.aliases or _installed_path(target) == chat.path:
                return chat
            raise ModelNotFound(
                f"The model {name!r} is an alias of {target!r}, which is not loaded; this "
                f"engine serves {chat.id!r}. Load it first (POST /cove/v1/load)."
            )
        if self.names.any_name:  # every name is the loaded model's: nothing to look up
            return chat
        path = _installed_path(name)
        if path == chat.path:
            chat.aliases = chat.aliases | {name}
            return chat
        if path is not None:
            raise ModelNotFound(
                f"The model {name!r} is not loaded; this engine serves {chat.id!r}. "
                "Load it first (POST /cove/v1/load)."
            )
        raise ModelNotFound(unknown_model(name, chat.id, installed_names()))

    def load_chat(
        self, name: str, ctx: int | None, progress: Callable[[float], bool] | None = None
    ) -> Resident:
        """Plan, then load (blocking; run in a worker thread). The resident model's memory
        counts as free for the plan, and it is unloaded only once the new plan fits."""
        from engine.backends import backend_for
        from engine.backends.loader import require_fit
        from engine.library.names import resolve_model
        from engine.planner.plan import with_parallel

        path = resolve_model(name)
        current = self.chat
        same = current is not None and current.path == path.resolve()
        if current is not None and same and ctx in (None, current.model.n_ctx):
            current.aliases = current.aliases | {name}
            return current
        plan = self.plan(name, ctx)
        require_fit(plan)
        if not self.workers:  # a model split across machines generates one sequence
            plan = with_parallel(plan, self.parallel)
        self.unload_chat()
        self.loading = path.name
        try:
            # Where the model can run more than one way here, the fastest measured way for
            # this context (measured now on first use: the memory is free for it).
            choice = None if self.workers else self._choose(path, ctx, progress)
            if choice is not None:
                path, plan = choice.path, with_parallel(choice.plan, self.parallel)
                if choice.source == "measured" and progress is not None:
                    outer = progress
                    progress = lambda f: outer(0.9 + 0.1 * f)  # noqa: E731
            self.choice = choice
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
        resident = Resident(
            model=model,
            plan=plan,
            path=resolved,
            id=model_id,
            aliases=frozenset({name, model_id, str(path), str(resolved)}),
            backend=backend.name,
        )
        with self._slot_lock:
            self.chat = resident
        self._admission.resize(plan.parallel)
        if self.max_queue is None:
            self._admission.max_queue = QUEUE_PER_SEQUENCE * plan.parallel
        log.info("loaded %s (%s, context %d)", resident.id, plan.device, model.n_ctx)
        return resident

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
        self, path: Path, ctx: int | None, progress: Callable[[float], bool] | None
    ) -> Choice | None:
        from engine.hardware import probe_hardware
        from engine.planner.plan import resources_from
        from engine.tuning import choose

        if os.environ.get("COVE_NO_TUNING"):
            return None
        report = probe_hardware()
        measuring = (lambda f: progress(0.9 * f)) if progress is not None else None
        choice = choose(
            path, resources_from(report), report, ctx=ctx, measure_now=True, progress=measuring
        )
        if choice is not None and choice.source == "measured":
            from engine.speed.check import check_choice

            try:
                check_choice(report, choice, record=True)
            except OSError as exc:
                log.warning("could not record %s's measured speed: %s", path.name, exc)
        return choice

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
        with self._slot_lock:
            chat, self.chat = self.chat, None
        if chat is None:
            return False
        chat.model.close()
        log.info("unloaded %s", chat.id)
        return True

    # -- embedding model -------------------------------------------------------------------------

    def load_embedder(self, folder: Path) -> EmbeddingModel:
        from engine.documents.embeddings import EmbeddingModel

        if not folder.is_dir():
            raise ModelNotFound(f"No embedding model folder at {folder}.")
        model = EmbeddingModel.load(folder)
        with self._slot_lock:
            old, self.embedder, self.embedder_path = self.embedder, model, folder.resolve()
        if old is not None:
            old.close()
        log.info("loaded embedding model %s", model.name)
        return model

    def resolve_embedder(self, name: str | None) -> EmbeddingModel:
        model = self.embedder
        if model is None:
            raise ModelNotFound(
                "No embedding model is loaded. Start the server with --embedding-model FOLDER."
            )
        if name is not None and name not in (model.name, str(self.embedder_path)):
            raise ModelNotFound(
                f"The embedding model {name!r} is not loaded; this engine has {model.name!r}."
            )
        return model

    @contextlib.asynccontextmanager
    async def embed_turn(self) -> AsyncIterator[None]:
        async with self._embed_turn:
            yield

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
            queued=self._admission.waiting,
            loading=self.loading,
            generations_completed=self.counters.completed,
            generations_cancelled=self.counters.cancelled,
            generation_errors=self.counters.errors,
            embedding_model=self.embedder.name if self.embedder else None,
            pid=os.getpid(),
            draft=looped.draft_name if looped is not None else None,
            exact_tokens=looped.exact_cells if looped is not None else 0,
            parallel=chat.plan.parallel if chat else 1,
            running=self.streams,
            vision=bool(chat and getattr(chat.model, "vision", False)),
        )

    def close(self) -> None:
        self.unload_chat()
        if self.states is not None:
            self.states.flush(timeout=30)
        with self._slot_lock:
            embedder, self.embedder = self.embedder, None
        if embedder is not None:
            embedder.close()

    # -- running a stream ------------------------------------------------------------------------

    async def run_stream(
        self, produce: Callable[[], Iterator[Chunk]], cancel: threading.Event
    ) -> AsyncGenerator[Chunk | str, None]:
        """Run a blocking chunk generator in a thread and yield its chunks here; text chunks that
        arrived together are merged, and HEARTBEAT is yielded when the stream has been quiet.

        Leaving early (the client went away) sets ``cancel`` and waits for the thread to finish,
        so the model is free again when this returns."""
        loop = asyncio.get_running_loop()
        pending: deque[Chunk | BaseException | None] = deque()
        ready = asyncio.Event()

        def put(item: Chunk | BaseException | None) -> None:
            pending.append(item)
            ready.set()

        flush_s = self.flush_s
        # The terminal chunk, as the thread produced it: counted once the thread is done, whether
        # or not a consumer (gone with its client) ever read it.
        produced: list[Chunk] = []

        resident = self.chat

        def work() -> None:
            from engine.tuning.load import LoadMeter

            meter = LoadMeter().start()
            held: list[str] = []
            thought: list[str] = []  # a reasoning model's thinking comes before its answer
            scored: list[TokenLogprob] = []
            due = 0.0
            try:
                for chunk in produce():
                    if not chunk.is_terminal:
                        held.append(chunk.text)
                        thought.append(chunk.reasoning)
                        scored.extend(chunk.logprobs)
                        now = time.monotonic()
                        if now < due:
                            continue
                        due = now + flush_s
                    if any(thought):
                        loop.call_soon_threadsafe(put, Chunk(reasoning="".join(thought)))
                    thought.clear()
                    if held:
                        merged = Chunk(text="".join(held), logprobs=tuple(scored))
                        loop.call_soon_threadsafe(put, merged)
                        held.clear()
                        scored.clear()
                    if chunk.is_terminal:
                        produced.append(chunk)
                        loop.call_soon_threadsafe(put, chunk)
                        others = meter.others_share()
                        threading.Thread(
                            target=self._check_speed,
                            args=(resident, chunk, others),
                            name="cove-speed-check",
                            daemon=True,
                        ).start()
            except BaseException as exc:  # the thread boundary: hand the error to the loop
                _safe_call(loop, put, exc)
            finally:
                _safe_call(loop, put, None)

        thread = threading.Thread(target=work, name="cove-generate", daemon=True)
        self.streams += 1
        ended = False
        thread.start()
        finished = counted = False
        try:
            while True:
                if not pending:
                    ready.clear()
                    timer = loop.call_later(HEARTBEAT_S, ready.set)
                    await ready.wait()
                    timer.cancel()
                    if not pending:
                        yield HEARTBEAT
                        continue
                item = pending.popleft()
                if item is None:
                    finished = True
                    return
                if isinstance(item, BaseException):
                    raise EngineError(f"The engine failed while generating: {item}") from item
                if item.is_terminal:
                    # The backend released the model before its terminal chunk: a status asked
                    # for once a client has read it must not count this reply.
                    if not ended:
                        ended = True
                        self.streams -= 1
                    self._count(item)
                    counted = True
                    yield item
                    continue
                # Join text chunks that are already waiting: fewer, larger writes when the
                # network side falls behind the model.
                parts = [item.text]
                while pending and isinstance(pending[0], Chunk) and not pending[0].is_terminal:
                    nxt = pending.popleft()
                    assert isinstance(nxt, Chunk)
                    parts.append(nxt.text)
                yield item if len(parts) == 1 else Chunk(text="".join(parts))
        finally:
            if not finished:
                cancel.set()
                await asyncio.to_thread(thread.join)
            if produced and not counted:
                self._count(produced[-1])
            if not ended:
                self.streams -= 1

    def _check_speed(self, resident: Resident | None, final: Chunk, others: float) -> None:
        """The first reply of a load that counts (engine/speed/check.py) against the speed
        predicted for it: off by more than 30 %, the prediction's rates are corrected. Not on a
        busy machine, whose figures say more about the other programs."""
        from engine.speed.observe import observation_from_stats
        from engine.tuning.load import is_busy

        if (
            resident is None
            or self._speed_checked is resident
            or final.stats is None
            or final.finish_reason not in ("stop", "length")
            or is_busy(others)
        ):
            return
        try:
            from engine.hardware import probe_hardware
            from engine.speed.check import check
            from engine.speed.facts import read_model_info

            info = read_model_info(resident.path)
            obs = observation_from_stats(resident.path, info, resident.plan, final.stats)
            if obs is None:
                return
            self._speed_checked = resident
            result = check(probe_hardware(), resident.path, resident.plan, obs)
            if result is not None:
                log.info("speed of %s here: %s", resident.id, result.to_dict())
        except Exception as exc:  # a speed record is never worth a failed reply
            log.warning("could not compare %s's speed with its prediction: %s", resident.id, exc)

    def _count(self, final: Chunk) -> None:
        if final.finish_reason == "cancelled":
            self.counters.cancelled += 1
        elif final.finish_reason == "error":
            self.counters.errors += 1
        else:
            self.counters.completed += 1


def _looped(model: object) -> GenerationLoop | ParallelLlamaCpp | None:
    """The model as the shared generation loop sees it (saved state, drafts), or None for a
    runtime outside it."""
    from engine.backends.llama_parallel import ParallelLlamaCpp

    return model if isinstance(model, GenerationLoop | ParallelLlamaCpp) else None


def _safe_call(loop: asyncio.AbstractEventLoop, fn: Callable[..., None], *args: Any) -> None:
    with contextlib.suppress(RuntimeError):  # the loop closed: nobody is listening any more
        loop.call_soon_threadsafe(fn, *args)


def _installed_path(name: str) -> Path | None:
    """The model file or folder ``name`` (a path, a catalog id, a file's name) resolves to, or
    None when no installed model has that name."""
    from engine.library.names import resolve_model

    try:
        return resolve_model(name).resolve()
    except (ModelNotFound, OSError):
        return None
