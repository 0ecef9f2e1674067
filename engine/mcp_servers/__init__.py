"""MCP servers a person chose to give their model: the server list (``mcp.json``, in the format
Claude Desktop, LM Studio and Cursor share), the connections to them (the official ``mcp`` SDK,
stdio and Streamable HTTP), the consent each call needs, and the loop that runs a chat turn with
their tools through the engine's own tool-calling API.

Nothing here starts a server that the list does not name; an empty list starts nothing."""

# What the window uses, from the modules that hold it.
from engine.mcp_servers.consent import ConsentStore, Decision
from engine.mcp_servers.hub import McpHub, ServerStatus, ServerTool
from engine.mcp_servers.portable import ServerListPart
from engine.mcp_servers.turn import Ask, CallRecord, ToolSource, run_turn

__all__ = [
    "Ask",
    "CallRecord",
    "ConsentStore",
    "Decision",
    "McpHub",
    "ServerListPart",
    "ServerStatus",
    "ServerTool",
    "ToolSource",
    "run_turn",
]
