"""Cove's desktop window (PySide6). Talks to the engine through its client, never to a runtime.

Importing ``engine`` first sets every dependency's telemetry switch off (engine/privacy.py) before
anything the window loads can read it.
"""

import engine as _engine  # noqa: F401
