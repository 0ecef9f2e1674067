"""The MCP server list as it moves to another computer (engine/store/archive.py's section
``mcp_servers.json``): every server, with the values of its environment and headers left out.

Those values are where API keys live, and an archive is a file a person copies around. Their
names stay, so whoever imports the list knows what to fill in; a server that needs any comes in
switched off until they do. A server whose name is on the list here already is left as it is.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from engine.errors import McpConfigError
from engine.mcp_servers import config

__all__ = ["ServerListMerged", "ServerListPart"]


@dataclass(frozen=True, slots=True)
class ServerListMerged:
    added: int
    missing: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


def _without_secrets(server: config.ServerConfig) -> dict[str, Any]:
    data = server.to_dict()
    for key in ("env", "headers"):
        if key in data:
            data[key] = dict.fromkeys(data[key], "")
    return {"name": server.name, **data}


def _parse(entries: list[dict[str, Any]]) -> list[config.ServerConfig]:
    servers: dict[str, Any] = {}
    for number, entry in enumerate(entries, start=1):
        name = entry.get("name")
        if not isinstance(name, str) or not name.strip():
            raise ValueError(f"server {number} has no name")
        if name in servers:
            raise ValueError(f"the server {name!r} is listed twice")
        servers[name] = {k: v for k, v in entry.items() if k != "name"}
    try:
        return config.parse({"mcpServers": servers}, "the archive's MCP server list")
    except McpConfigError as exc:
        raise ValueError(str(exc)) from None


@dataclass(frozen=True, slots=True)
class ServerListPart:
    """The MCP server list in ``data_dir`` (``mcp.json``), as an archive's section."""

    def export(self, data_dir: Path) -> list[dict[str, Any]]:
        path = data_dir / config.CONFIG_FILENAME
        if not path.exists():
            return []
        return [_without_secrets(s) for s in config.load(path)]

    def check(self, entries: list[dict[str, Any]]) -> None:
        _parse(entries)

    def merge(self, entries: list[dict[str, Any]], data_dir: Path) -> ServerListMerged:
        path = data_dir / config.CONFIG_FILENAME
        here = config.load(path) if path.exists() else []
        names = {s.name for s in here}
        added: list[config.ServerConfig] = []
        notes: list[str] = []
        for server in _parse(entries):
            if server.name in names:
                continue
            blanks = [k for k, v in (*server.env.items(), *server.headers.items()) if not v]
            if blanks:
                server = replace(server, disabled=True)
                notes.append(
                    f"The MCP server {server.name!r} was added switched off: fill in "
                    f"{', '.join(blanks)} and switch it on."
                )
            added.append(server)
        if added:
            config.save([*here, *added], path)
        return ServerListMerged(len(added), (), tuple(notes))
