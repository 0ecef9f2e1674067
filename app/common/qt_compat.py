"""Guards against defects of particular Qt for Python releases."""

from __future__ import annotations

import sys
from collections.abc import Iterator

# Larger than the number of Qt calls any session makes, and far from the maximum of Py_ssize_t.
_NONE_RESERVE = 1 << 48


def none_leak_per_call() -> int:
    """How many references to None one call of a void Qt method drops (0 on a sound binding).

    PySide6 6.12.0 on Python 3.11 drops one on every call of a method that returns nothing (the
    generated wrappers return None without taking a reference, which only Python 3.12's immortal
    None tolerates). After some thousands of calls None's count reaches zero and the interpreter
    aborts with "none_dealloc: deallocating None".
    """
    if sys.version_info >= (3, 12):
        return 0
    from PySide6.QtCore import QObject

    probe = QObject()
    calls = 100
    before = sys.getrefcount(None)
    for _ in range(calls):
        probe.setObjectName("probe")
    return max(0, round((before - sys.getrefcount(None)) / calls))


def keep_none_alive() -> bool:
    """On an affected binding, give None a reference count the leak can never exhaust (what
    Python 3.12 does by making None immortal). Returns True if the guard was needed."""
    if none_leak_per_call() == 0:
        return False
    import ctypes

    # ob_refcnt is the first field of every PyObject.
    refcount = ctypes.c_ssize_t.from_address(id(None))
    refcount.value += _NONE_RESERVE
    return True


def qt_type_steps() -> Iterator[None]:
    """Create Qt for Python's enum classes ahead of use, one class per step. They are otherwise
    made lazily, the rest of a module's worth at once, the first time a widget needs them: about
    40 ms (more on a busy machine) when the first message is shown. Run the steps on the UI
    thread a few at a time between events (the lazy creation is not meant to race another
    thread)."""
    from PySide6 import QtGui, QtWidgets

    for module in (QtGui, QtWidgets):
        for name in dir(module):
            cls = getattr(module, name, None)
            if not isinstance(cls, type):
                continue
            for attr in dir(cls):
                if attr[:1].isupper():
                    getattr(cls, attr, None)
            yield
