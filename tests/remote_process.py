"""Processes for the remote tests: ``cove serve`` and ``cove worker`` started as a user starts
them, each with its own data folder (its own certificate and keys), read line by line until they
say what the test waits for."""

from __future__ import annotations

import os
import selectors
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
START_TIMEOUT_S = 180.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class CoveProcess:
    """``python -m engine.cli ARGS`` with stdout and stderr merged into lines read on demand."""

    def __init__(self, data_dir: Path, *args: str, env: Mapping[str, str] | None = None) -> None:
        full = dict(os.environ, COVE_DATA_DIR=str(data_dir), PYTHONUNBUFFERED="1")
        full.update(env or {})
        self.lines: list[str] = []
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "engine.cli", *args],
            cwd=ROOT,
            env=full,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its children (the RPC server, the engine host) go with it
        )
        self._buffer = b""

    def wait_for(self, text: str, timeout: float = START_TIMEOUT_S) -> str:
        """The first line (from the start) containing ``text``; fails when the process ends or
        the time runs out first."""
        seen = 0
        deadline = time.monotonic() + timeout
        assert self.proc.stdout is not None
        with selectors.DefaultSelector() as sel:
            sel.register(self.proc.stdout, selectors.EVENT_READ)
            while True:
                for line in self.lines[seen:]:
                    if text in line:
                        return line
                seen = len(self.lines)
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"no {text!r} in time; output:\n" + self.output())
                if not sel.select(timeout=min(left, 1.0)):
                    continue
                data = os.read(self.proc.stdout.fileno(), 65536)
                if not data:
                    self.proc.wait(10)
                    for line in self.lines[seen:]:
                        if text in line:
                            return line
                    raise AssertionError(
                        f"the process ended (code {self.proc.returncode}) before {text!r}:\n"
                        + self.output()
                    )
                self._buffer += data
                *complete, self._buffer = self._buffer.split(b"\n")
                self.lines += [c.decode("utf-8", "replace") for c in complete]

    def value(self, prefix: str) -> str:
        """``VALUE`` from the line ``PREFIX VALUE``."""
        return self.wait_for(prefix).split(prefix, 1)[1].strip()

    def output(self) -> str:
        return "\n".join(self.lines[-60:])

    def kill(self) -> None:
        """As a power cut would: the whole process group, at once."""
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(30)

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)
        if self.proc.stdout is not None:
            self.proc.stdout.close()
