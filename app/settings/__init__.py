"""The Settings page: Appearance, Engine, MCP servers, Saved state, Privacy."""
