"""Real MCP servers for the tests, written with the official SDK and run as their own processes
over stdio, as a person's own servers would be."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
NOTES = HERE / "notes.py"
CRASHES = HERE / "crashes.py"
LINGERS = HERE / "lingers.py"


def entry(script: Path, *args: str) -> dict[str, Any]:
    """An ``mcp.json`` entry that runs ``script`` with this Python."""
    return {"command": sys.executable, "args": [str(script), *args]}
