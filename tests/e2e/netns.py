"""Run a command with loopback as the only network: ``unshare -n python -m tests.e2e.netns CMD``.

A new network namespace starts with its loopback interface down; this brings it up (the one
interface there is) and replaces itself with the command, so that local servers work and nothing
else can be reached. ``can_unshare`` says why a machine cannot do this, for the tests to skip.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import socket
import struct
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

_SIOCSIFFLAGS = 0x8914
_IFF_UP, _IFF_LOOPBACK, _IFF_RUNNING = 0x1, 0x8, 0x40


def bring_loopback_up() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        flags = _IFF_UP | _IFF_LOOPBACK | _IFF_RUNNING
        fcntl.ioctl(sock, _SIOCSIFFLAGS, struct.pack("16sH", b"lo", flags))


def can_unshare() -> str | None:
    """Why this machine cannot run a command in a new network namespace; None where it can."""
    unshare = shutil.which("unshare")
    if unshare is None:
        return "unshare is not installed"
    probe = subprocess.run(
        [unshare, "-n", sys.executable, "-m", "tests.e2e.netns", "true"],
        cwd=ROOT, capture_output=True, text=True, timeout=30,
    )  # fmt: skip
    if probe.returncode != 0:
        return f"this machine does not allow a new network namespace: {probe.stderr.strip()}"
    return None


if __name__ == "__main__":
    bring_loopback_up()
    os.execvp(sys.argv[1], sys.argv[1:])
