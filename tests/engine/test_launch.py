"""A child of Cove's that watches its parent (``engine.launch.watch_parent``) ends when the
parent is killed, even while it is flooded with the parent-death signal it wakes on."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import psutil
import pytest

ROOT = Path(__file__).resolve().parents[2]

CHILD = textwrap.dedent(
    """
    import os, pathlib, sys, threading
    from engine.launch import watch_parent
    def orphaned():
        pathlib.Path(sys.argv[1]).write_text("orphaned")
        os._exit(0)
    watch_parent(os.getppid(), orphaned)
    print("ready", flush=True)
    lock = threading.Lock()
    while True:  # Python work that takes locks, where the signal's handler lands
        with lock:
            threading.Event().set()
    """
)

MIDDLE = textwrap.dedent(
    """
    import subprocess, sys
    child = subprocess.Popen([sys.executable, "-c", *sys.argv[1:]], stdout=subprocess.PIPE,
                             text=True)
    assert child.stdout is not None and child.stdout.readline() == "ready\\n"
    print(child.pid, flush=True)
    sys.stdin.read()  # until killed
    """
)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the signal is Linux's")
def test_a_watching_child_ends_with_its_killed_parent_through_a_flood_of_signals(
    tmp_path: Path,
) -> None:
    marker = tmp_path / "orphaned"
    middle = subprocess.Popen(
        [sys.executable, "-c", MIDDLE, CHILD, str(marker)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert middle.stdout is not None
        child = psutil.Process(int(middle.stdout.readline()))
        for _ in range(100_000):  # the handler re-entered while it runs must not lock the child
            os.kill(child.pid, signal.SIGUSR1)
        assert child.is_running() and child.status() != psutil.STATUS_ZOMBIE
        middle.kill()
        middle.wait()
        gone, alive = psutil.wait_procs([child], timeout=60)  # returns as soon as it has ended
        for process in alive:
            process.kill()
        assert gone and marker.read_text() == "orphaned"
    finally:
        if middle.poll() is None:
            middle.kill()
            middle.wait()
