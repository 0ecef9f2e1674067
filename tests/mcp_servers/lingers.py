"""An MCP server that outlives its input: when the stdio connection closes it goes on running for
a while (as a server with work of its own in the background would), ending by itself after two
minutes at most. Only something that ends it with the program that started it stops it sooner."""

from __future__ import annotations

import time

from mcp.server.mcpserver import MCPServer

app = MCPServer("lingers")


@app.tool()
def ping() -> str:
    """Answers pong."""
    return "pong"


if __name__ == "__main__":
    app.run()
    time.sleep(120)  # bounded: never a process left for good
