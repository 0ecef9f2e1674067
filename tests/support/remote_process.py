"""Processes for the remote tests: ``cove serve`` and ``cove worker`` started as a user starts
them, each with its own data folder (its own certificate and keys), read line by line until they
say what the test waits for."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Mapping
from pathlib import Path

from engine.launch import child_env

ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT_S = 180.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class CoveProcess:
    """``python -m engine.cli ARGS`` with stdout and stderr merged, read line by line on a
    thread of its own as they come (so it never blocks on a full pipe), for a test to wait on."""

    def __init__(self, data_dir: Path, *args: str, env: Mapping[str, str] | None = None) -> None:
        full = dict(os.environ, COVE_DATA_DIR=str(data_dir), PYTHONUNBUFFERED="1")
        full.update(env or {})
        # It ends with this process however this one ends (a test run stopped midway).
        full = child_env(full)
        self.lines: list[str] = []
        self.ended = False
        self._changed = threading.Condition()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "engine.cli", *args],
            cwd=ROOT,
            env=full,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its children (the RPC server, the engine host) go with it
        )
        threading.Thread(target=self._read, name="cove-output", daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            with self._changed:
                self.lines.append(raw.decode("utf-8", "replace").rstrip("\n"))
                self._changed.notify_all()
        with self._changed:
            self.ended = True
            self._changed.notify_all()

    def wait_for(self, text: str, timeout: float = START_TIMEOUT_S) -> str:
        """The first line (from the start) containing ``text``; fails when the process ends or
        the time runs out first."""

        def found() -> str | None:
            return next((line for line in self.lines if text in line), None)

        with self._changed:
            self._changed.wait_for(lambda: found() is not None or self.ended, timeout)
            line = found()
        if line is None:
            how = f"ended (code {self.proc.poll()})" if self.ended else "went on"
            raise AssertionError(f"the process {how} without saying {text!r}:\n{self.output()}")
        return line

    def wait_for_count(self, text: str, count: int, timeout: float = START_TIMEOUT_S) -> None:
        """Until ``count`` lines contain ``text``; fails when the process ends or the time runs
        out first."""

        def seen() -> int:
            return sum(text in line for line in self.lines)

        with self._changed:
            self._changed.wait_for(lambda: seen() >= count or self.ended, timeout)
            found = seen()
        if found < count:
            raise AssertionError(f"{found} lines, not {count}, said {text!r}:\n{self.output()}")

    def value(self, prefix: str) -> str:
        """``VALUE`` from the line ``PREFIX VALUE``."""
        return self.wait_for(prefix).split(prefix, 1)[1].strip()

    @property
    def log(self) -> str:
        """Everything it said so far."""
        with self._changed:
            return "\n".join(self.lines)

    def output(self) -> str:
        with self._changed:
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
        with self._changed:
            self._changed.wait_for(lambda: self.ended, 30)
