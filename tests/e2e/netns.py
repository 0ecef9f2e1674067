"""Run a command with loopback as the only network: ``unshare -n python -m tests.e2e.netns CMD``.

A new network namespace starts with its loopback interface down; this brings it up (the one
interface there is) and replaces itself with the command, so that local servers work and nothing
else can be reached.
"""

from __future__ import annotations

import fcntl
import os
import socket
import struct
import sys

_SIOCSIFFLAGS = 0x8914
_IFF_UP, _IFF_LOOPBACK, _IFF_RUNNING = 0x1, 0x8, 0x40


def bring_loopback_up() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        flags = _IFF_UP | _IFF_LOOPBACK | _IFF_RUNNING
        fcntl.ioctl(sock, _SIOCSIFFLAGS, struct.pack("16sH", b"lo", flags))


if __name__ == "__main__":
    bring_loopback_up()
    os.execvp(sys.argv[1], sys.argv[1:])
