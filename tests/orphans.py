"""Ending a Cove process as a user or the system ends it, and checking that what it started
ended with it: SIGKILL of that one process (not its group), then a wait on the children's own
ending (not a sleep), then nothing left listening on the ports they held."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
from collections.abc import Iterable, Sequence

import psutil
import pytest


def listening_ports(process: psutil.Process) -> list[int]:
    return [c.laddr.port for c in process.net_connections("inet") if c.status == psutil.CONN_LISTEN]


def kill_and_expect_ended(
    parent: subprocess.Popen[bytes],
    children: Sequence[psutil.Process],
    ports: Iterable[int] = (),
    timeout: float = 60,
) -> None:
    os.kill(parent.pid, signal.SIGKILL)
    parent.wait(30)
    gone, alive = psutil.wait_procs(children, timeout=timeout)  # returns as soon as they end
    assert gone and not alive
    for port in ports:
        with pytest.raises(OSError), socket.create_connection(("127.0.0.1", port), 2):
            pass
