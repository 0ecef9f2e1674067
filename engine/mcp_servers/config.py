"""The MCP server list: ``{"mcpServers": {NAME: {...}}}``, as Claude Desktop, LM Studio and
Cursor write it. A stdio server has ``command`` (with ``args``, ``env``, ``cwd``); a Streamable
HTTP server has ``url`` (with ``headers``). ``"disabled": true`` keeps an entry without starting
it. Cove's own list lives in its data folder; ``--mcp FILE`` reads another."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.errors import McpConfigError
from engine.paths import data_dir, shown

CONFIG_FILENAME = "mcp.json"
_STDIO_FIELDS = {"command", "args", "env", "cwd", "type", "disabled", "timeout"}
_HTTP_FIELDS = {"url", "headers", "type", "disabled", "timeout"}
# What other apps write beside a server and Cove does not use: accepted, not an error.
_IGNORED_FIELDS = {"description", "autoApprove", "alwaysAllow", "transportType", "envFile"}
DEFAULT_START_TIMEOUT_S = 30.0


@dataclass(frozen=True, slots=True)
class ServerConfig:
    name: str
    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    disabled: bool = False
    timeout_s: float = DEFAULT_START_TIMEOUT_S

    @property
    def transport(self) -> str:
        return "stdio" if self.command is not None else "http"

    def describe(self) -> str:
        """What starts or reaches it, as a person reads it: a program by its name, paths in the
        home folder from ``~``; never the environment or the headers (they may hold keys)."""
        if self.command is not None:
            program = Path(self.command).name if os.path.isabs(self.command) else self.command
            return " ".join([program, *(shown(a) if os.path.isabs(a) else a for a in self.args)])
        return self.url or ""

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any]
        if self.command is not None:
            data = {"command": self.command, "args": list(self.args)}
            if self.env:
                data["env"] = dict(self.env)
            if self.cwd:
                data["cwd"] = self.cwd
        else:
            data = {"url": self.url}
            if self.headers:
                data["headers"] = dict(self.headers)
        if self.disabled:
            data["disabled"] = True
        if self.timeout_s != DEFAULT_START_TIMEOUT_S:
            data["timeout"] = self.timeout_s
        return data


def default_path() -> Path:
    return data_dir() / CONFIG_FILENAME


def load(path: Path | None = None) -> list[ServerConfig]:
    """The servers a list names, in its order. No file means no servers."""
    path = path or default_path()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        if path == default_path():
            return []
        raise McpConfigError(f"No MCP server list at {path}.") from None
    except OSError as exc:
        raise McpConfigError(f"Cannot read {path}: {exc.strerror or exc}.") from None
    try:
        data = json.loads(text) if text.strip() else {}
    except ValueError as exc:
        raise McpConfigError(f"{path} is not valid JSON ({exc}).") from None
    return parse(data, str(path))


def parse(data: object, where: str = "mcp.json") -> list[ServerConfig]:
    if not isinstance(data, Mapping):
        raise McpConfigError(f"{where} must be a JSON object with 'mcpServers'.")
    servers = data.get("mcpServers", data.get("servers", {}))
    if not isinstance(servers, Mapping):
        raise McpConfigError(f"{where}: 'mcpServers' must be an object of named servers.")
    return [_server(str(name), raw, where) for name, raw in servers.items()]


def save(servers: Sequence[ServerConfig], path: Path | None = None) -> None:
    """Write the list atomically (a crash mid-write leaves the old list)."""
    path = path or default_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    body = {"mcpServers": {s.name: s.to_dict() for s in servers}}
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(body, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def _server(name: str, raw: object, where: str) -> ServerConfig:
    at = f"{where}: server {name!r}"
    if not name.strip():
        raise McpConfigError(f"{where}: a server has an empty name.")
    if not isinstance(raw, Mapping):
        raise McpConfigError(f"{at} must be an object with 'command' or 'url'.")
    kind = raw.get("type")
    if kind is not None and kind not in ("stdio", "http", "streamable-http", "streamableHttp"):
        raise McpConfigError(
            f"{at}: transport {kind!r} is not supported (stdio and Streamable HTTP are)."
        )
    has_command, has_url = "command" in raw, "url" in raw
    if has_command == has_url:
        raise McpConfigError(f"{at} needs exactly one of 'command' (stdio) or 'url' (HTTP).")
    allowed = (_STDIO_FIELDS if has_command else _HTTP_FIELDS) | _IGNORED_FIELDS
    extra = sorted(set(raw) - allowed)
    if extra:
        raise McpConfigError(f"{at} has a field Cove does not know: {extra[0]!r}.")
    disabled = raw.get("disabled", False)
    if not isinstance(disabled, bool):
        raise McpConfigError(f"{at}: 'disabled' must be true or false.")
    timeout = raw.get("timeout", DEFAULT_START_TIMEOUT_S)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
        raise McpConfigError(f"{at}: 'timeout' must be a positive number of seconds.")
    if has_command:
        command = raw["command"]
        if not isinstance(command, str) or not command.strip():
            raise McpConfigError(f"{at}: 'command' must be a non-empty string.")
        return ServerConfig(
            name,
            command=command,
            args=tuple(_strings(raw.get("args", []), f"{at}: 'args'")),
            env=_string_map(raw.get("env", {}), f"{at}: 'env'"),
            cwd=_optional_string(raw.get("cwd"), f"{at}: 'cwd'"),
            disabled=disabled,
            timeout_s=float(timeout),
        )
    url = raw["url"]
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        raise McpConfigError(f"{at}: 'url' must be an http:// or https:// address.")
    return ServerConfig(
        name,
        url=url,
        headers=_string_map(raw.get("headers", {}), f"{at}: 'headers'"),
        disabled=disabled,
        timeout_s=float(timeout),
    )


def _strings(value: object, what: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise McpConfigError(f"{what} must be a list of strings.")
    return list(value)


def _string_map(value: object, what: str) -> dict[str, str]:
    if not isinstance(value, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise McpConfigError(f"{what} must be an object of strings.")
    return dict(value)


def _optional_string(value: object, what: str) -> str | None:
    if value is None or isinstance(value, str):
        return value
    raise McpConfigError(f"{what} must be a string.")
