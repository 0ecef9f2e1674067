"""How Cove starts a Python module of its own in a new process (the engine host, the hardware
probe): ``python -m MODULE`` when it runs from Python; the bundle's own executable with
``--run-module MODULE`` when it runs frozen (a bundle has no ``python`` to call)."""

from __future__ import annotations

import contextlib
import ctypes
import logging
import os
import select
import shutil
import signal
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence

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


def die_with_parent() -> None:
    """In a process Cove started with ``child_env``: end when the process that started it ends,
    however it ends (a kill -9, a closed terminal, a crash). The variable is taken out of this
    process's environment, so that its own children (which watch it, not its parent) do not
    inherit it."""
    raw = os.environ.pop(PARENT_ENV, "")
    if raw.isdigit():
        watch_parent(int(raw), _end_orphaned)


def _end_orphaned() -> None:
    logging.getLogger("cove").warning("the process that started this one is gone; ending")
    os._exit(1)


def watch_parent(parent: int, on_orphaned: Callable[[], None]) -> None:
    """Call ``on_orphaned`` once, when ``parent`` is no longer this process's parent (it ended,
    however it ended). A thread checks every ``PARENT_POLL_S``, on every system and also while
    the main thread is held in native code (llama.cpp's RPC server); on Linux the kernel's signal
    of the loss (``PR_SET_PDEATHSIG``) wakes it at once where the main thread runs Python."""
    import psutil

    wake: int | None = None  # the end of a pipe the signal writes to
    if sys.platform.startswith("linux") and threading.current_thread() is threading.main_thread():
        # The signal also comes when the thread that started this process ends while its
        # process lives on, so it only wakes the watch, which checks who the parent is. Its
        # handler takes no lock (it may land while the main thread holds one): it writes a byte.
        wake, poke = os.pipe()
        os.set_blocking(poke, False)
        signal.signal(signal.SIGUSR1, lambda *_: _poke(poke))
        signal.siginterrupt(signal.SIGUSR1, False)  # a native call it lands in goes on
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGUSR1, 0, 0, 0)

    def watch() -> None:
        # Windows keeps a dead parent's id as the parent's: its existence is checked too.
        while os.getppid() == parent and psutil.pid_exists(parent):
            if wake is None:
                time.sleep(PARENT_POLL_S)
            elif select.select([wake], [], [], PARENT_POLL_S)[0]:
                os.read(wake, 64)
        with contextlib.suppress(Exception):
            on_orphaned()

    # Checked after the signal is set: a parent lost before that is seen at once.
    threading.Thread(target=watch, name="cove-parent-watch", daemon=True).start()


def _poke(fd: int) -> None:
    with contextlib.suppress(OSError):  # full: the watch is awake already
        os.write(fd, b"!")


def guarded_command(command: str, args: Sequence[str]) -> tuple[str, list[str]]:
    """Someone else's program (an MCP server over stdio) started so that it ends with this
    process, however this one ends: on Linux through this module as a launcher, which sets the
    kernel's parent-death signal, checks that its parent is still this process, then becomes the
    program (the setting holds across exec). Elsewhere the program runs as it is: a stdio server
    sees its input close when this process ends."""
    if not sys.platform.startswith("linux") or shutil.which(command) is None:
        # A program that is not there fails to start as itself, with the usual message.
        return command, list(args)
    program, *launcher = module_command("engine.launch")
    return program, [*launcher, str(os.getpid()), "--", command, *args]


def _run_guarded(argv: Sequence[str]) -> int:
    """``python -m engine.launch PARENT_PID -- COMMAND [ARG ...]`` (``guarded_command``)."""
    if len(argv) < 3 or argv[1] != "--" or not argv[0].isdigit():
        print("usage: python -m engine.launch PARENT_PID -- COMMAND [ARG ...]", file=sys.stderr)
        return 2
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0) != 0:
        print(
            f"cannot watch the parent process: {os.strerror(ctypes.get_errno())}", file=sys.stderr
        )
        return 1
    if os.getppid() != int(argv[0]):
        return 1  # the process that started this one ended before the signal was set
    try:
        os.execvp(argv[2], list(argv[2:]))
    except OSError as exc:
        print(f"cannot start {argv[2]}: {exc}", file=sys.stderr)
        return 127
    return 0  # not reached: exec replaces this process


if __name__ == "__main__":
    sys.exit(_run_guarded(sys.argv[1:]))
