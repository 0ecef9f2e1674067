"""The window's MCP servers: the list in Cove's data folder, connected off the UI thread when the
window opens (and again after the list changes), their statuses for Settings, and the tools a
chat may offer. With no servers in the list nothing starts: no process, no connection.

Consent is asked inside the reply that needs it: the generation worker waits in ``ask`` while
the call's card shows Allow once / Always allow this tool / Deny; stopping the reply denies."""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field

from PySide6.QtCore import QObject, Signal

from app.common.workers import WorkerPool
from engine.mcp_servers import (
    Ask,
    ConsentStore,
    Decision,
    McpHub,
    ServerStatus,
    ServerTool,
    ToolSource,
    config,
)
from engine.tools import ToolCall

log = logging.getLogger(__name__)
ENABLED_SETTING = "mcp_tools_enabled"


@dataclass(frozen=True, slots=True)
class ToolsRequest:
    """What a reply needs to use tools: where they run, the remembered consent, and how to ask."""

    source: ToolSource
    consent: ConsentStore
    ask: Ask


@dataclass(slots=True)
class _Pending:
    answered: threading.Event = field(default_factory=threading.Event)
    decision: Decision = "deny"


class ConsentBroker:
    """The worker asks (and waits); the UI answers by the call's id. The card appears as the
    call is announced, a moment before the worker asks: an answer given in between waits here
    for its question."""

    def __init__(self) -> None:
        self._pending: dict[str, _Pending] = {}
        self._lock = threading.Lock()

    def _entry(self, call_id: str) -> _Pending:
        with self._lock:
            return self._pending.setdefault(call_id, _Pending())

    def asker(self, cancel: threading.Event) -> Ask:
        def ask(_tool: ServerTool, call: ToolCall) -> Decision:
            pending = self._entry(call.id)
            try:
                while not pending.answered.wait(0.1):
                    if cancel.is_set():
                        return "deny"
                return pending.decision
            finally:
                with self._lock:
                    self._pending.pop(call.id, None)

        return ask

    def answer(self, call_id: str, decision: Decision) -> bool:
        pending = self._entry(call_id)
        if pending.answered.is_set():
            return False
        pending.decision = decision
        pending.answered.set()
        return True

    def waiting(self) -> list[str]:
        with self._lock:
            return [k for k, v in self._pending.items() if not v.answered.is_set()]


class McpService(QObject):
    statuses_changed = Signal(list)  # list[ServerStatus]

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.pool = WorkerPool("mcp", 1)
        self.consent = ConsentStore()
        self.broker = ConsentBroker()
        self.enabled = True
        self.error = ""  # the list itself could not be read
        self._hub: McpHub | None = None
        self._statuses: list[ServerStatus] = []
        self.starting = False

    # -- the list and its connections --------------------------------------------------------------

    def servers(self) -> list[config.ServerConfig]:
        try:
            return config.load()
        except Exception as exc:
            self.error = str(exc)
            return []

    def start(self) -> None:
        """(Re)connect the list's servers off the UI thread."""
        self.starting = True
        old, self._hub = self._hub, None

        def job() -> tuple[McpHub | None, list[ServerStatus], str]:
            if old is not None:
                old.close()
            try:
                servers = config.load()
            except Exception as exc:
                return None, [], str(exc)
            if not servers:
                return None, [], ""
            hub = McpHub(servers)
            return hub, hub.start(), ""

        def done(result: tuple[McpHub | None, list[ServerStatus], str]) -> None:
            self._hub, self._statuses, self.error = result
            self.starting = False
            self.statuses_changed.emit(list(self._statuses))

        def failed(exc: BaseException) -> None:
            self.starting = False
            self.error = f"{type(exc).__name__}: {exc}"
            self.statuses_changed.emit([])

        self.pool.submit(job, done, failed)

    def save(self, servers: list[config.ServerConfig]) -> None:
        config.save(servers)
        self.start()

    def statuses(self) -> list[ServerStatus]:
        return list(self._statuses)

    def close(self) -> None:
        hub, self._hub = self._hub, None
        if hub is not None:
            hub.close()
        self.pool.wait(10_000)

    # -- what a reply gets -------------------------------------------------------------------------

    def request(self, cancel: threading.Event) -> ToolsRequest | None:
        hub = self._hub
        if not self.enabled or hub is None or not hub.tools():
            return None
        return ToolsRequest(hub, self.consent, self.broker.asker(cancel))
