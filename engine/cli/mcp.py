"""``cove mcp list`` and the terminal's side of ``cove chat --mcp``: the servers' statuses, each
failure on its own line, and consent asked on the terminal (``--yes`` allows every call)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from engine.cli.output import print_json
from engine.mcp_servers import config
from engine.mcp_servers.consent import Decision
from engine.mcp_servers.hub import McpHub, ServerStatus, ServerTool
from engine.mcp_servers.turn import Ask, CallRecord
from engine.paths import shown
from engine.tools import ToolCall

_ANSWERS: dict[str, Decision] = {
    "o": "once",
    "once": "once",
    "y": "once",
    "yes": "once",
    "a": "always",
    "always": "always",
    "d": "deny",
    "deny": "deny",
    "n": "deny",
    "no": "deny",
}


def mcp_list_command(path: Path | None, as_json: bool) -> int:
    servers = config.load(path)
    where = path or config.default_path()
    with McpHub(servers) as hub:
        statuses = hub.statuses()
    if as_json:
        print_json({"config": str(where), "servers": [s.to_dict() for s in statuses]})
        return 0
    if not statuses:
        print(f"No MCP servers in {shown(where)}. Add them there (or in Settings).")
        return 0
    for status in statuses:
        print(_status_line(status))
        for tool in status.tools:
            summary = tool.description.strip().splitlines()[0] if tool.description.strip() else ""
            print(f"    {tool.offered}" + (f": {summary[:100]}" if summary else ""))
    return 0


def report_statuses(statuses: list[ServerStatus]) -> None:
    """Before a chat: what each server offers, and each that failed on its own line."""
    for status in statuses:
        print(f"[{_status_line(status)}]", file=sys.stderr)


def _status_line(status: ServerStatus) -> str:
    if status.state == "ready":
        count = len(status.tools)
        return f"{status.name}: ready, {count} tool{'s' if count != 1 else ''} ({status.target})"
    if status.state == "disabled":
        return f"{status.name}: disabled"
    return f"{status.name}: failed: {status.error}"


def terminal_ask(allow_all: bool) -> Ask:
    def ask(tool: ServerTool, call: ToolCall) -> Decision:
        if allow_all:
            return "once"
        arguments = json.dumps(call.arguments, ensure_ascii=False)
        print(f"\n[{tool.server} wants to run {tool.name} {arguments}]", file=sys.stderr)
        while True:
            print("Allow? [o]nce / [a]lways for this tool / [d]eny: ", end="", file=sys.stderr)
            sys.stderr.flush()
            try:
                answer = input().strip().lower()
            except EOFError:
                print("deny (no answer)", file=sys.stderr)
                return "deny"
            if answer in _ANSWERS:
                return _ANSWERS[answer]

    return ask


def show_call(record: CallRecord) -> None:
    if not record.finished:
        return
    label = {"done": "result", "failed": "error", "denied": "denied"}[record.state]
    first = record.result.strip().splitlines()[0] if record.result.strip() else ""
    more = " ..." if len(record.result.strip().splitlines()) > 1 or len(first) > 200 else ""
    print(f"[{record.server}.{record.tool} {label}: {first[:200]}{more}]", file=sys.stderr)
