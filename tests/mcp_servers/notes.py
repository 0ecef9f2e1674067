"""A small notebook as an MCP server: arithmetic, notes kept in memory, and a result that looks
like markup (to check that it is shown as text)."""

from __future__ import annotations

import sys

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

app = MCPServer("notes")
_notes: dict[str, str] = {"groceries": "eggs, flour, milk"}


@app.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@app.tool()
def read_note(title: str) -> str:
    """Read the note with this title."""
    if title not in _notes:
        raise ToolError(f"no note called {title!r}; there are: {', '.join(sorted(_notes))}")
    return _notes[title]


@app.tool()
def save_note(title: str, text: str) -> str:
    """Save a note under a title (replacing one of the same title)."""
    _notes[title] = text
    return f"saved {title!r}"


@app.tool()
def page_title() -> str:
    """The title of the current page, as HTML."""
    return '<b>Quarterly report</b><img src="http://127.0.0.1:9/x.png"><script>alert(1)</script>'


if __name__ == "__main__":
    # ``--http PORT``: Streamable HTTP on the loopback address instead of stdio.
    if len(sys.argv) == 3 and sys.argv[1] == "--http":
        app.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        app.run()
