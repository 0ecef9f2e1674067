"""MCP servers a person chose to give their model: the server list (``mcp.json``, in the format
Claude Desktop, LM Studio and Cursor share), the connections to them (the official ``mcp`` SDK,
stdio and Streamable HTTP), the consent each call needs, and the loop that runs a chat turn with
their tools through the engine's own tool-calling API.

Nothing here starts a server that the list does not name; an empty list starts nothing."""
