"""Connections to the MCP servers of a list, held open for a chat: each server is started (or
reached) at once, with its own time limit, and listed; one that fails is reported on its own and
never hides the others' tools. Calls run on the connection's own event loop, in a thread of its
own, so that callers (the window's worker, the terminal) stay synchronous.

A tool's result is untrusted input: it is turned into plain text here and nothing else."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import threading
from collections.abc import Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TextIO

from engine.mcp_servers.config import ServerConfig
from engine.paths import log_dir
from engine.tools import Tool

State = Literal["ready", "failed", "disabled"]
DEFAULT_CALL_TIMEOUT_S = 120.0
MAX_RESULT_CHARS = 20_000  # what a result may add to the model's context
_OFFERED_NAME = re.compile(r"[^A-Za-z0-9_\-.]")


@dataclass(frozen=True, slots=True)
class ServerTool:
    server: str
    name: str  # on its server
    offered: str  # to the model: unique among all servers' tools
    description: str
    parameters: Mapping[str, Any]

    def to_tool(self) -> Tool:
        return Tool(self.offered, self.description, dict(self.parameters))


@dataclass(frozen=True, slots=True)
class ServerStatus:
    name: str
    transport: str
    target: str  # the command or the address
    state: State
    error: str = ""
    tools: tuple[ServerTool, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "transport": self.transport,
            "target": self.target,
            "state": self.state,
            "error": self.error or None,
            "tools": [
                {"name": t.name, "offered_as": t.offered, "description": t.description}
                for t in self.tools
            ],
        }


@dataclass(frozen=True, slots=True)
class ToolResult:
    text: str
    is_error: bool = False


class McpHub:
    """``start()`` connects every enabled server; ``close()`` ends them all (stdio servers'
    processes included). Safe to use from any thread."""

    def __init__(self, servers: Sequence[ServerConfig], logs: Path | None = None) -> None:
        self._configs = list(servers)
        self._logs = logs or log_dir()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run_loop, name="cove-mcp", daemon=True)
        self._sessions: dict[str, Any] = {}  # name -> connected mcp.Client
        self._stops: dict[str, asyncio.Event] = {}
        self._tasks: list[Future[None]] = []
        self._statuses: list[ServerStatus] = []
        self._lock = threading.Lock()
        self._started = False

    def __enter__(self) -> McpHub:
        self.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    # -- lifecycle ---------------------------------------------------------------------------------

    def start(self) -> list[ServerStatus]:
        """Connect every enabled server at once; return each one's status, in the list's
        order. Never raises for a server: its failure is its status."""
        if self._started:
            return self.statuses()
        self._started = True
        if not any(not c.disabled for c in self._configs):
            self._statuses = [_disabled(c) for c in self._configs]
            return self.statuses()
        self._thread.start()
        pending = {c.name: self._submit(self._connect(c)) for c in self._configs if not c.disabled}
        found: dict[str, ServerStatus] = {}
        for config in self._configs:
            if config.disabled:
                found[config.name] = _disabled(config)
                continue
            try:
                found[config.name] = pending[config.name].result()
            except Exception as exc:  # a bug here must not hide the other servers
                found[config.name] = _failed(config, f"{type(exc).__name__}: {exc}")
        self._statuses = _offer_names([found[c.name] for c in self._configs])
        return self.statuses()

    def close(self) -> None:
        if not self._thread.is_alive():
            return
        for stop in list(self._stops.values()):
            self._loop.call_soon_threadsafe(stop.set)
        for task in self._tasks:
            with contextlib.suppress(Exception):
                task.result(timeout=10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)

    def statuses(self) -> list[ServerStatus]:
        with self._lock:
            return list(self._statuses)

    def tools(self) -> list[ServerTool]:
        return [t for s in self.statuses() if s.state == "ready" for t in s.tools]

    def find(self, offered: str) -> ServerTool | None:
        return next((t for t in self.tools() if t.offered == offered), None)

    # -- calls -------------------------------------------------------------------------------------

    def call(
        self,
        tool: ServerTool,
        arguments: Mapping[str, Any],
        timeout_s: float = DEFAULT_CALL_TIMEOUT_S,
    ) -> ToolResult:
        """Run one tool; a failure (the server gone, a time-out, the tool's own error) is a
        result marked as an error, which the model reads like any other."""
        session = self._sessions.get(tool.server)
        if session is None:
            return ToolResult(f"The MCP server {tool.server!r} is not connected.", True)
        future: Future[ToolResult] = self._submit(
            _call(session, tool.name, dict(arguments), timeout_s)
        )
        try:
            return future.result(timeout=timeout_s + 5)
        except TimeoutError:
            future.cancel()
            return ToolResult(
                f"{tool.name} on {tool.server} gave no result in {timeout_s:g} s.", True
            )
        except Exception as exc:
            return ToolResult(f"{tool.name} on {tool.server} failed: {_reason(exc)}", True)

    # -- the loop's side ---------------------------------------------------------------------------

    def _run_loop(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._loop.run_forever()

    def _submit(self, coro: Any) -> Future[Any]:
        return asyncio.run_coroutine_threadsafe(coro, self._loop)

    async def _connect(self, config: ServerConfig) -> ServerStatus:
        """Start ``config``'s server in a task that holds its connection until ``close``;
        wait for its tool list up to its time limit."""
        ready: asyncio.Future[ServerStatus] = self._loop.create_future()
        stop = asyncio.Event()
        self._stops[config.name] = stop
        task = self._loop.create_task(self._hold(config, ready, stop))
        try:
            return await asyncio.wait_for(asyncio.shield(ready), config.timeout_s)
        except TimeoutError:
            task.cancel()
            return _failed(
                config, f"did not answer within {config.timeout_s:g} s{self._tail(config)}"
            )

    async def _hold(
        self, config: ServerConfig, ready: asyncio.Future[ServerStatus], stop: asyncio.Event
    ) -> None:
        from mcp import Client

        errlog = self._errlog(config)
        try:
            async with Client(_transport(config, errlog), read_timeout_seconds=60) as client:
                tools = await _list_tools(client)
                self._sessions[config.name] = client
                if not ready.done():
                    ready.set_result(
                        ServerStatus(
                            config.name,
                            config.transport,
                            config.describe(),
                            "ready",
                            tools=tuple(
                                ServerTool(
                                    config.name,
                                    t.name,
                                    t.name,
                                    t.description or "",
                                    t.input_schema or {"type": "object"},
                                )
                                for t in tools
                            ),
                        )
                    )
                await stop.wait()
        except BaseException as exc:  # every way a server fails is its status
            if not ready.done():
                errlog.flush()
                ready.set_result(_failed(config, _reason(exc) + self._tail(config)))
            if isinstance(exc, asyncio.CancelledError | KeyboardInterrupt | SystemExit):
                raise
        finally:
            self._sessions.pop(config.name, None)
            errlog.close()

    def _errlog(self, config: ServerConfig) -> TextIO:
        """A stdio server's stderr goes to its own log, whose last line explains a failure."""
        self._logs.mkdir(parents=True, exist_ok=True)
        return open(self._log_path(config), "w", encoding="utf-8")

    def _log_path(self, config: ServerConfig) -> Path:
        return self._logs / f"mcp-{_OFFERED_NAME.sub('_', config.name)}.log"

    def _tail(self, config: ServerConfig) -> str:
        try:
            lines = self._log_path(config).read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""
        last = [line.strip() for line in lines.splitlines() if line.strip()]
        return f" (it said: {last[-1][:300]})" if last else ""


def _transport(config: ServerConfig, errlog: TextIO) -> Any:
    if config.command is not None:
        from mcp import StdioServerParameters
        from mcp.client.stdio import stdio_client

        from engine.launch import guarded_command

        # The server ends with this process, a kill -9 of it included.
        command, args = guarded_command(config.command, config.args)
        params = StdioServerParameters(
            command=command,
            args=args,
            env=dict(config.env) or None,
            cwd=config.cwd,
        )
        return stdio_client(params, errlog=errlog)
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    assert config.url is not None
    http = create_mcp_http_client(headers=dict(config.headers)) if config.headers else None
    return streamable_http_client(config.url, http_client=http)


async def _list_tools(client: Any) -> list[Any]:
    tools: list[Any] = []
    cursor: str | None = None
    for _page in range(100):  # a server whose pages never end cannot hang the start
        result = await client.list_tools(cursor=cursor)
        tools.extend(result.tools)
        cursor = result.next_cursor
        if not cursor:
            break
    return tools


async def _call(client: Any, name: str, arguments: dict[str, Any], timeout_s: float) -> ToolResult:
    result = await client.call_tool(name, arguments, read_timeout_seconds=timeout_s)
    return ToolResult(result_text(result.content, result.structured_content), bool(result.is_error))


def result_text(content: Sequence[Any], structured: object = None) -> str:
    """A tool result as plain text: text parts as they are, other parts named, never
    interpreted. Longer than MAX_RESULT_CHARS is cut, and says so."""
    parts: list[str] = []
    for item in content:
        kind = getattr(item, "type", "")
        if kind == "text":
            parts.append(str(item.text))
        elif kind in ("image", "audio"):
            parts.append(f"[{kind}: {getattr(item, 'mime_type', '') or 'unknown type'}]")
        elif kind == "resource":
            resource = item.resource
            text = getattr(resource, "text", None)
            parts.append(str(text) if text is not None else f"[resource: {resource.uri}]")
        elif kind == "resource_link":
            parts.append(f"[link: {item.uri}]")
        else:
            parts.append(f"[{kind or 'unknown'} content]")
    text = "\n".join(parts)
    if not text and structured is not None:
        text = json.dumps(structured, ensure_ascii=False)
    if len(text) > MAX_RESULT_CHARS:
        text = text[:MAX_RESULT_CHARS] + f"\n[cut: the result had {len(text):,} characters]"
    return text


def _offer_names(statuses: list[ServerStatus]) -> list[ServerStatus]:
    """The names the model sees: a tool's own, made safe for the API; where two servers share
    one, both get their server's name in front."""
    counts: dict[str, int] = {}
    for status in statuses:
        for tool in status.tools:
            key = _safe(tool.name)
            counts[key] = counts.get(key, 0) + 1
    out = []
    for status in statuses:
        tools = tuple(
            ServerTool(
                t.server,
                t.name,
                _safe(t.name) if counts[_safe(t.name)] == 1 else _safe(f"{t.server}__{t.name}"),
                t.description,
                t.parameters,
            )
            for t in status.tools
        )
        out.append(
            ServerStatus(
                status.name, status.transport, status.target, status.state, status.error, tools
            )
        )
    return out


def _safe(name: str) -> str:
    return _OFFERED_NAME.sub("_", name)[:64] or "tool"


def _disabled(config: ServerConfig) -> ServerStatus:
    return ServerStatus(config.name, config.transport, config.describe(), "disabled")


def _failed(config: ServerConfig, why: str) -> ServerStatus:
    return ServerStatus(config.name, config.transport, config.describe(), "failed", why)


def _reason(exc: BaseException) -> str:
    """The innermost readable cause (anyio wraps a task's failure in exception groups)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, FileNotFoundError):
        return f"cannot start it: {exc.filename or exc} was not found"
    if str(exc).strip() == "Connection closed":  # the SDK's word for a server that went away
        return "it stopped before it was ready"
    message = str(exc).strip()
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__
