"""The lowest scheduling priority this system offers, for a process that does idle work: any
other program that wants the processor (or the disk) gets it first.

- Linux: the idle scheduling class (``SCHED_IDLE``: a thread runs only on a core nothing else
  wants) and nice 19 besides; the disk's idle class.
- macOS: the background band (``PRIO_DARWIN_BG``: lowest processor and disk priority, and the
  efficiency cores where there are some); nice 19 where that is missing.
- Windows: the idle priority class, and very low disk priority.

It is taken by the process's first thread before it starts any other (the runtimes' threads
inherit it), and it is never given back: an unprivileged process cannot raise its priority
again, which is why idle work runs in a process of its own.
"""

from __future__ import annotations

import contextlib
import os
import sys


def lowest_priority() -> list[str]:
    """Take the lowest priority this system offers for this process; what was taken, in words."""
    import psutil

    taken: list[str] = []
    me = psutil.Process()
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
            taken.append("idle scheduling class")
    if sys.platform == "darwin" and hasattr(os, "PRIO_DARWIN_BG"):
        with contextlib.suppress(OSError):
            os.setpriority(os.PRIO_DARWIN_PROCESS, 0, os.PRIO_DARWIN_BG)
            taken.append("background band")
    if sys.platform == "win32":
        with contextlib.suppress(psutil.Error, AttributeError):
            me.nice(psutil.IDLE_PRIORITY_CLASS)
            taken.append("idle priority class")
        with contextlib.suppress(psutil.Error, AttributeError):
            me.ionice(psutil.IOPRIO_VERYLOW)
            taken.append("very low disk priority")
    else:
        with contextlib.suppress(psutil.Error, OSError):
            me.nice(19)
            taken.append("nice 19")
    if sys.platform.startswith("linux"):
        with contextlib.suppress(psutil.Error, AttributeError, OSError):
            me.ionice(psutil.IOPRIO_CLASS_IDLE)
            taken.append("idle disk class")
    return taken


def is_lowest(pid: int | None = None) -> bool:
    """Whether a process (this one) runs at the priority ``lowest_priority`` takes."""
    import psutil

    proc = psutil.Process(pid)
    if sys.platform == "win32":
        return bool(proc.nice() == psutil.IDLE_PRIORITY_CLASS)
    if sys.platform.startswith("linux"):
        return os.sched_getscheduler(proc.pid) == os.SCHED_IDLE
    return bool(proc.nice() >= 19)


def lower_this_thread() -> bool:
    """Give the calling thread (and threads it starts) the lowest priority, where the system
    sets it per thread (Linux); for a short-lived thread of its own, since it cannot be raised
    again. False where it could not."""
    if not sys.platform.startswith("linux"):
        return False
    import threading

    tid = threading.get_native_id()
    try:
        os.sched_setscheduler(tid, os.SCHED_IDLE, os.sched_param(0))
    except (OSError, AttributeError):
        with contextlib.suppress(OSError):
            os.setpriority(os.PRIO_PROCESS, tid, 19)
            return True
        return False
    return True
