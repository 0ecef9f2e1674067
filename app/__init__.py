"""Cove's desktop window (PySide6). Talks to the engine through its client, never to a runtime."""
