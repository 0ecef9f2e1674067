"""Consent for tool calls: every call is asked about unless the person chose "Always allow this
tool" for that server's tool, which is remembered (in the data folder) until withdrawn."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Literal

from engine.paths import data_dir

Decision = Literal["once", "always", "deny"]
CONSENT_FILENAME = "mcp-consent.json"


class ConsentStore:
    def __init__(self, path: Path | None = None) -> None:
        self.path = path or data_dir() / CONSENT_FILENAME
        self._lock = threading.Lock()
        self._always = self._read()

    def allowed(self, server: str, tool: str) -> bool:
        with self._lock:
            return tool in self._always.get(server, set())

    def record(self, server: str, tool: str, decision: Decision) -> None:
        """Remember "always"; "once" and "deny" are for this call only."""
        if decision != "always":
            return
        with self._lock:
            self._always.setdefault(server, set()).add(tool)
            self._write()

    def forget(self, server: str, tool: str | None = None) -> None:
        """Ask again for ``tool`` (every tool of ``server`` when None)."""
        with self._lock:
            if tool is None:
                self._always.pop(server, None)
            else:
                self._always.get(server, set()).discard(tool)
            self._write()

    def always_allowed(self) -> dict[str, list[str]]:
        with self._lock:
            return {s: sorted(t) for s, t in self._always.items() if t}

    def _read(self) -> dict[str, set[str]]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}  # none yet, or unreadable: ask again, which is the safe side
        raw = data.get("always_allow") if isinstance(data, dict) else None
        if not isinstance(raw, dict):
            return {}
        return {
            str(server): {str(t) for t in tools if isinstance(t, str)}
            for server, tools in raw.items()
            if isinstance(tools, list)
        }

    def _write(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        body = {"always_allow": {s: sorted(t) for s, t in self._always.items() if t}}
        tmp = self.path.with_name(self.path.name + ".tmp")
        tmp.write_text(json.dumps(body, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        os.replace(tmp, self.path)
