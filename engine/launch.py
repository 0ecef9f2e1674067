"""How Cove starts a Python module of its own in a new process (the engine host, the hardware
probe): ``python -m MODULE`` when it runs from Python; the bundle's own executable with
``--run-module MODULE`` when it runs frozen (a bundle has no ``python`` to call)."""

from __future__ import annotations

import contextlib
import ctypes
import logging
import os
import signal
import sys
import threading
from collections.abc import Callable, Mapping

RUN_MODULE = "--run-module"
# The process that started this one, for a child that must end with it (``die_with_parent``).
PARENT_ENV = "COVE_PARENT_PID"
PARENT_POLL_S = 0.2
_PR_SET_PDEATHSIG = 1  # prctl(2)


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


def child_env(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment for a child that must not outlive this process: it names this process,
    and the child's ``die_with_parent`` watches it."""
    return {**(os.environ if env is None else env), PARENT_ENV: str(os.getpid())}


def die_with_parent(on_orphaned: Callable[[], None] | None = None) -> None:
    """In a process Cove started with ``child_env``: end when the process that started it ends,
    however it ends (a kill -9, a closed terminal, a crash), calling ``on_orphaned`` first (to stop
    listening). A thread checks the parent's process id every ``PARENT_POLL_S``, on every system
    and also while the main thread is held in native code (llama.cpp's RPC server); on Linux the
    kernel's signal of the loss (``PR_SET_PDEATHSIG``) wakes it at once where the main thread runs
    Python. The variable is taken out of this process's environment, so that its own children
    (which watch it, not its parent) do not inherit it."""
    raw = os.environ.pop(PARENT_ENV, "")
    if not raw.isdigit():
        return
    parent = int(raw)
    wake = threading.Event()
    if sys.platform.startswith("linux") and threading.current_thread() is threading.main_thread():
        # The signal also comes when the thread that started this process ends while its
        # process lives on, so it only wakes the watch, which checks who the parent is.
        signal.signal(signal.SIGUSR1, lambda *_: wake.set())
        signal.siginterrupt(signal.SIGUSR1, False)  # a native call it lands in goes on
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGUSR1, 0, 0, 0)

    def watch() -> None:
        while os.getppid() == parent:
            wake.wait(PARENT_POLL_S)
            wake.clear()
        logging.getLogger("cove").warning("the process that started this one is gone; ending")
        if on_orphaned is not None:
            with contextlib.suppress(Exception):
                on_orphaned()
        os._exit(1)

    # Checked after the signal is set: a parent lost before that is seen at once.
    threading.Thread(target=watch, name="cove-parent-watch", daemon=True).start()
