"""An MCP server that dies as it starts, as a misconfigured one does."""

from __future__ import annotations

import sys

print("notes database not found: /nonexistent/notes.db", file=sys.stderr)
sys.exit(3)
