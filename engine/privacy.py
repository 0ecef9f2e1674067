"""Nothing leaves the machine unless the user asks: every dependency's telemetry is switched off
before any of them is imported.

``engine/__init__.py`` calls :func:`apply` first, so any import of any engine module
(the app, the CLI, the engine host, every process they spawn, the tests) has these variables set
before a runtime can read them. Child processes inherit them through the environment.

The values are forced, not defaulted: a stray ``ORT_DISABLE_TELEMETRY=0`` in a user's shell must
not turn reporting back on. docs/PRIVACY.md lists what each one stops.
"""

from __future__ import annotations

import os
from collections.abc import MutableMapping
from typing import Final

# Each switch is the dependency's documented opt-out.
TELEMETRY_OFF: Final[dict[str, str]] = {
    # ONNX Runtime (1.29+ official Linux/macOS builds, and onnxruntime-genai through it): no
    # uploader thread, no events, no device identifier, no offline event cache under
    # ~/.cache/Microsoft/DeveloperTools. Read once, when its environment is first created.
    "ORT_DISABLE_TELEMETRY": "1",
    # huggingface_hub: no usage pings on downloads and library calls.
    "HF_HUB_DISABLE_TELEMETRY": "1",
    # The cross-tool convention (consoledonottrack.com) that several libraries honour.
    "DO_NOT_TRACK": "1",
}


def apply(environ: MutableMapping[str, str] | None = None) -> None:
    """Set every telemetry opt-out in ``environ`` (the process environment by default)."""
    target = os.environ if environ is None else environ
    target.update(TELEMETRY_OFF)
