"""How Cove starts a Python module of its own in a new process (the engine host, the hardware
probe): ``python -m MODULE`` when it runs from Python; the bundle's own executable with
``--run-module MODULE`` when it runs frozen (a bundle has no ``python`` to call)."""

from __future__ import annotations

import logging
import sys

RUN_MODULE = "--run-module"


def frozen() -> bool:
    return bool(getattr(sys, "frozen", False))


def module_command(module: str) -> list[str]:
    if frozen():
        return [sys.executable, RUN_MODULE, module]
    return [sys.executable, "-m", module]


def setup_logging() -> None:
    """What a process Cove started logs: Cove's own messages, timestamped, on stderr."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
    root = logging.getLogger("cove")
    root.handlers[:] = [handler]
    root.setLevel(logging.INFO)
    root.propagate = False
