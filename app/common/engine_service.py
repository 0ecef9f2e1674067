"""The window's engine: this computer's host (started, loaded, watched and restarted off the UI
thread) or another computer's engine (connected to; its models are used by name).

All requests that use the model (start, load, connect, chat, restart) go through one single-thread
pool, so they run one at a time in the order asked: a message sent while the model is still loading
simply waits its turn. Quick questions (status, plans) use a second pool and never wait behind a
reply. With another computer's engine, documents are still embedded here, by a host of this
computer's started for that alone: passages and questions never leave the machine to be searched.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QRunnable, Signal

from app.common.crash_watch import CrashWatch
from app.common.engine_calls import ChatCall, chat_call, forget_saved_state, restarted_host
from app.common.i18n import tr
from app.common.local_embedder import LocalEmbedder
from app.common.remote_target import RemoteTarget, connect_failed_text, connect_remote
from app.common.workers import WorkerPool, post_to_ui
from engine.errors import EngineError, LoadCancelled

if TYPE_CHECKING:
    from engine.client import EngineClient, EngineStatus, LocalEngine, SavedState
    from engine.planner import Plan
    from engine.remote import RemoteEngine

log = logging.getLogger(__name__)


def _log_failure(exc: BaseException) -> None:
    log.warning("saved conversation state: %s", exc)


STARTER = "starter"
# Replies that may stream at once from the window (its own engine generates 2 at a time; more
# wait in the engine's queue, in turn).
REPLY_THREADS = 4


class EngineService(QObject):
    started = Signal()
    start_failed = Signal(str)
    load_started = Signal(str)
    load_progressed = Signal(float)
    loaded = Signal(object)  # EngineStatus
    load_failed = Signal(str, bool)  # (message, cancelled)
    status_changed = Signal(object)  # EngineStatus
    crashed = Signal(str, list)  # (what happened, the host's last log lines)
    restarted = Signal()
    # The engine in use became another computer's (RemoteEngine) or this computer's again (None).
    remote_changed = Signal(object)
    remote_connected = Signal(object)  # RemoteEngine: connected (a first use shows its pin)
    remote_failed = Signal(object)  # EngineError or ValueError: not connected; nothing changed

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.engine: LocalEngine | RemoteEngine | None = None
        self.remote: RemoteEngine | None = None  # the engine, when it is another computer's
        self.remote_target: RemoteTarget | None = None  # what to connect (again) to
        self.remote_models: list[str] = []
        # This computer's host for document embeddings while the chat engine is another's.
        self.embedder = LocalEmbedder()
        self.status: EngineStatus | None = None
        self.model: str | None = None  # what was asked to be loaded
        self.loading = False
        self.restarting = False
        self._load_cancel = threading.Event()
        self._stopping = False
        self._owned = True
        self.model_pool = WorkerPool("engine", 1)
        # Replies stream side by side (the engine generates several at once); each starts once
        # the loads queued before it are done.
        self.reply_pool = WorkerPool("replies", REPLY_THREADS)
        self.control_pool = WorkerPool("engine-control", 2)
        # Crashes, found by a timer or by a reply, reported once each (app/common/crash_watch.py).
        self.watch = CrashWatch(self, self.crashed.emit, self)

    # -- lifecycle -----------------------------------------------------------------------------

    def start(self, model: str | None = STARTER, ctx: int | None = None) -> None:
        """Start the host, then load ``model``; the window is usable meanwhile."""
        self._owned = True
        if model is not None:
            self._begin_load(model)

        def job() -> LocalEngine:
            from engine.client import LocalEngine

            engine = LocalEngine.start()
            post_to_ui(lambda: self._engine_up(engine))
            if model is not None:
                self._load_in_worker(engine, model, ctx)
            return engine

        self.model_pool.submit(job, on_error=self._start_error)

    def adopt(self, engine: LocalEngine, model: str | None = STARTER) -> None:
        """Use a host that is already running (tests share one); it is not stopped at exit
        unless ``owned``. Loads ``model`` if the host has none."""
        self._owned = False
        self.model = model
        self._engine_up(engine)

        def job() -> None:
            status = engine.client.status()
            if status.model is None and model is not None:
                post_to_ui(lambda: self._begin_load(model))
                self._load_in_worker(engine, model, None)
            else:
                post_to_ui(lambda: self._loaded(status))

        self.model_pool.submit(job, on_error=self._load_error)

    def _engine_up(self, engine: LocalEngine) -> None:
        if self._stopping:
            return
        self.engine = engine
        self.watch.start()
        self.started.emit()

    def _start_error(self, exc: BaseException) -> None:
        self.loading = False
        message = str(exc) if isinstance(exc, EngineError) else f"{type(exc).__name__}: {exc}"
        self.start_failed.emit(
            tr("Engine", "The engine could not start. {reason}").format(reason=message)
        )

    def shutdown(self) -> None:
        """Stop the host (at exit). Cancels a load in progress."""
        self._stopping = self.watch.stopping = True
        self.watch.stop()
        self._load_cancel.set()
        engine, self.engine = self.engine, None
        self.remote = None
        if engine is not None and self._owned:
            engine.stop()
            engine.client.close()
        self._stop_embedder()

    # -- another computer's engine -------------------------------------------------------------

    def use_remote(
        self,
        url: str,
        api_key: str | None,
        model: str | None = None,
        *,
        trust_fingerprint: str | None = None,
        at_start: bool = False,
    ) -> None:
        """Use the engine at ``url``: connect (checking its pinned certificate), ask for its
        models, and only then stop this computer's host; a failure changes nothing
        (``remote_failed``; at start, ``start_failed`` too). ``trust_fingerprint``: the changed
        certificate the person chose to trust."""
        target = RemoteTarget(url, api_key, model)
        if at_start:  # what a restart connects to, should this first try fail
            self.remote_target = target

        def job() -> tuple[RemoteEngine, list[str], EngineStatus]:
            return connect_remote(target, trust_fingerprint)

        def failed(exc: BaseException) -> None:
            text = connect_failed_text(url, exc)
            if self.restarting:
                self.restarting = False
                self.watch.reset()
                self.report_crash(text)
            elif at_start:
                self.start_failed.emit(text)
            self.remote_failed.emit(exc)

        self.model_pool.submit(job, lambda up: self._remote_up(target, *up), failed)

    def _remote_up(
        self, target: RemoteTarget, remote: RemoteEngine, models: list[str], status: EngineStatus
    ) -> None:
        if self._stopping:
            remote.stop()
            return
        old, owned = self.engine, self._owned
        self.watch.stop()  # nothing of this computer's to watch
        self.engine, self.remote, self._owned = remote, remote, True
        self.remote_target = dataclasses.replace(target, model=status.model)
        self.remote_models = models
        self.model = status.model
        self.watch.reset()
        if old is not None and old is not remote:
            self._retire(old, owned)
        self.remote_changed.emit(remote)
        self.started.emit()
        self._loaded(status)
        self.remote_connected.emit(remote)
        if self.restarting:
            self.restarting = False
            self.restarted.emit()

    def use_local(self, model: str | None = STARTER) -> None:
        """Back to this computer's engine host: the other computer's is let go and a host starts
        with ``model``."""
        remote, self.remote = self.remote, None
        self.remote_target = None
        self.remote_models = []
        if remote is not None:
            self.engine = None
            remote.stop()
        self.control_pool.submit(
            self._stop_embedder, None, lambda exc: log.warning("stopping the embedder: %s", exc)
        )
        self.remote_changed.emit(None)
        if self.engine is None:
            self.start(model=model)

    def _retire(self, old: LocalEngine | RemoteEngine, owned: bool) -> None:
        """Let go of the engine that was in use (off the UI thread: a host takes a moment)."""

        def job() -> None:
            if owned:
                old.stop()
                old.client.close()

        self.control_pool.submit(job, None, lambda exc: log.warning("stopping the engine: %s", exc))

    def local_embedder(self) -> EngineClient:
        """This computer's engine for document embeddings (blocking: call it on a worker thread):
        the engine in use when it is this computer's, else a host of its own, started for that
        alone. Questions and passages are never embedded on another computer."""
        return self.embedder.client(self.engine, self.remote)

    def _stop_embedder(self) -> None:
        self.embedder.stop()

    # -- loading -------------------------------------------------------------------------------

    def load(self, model: str, ctx: int | None = None) -> None:
        remote = self.remote
        if remote is not None:
            self._choose_remote_model(remote, model)
            return
        self._begin_load(model)

        def job() -> None:
            engine = self.engine
            if engine is None:
                raise EngineError(tr("Engine", "The engine is not running; restart it first."))
            self._load_in_worker(engine, model, ctx)

        self.model_pool.submit(job, on_error=self._load_error)

    def cancel_load(self) -> None:
        self._load_cancel.set()

    def warm(self, model: str) -> None:
        """Load a model chosen for a chat beside what the engine holds, so that the chat's next
        reply does not wait for it. Replies sent meanwhile start once it is in."""
        engine = self.engine
        if engine is None or self.remote is not None or model == self.model:
            return

        def failed(exc: BaseException) -> None:
            # The reply that names it will load it again and say what went wrong, if anything.
            log.info("could not load %s ahead of its chat's reply: %s", model, exc)

        self.model_pool.submit(lambda: engine.client.warm(model), self._warmed, failed)

    def _warmed(self, _result: object) -> None:
        self.refresh_status()

    def unload(self, model: str) -> None:
        """Free the memory a model in this computer's engine holds (by its name)."""
        engine = self._local_engine(lambda exc: self.load_failed.emit(str(exc), False))
        if engine is None:
            return

        def failed(exc: BaseException) -> None:
            text = tr("Engine", "Could not unload {model}: {reason}")
            text = text.format(model=model, reason=exc)
            self.load_failed.emit(text, False)

        self.control_pool.submit(
            lambda: engine.client.unload(model), lambda _: self.refresh_status(), failed
        )

    # -- measuring models (for a worker thread) ---------------------------------------------------

    def scorer(self) -> EngineClient:
        """This computer's engine, to score questions through (Compare quality). Raises
        EngineError saying why there is none."""
        errors: list[BaseException] = []
        engine = self._local_engine(errors.append)
        if engine is None:
            raise errors[0] if errors else EngineError("The engine is not running.")
        return engine.client

    def unload_now(self, model: str) -> None:
        """Let a model go (blocking); a model already gone, or an engine that is, is no error."""
        engine = self.engine
        if engine is not None and self.remote is None:
            with contextlib.suppress(EngineError):
                engine.client.unload(model)
        post_to_ui(self.refresh_status)

    def _choose_remote_model(self, remote: RemoteEngine, model: str) -> None:
        """Another computer's model is used by name from the next reply on; nothing loads."""
        if model not in self.remote_models:
            self.load_failed.emit(
                tr(
                    "Engine",
                    "{note} Choose one of its models, or use this computer's engine "
                    "(Settings › Engine) to load this one.",
                ).format(note=remote.note),
                False,
            )
            return

        def done(status: EngineStatus) -> None:
            if self.remote is remote:
                self.model = model
                if self.remote_target is not None:
                    self.remote_target = dataclasses.replace(self.remote_target, model=model)
                self._loaded(status)

        self.model_pool.submit(lambda: remote.status(model), done, self._load_error)

    def _begin_load(self, model: str) -> None:
        self._load_cancel = threading.Event()
        self.loading = True
        self.model = model
        self.load_started.emit(model)

    def _load_in_worker(
        self, engine: LocalEngine | RemoteEngine, model: str, ctx: int | None
    ) -> None:
        cancel = self._load_cancel

        def progress(fraction: float) -> None:
            post_to_ui(lambda: self.load_progressed.emit(fraction))

        try:
            status = engine.client.load(model, ctx=ctx, progress=progress, cancel=cancel)
        except BaseException as exc:
            error = exc
            post_to_ui(lambda: self._load_error(error))
            return
        post_to_ui(lambda: self._loaded(status))

    def _loaded(self, status: EngineStatus) -> None:
        self.loading = False
        self.status = status
        self.loaded.emit(status)
        self.status_changed.emit(status)

    def _load_error(self, exc: BaseException) -> None:
        self.loading = False
        cancelled = isinstance(exc, LoadCancelled)
        message = str(exc) if isinstance(exc, EngineError) else f"{type(exc).__name__}: {exc}"
        self.load_failed.emit(message, cancelled)

    # -- questions -----------------------------------------------------------------------------

    def refresh_status(self) -> None:
        engine = self.engine
        if engine is None:
            return

        def done(status: EngineStatus) -> None:
            if self.engine is engine:
                self.status = status
                self.status_changed.emit(status)

        remote, model = self.remote, self.model
        ask = (lambda: remote.status(model)) if remote is not None and model else None
        self.control_pool.submit(ask or engine.client.status, done, lambda _exc: None)

    def plan(
        self,
        model: str,
        on_done: Callable[[Plan], None],
        on_error: Callable[[BaseException], None],
    ) -> None:
        engine = self._local_engine(on_error)
        if engine is not None:
            self.control_pool.submit(lambda: engine.client.plan(model), on_done, on_error)

    def _local_engine(
        self, on_error: Callable[[BaseException], None]
    ) -> LocalEngine | RemoteEngine | None:
        """This computer's running engine host, for what only it can do (plans, saved state);
        None, with the reason given to ``on_error``, when none runs or another computer's is in
        use."""
        if self.engine is None:
            on_error(EngineError(tr("Engine", "The engine is not running.")))
            return None
        if self.remote is not None:
            on_error(EngineError(self.remote.note))
            return None
        return self.engine

    # -- conversations' saved state -------------------------------------------------------------

    def saved_state(
        self, on_done: Callable[[SavedState], None], on_error: Callable[[BaseException], None]
    ) -> None:
        """How much conversation state the engine keeps on disk, and its limit."""
        engine = self._local_engine(on_error)
        if engine is not None:
            self.control_pool.submit(engine.client.saved_state, on_done, on_error)

    def set_state_limit(self, limit_bytes: int) -> None:
        engine = self.engine
        if engine is not None and self.remote is None:
            self.control_pool.submit(
                lambda: engine.client.set_state_limit(limit_bytes), None, _log_failure
            )

    def forget_state(
        self, conversation: str | None, on_done: Callable[[Any], None] | None = None
    ) -> None:
        """Delete a conversation's saved state (all of it, when None): through the engine, which
        first finishes its writes; from the folder itself when no engine runs."""
        engine = None if self.remote is not None else self.engine

        def job() -> int:
            return forget_saved_state(engine, conversation)

        self.control_pool.submit(job, on_done, _log_failure)

    # -- replies -------------------------------------------------------------------------------

    def chat_fn(self, chosen: str | None = None) -> ChatCall:
        """For a worker: the current client's chat (looked up when the reply starts). A
        ``chosen`` model is asked for by name: the engine loads it beside what it holds."""
        engine = self.engine
        if engine is None:
            raise EngineError(
                tr(
                    "Engine",
                    "The engine is not running. Use Restart engine, then send the message again.",
                )
            )
        # Another computer's model is asked for by name.
        remote = self.remote is not None
        return chat_call(engine.client, self.model if remote else chosen, remote)

    def run(self, runnable: QRunnable) -> None:
        """Start a reply once the loads queued before it are done; replies run side by side
        (the engine takes them in turn as its sequences allow)."""
        self.model_pool.submit(lambda: None, lambda _r: self.reply_pool.start_runnable(runnable))

    def wait_for_replies(self, timeout_ms: int) -> None:
        self.model_pool.wait(timeout_ms)
        self.reply_pool.wait(timeout_ms)

    # -- crashes -------------------------------------------------------------------------------

    def report_crash(self, message: str) -> None:
        """A reply found the host dead (or the watch did). Reported once per crash."""
        self.watch.report_crash(message)

    def restart(self) -> None:
        """A fresh host with the same model; what was typed and received stays where it is."""
        if self.restarting:
            return
        self.restarting = True
        target = self.remote_target
        if target is not None:  # connect again
            self.use_remote(target.url, target.api_key, target.model)
            return
        engine = self.engine
        model = self.model or STARTER

        def job() -> LocalEngine | RemoteEngine:
            return restarted_host(engine, model)

        def done(fresh: LocalEngine | RemoteEngine) -> None:
            self.restarting = False
            self.engine = fresh
            self.watch.start()
            self.restarted.emit()
            self.refresh_status()

        def failed(exc: BaseException) -> None:
            self.restarting = False
            self.watch.reset()
            self.report_crash(
                tr("Engine", "The engine could not be restarted: {reason}").format(reason=exc)
            )

        self.model_pool.submit(job, done, failed)
