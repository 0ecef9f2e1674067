"""A private engine host process for the app and the CLI: started on a random loopback port with a
random per-launch token, watched, restarted, stopped.

The token travels in the child's environment, never on its command line (which other local users
can read). The host's stderr (its log, and whatever native code prints before dying) goes to a log
file whose last lines explain a crash.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import selectors
import signal
import subprocess
import threading
import time
from collections import deque
from pathlib import Path
from typing import IO

from engine.client.http_client import EngineClient
from engine.client.protocol import READY_PREFIX, TOKEN_ENV
from engine.errors import EngineCrashed, EngineError
from engine.launch import module_command
from engine.paths import engine_log_path

STOP_GRACE_S = 5.0


class LocalEngine:
    def __init__(
        self,
        *,
        model: str | None,
        embedding_model: Path | None,
        ctx: int | None,
        log_path: Path,
        ready_timeout: float,
        extra_args: tuple[str, ...] = (),
    ) -> None:
        self._model = model
        self._embedding_model = embedding_model
        self._ctx = ctx
        self.log_path = log_path
        self._ready_timeout = ready_timeout
        self._extra_args = extra_args
        self._proc: subprocess.Popen[bytes] | None = None
        self._exit_logged: subprocess.Popen[bytes] | None = None  # its end is in the log
        self._lock = threading.Lock()
        self.port = 0
        self._token = ""
        self.client = EngineClient("http://127.0.0.1:1/v1", crash_check=self._crash_report)

    @classmethod
    def start(
        cls,
        *,
        model: str | None = None,
        embedding_model: Path | None = None,
        ctx: int | None = None,
        log_path: Path | None = None,
        ready_timeout: float = 60.0,
        extra_args: tuple[str, ...] = (),
    ) -> LocalEngine:
        """Start a host and wait until it serves (and has loaded ``model``, when given)."""
        if log_path is None:
            log_path = engine_log_path()
        engine = cls(
            model=model,
            embedding_model=embedding_model,
            ctx=ctx,
            log_path=log_path,
            ready_timeout=ready_timeout,
            extra_args=extra_args,
        )
        engine._launch(model)
        return engine

    # -- public ------------------------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc else None

    @property
    def token(self) -> str:
        """The per-launch key the host requires (for a process that passes requests on)."""
        return self._token

    def wait(self) -> int | None:
        """Block until the host process ends; its exit code (None when none was started)."""
        proc = self._proc
        return None if proc is None else proc.wait()

    def exit_description(self) -> str | None:
        """How the host ended, with its last log lines; None while it runs."""
        return self._crash_report()

    def alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def log_tail(self, n: int = 20) -> list[str]:
        try:
            with self.log_path.open("rb") as f:
                f.seek(0, os.SEEK_END)
                f.seek(max(0, f.tell() - 64 * 1024))
                lines = f.read().decode("utf-8", "replace").splitlines()
        except OSError:
            return []
        return [line for line in lines if line.strip()][-n:]

    def restart(self) -> None:
        """A fresh host process; the chat model loaded last is loaded again, and the embedding
        model beside it when there was one (document search goes on after a crash)."""
        last, embedding = self.client.last_load, self.client.last_embedding_load
        self.stop()
        self._launch(None)
        if last is not None:
            self.client.load(last[0], ctx=last[1])
        if embedding is not None:
            self.client.load(embedding)

    def stop(self) -> None:
        with self._lock:
            proc, self._proc = self._proc, None
        if proc is None:
            return
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(STOP_GRACE_S)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()

    def __enter__(self) -> LocalEngine:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stop()
        self.client.close()

    # -- internals ---------------------------------------------------------------------------------

    def _launch(self, model: str | None) -> None:
        self._token = secrets.token_urlsafe(32)
        env = dict(os.environ)
        env[TOKEN_ENV] = self._token
        env.setdefault("PYTHONUNBUFFERED", "1")
        args = [*module_command("engine.host"), "--port", "0"]
        args += ["--exit-with-parent", str(os.getpid())]
        if model is not None:
            args += ["--model", model]
            if self._ctx is not None:
                args += ["--ctx", str(self._ctx)]
        if self._embedding_model is not None:
            args += ["--embedding-model", str(self._embedding_model)]
        args += list(self._extra_args)
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        with self.log_path.open("ab") as log:
            log.write(f"--- engine host starting {time.strftime('%Y-%m-%d %H:%M:%S')}\n".encode())
            log.flush()
            proc = subprocess.Popen(
                args,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=log,
                env=env,
            )
        with self._lock:
            self._proc = proc
        port = self._wait_ready(proc)
        self.port = port
        self.client.retarget(self.base_url, self._token)
        if model is not None:
            self.client.last_load = (model, self._ctx)

    def _wait_ready(self, proc: subprocess.Popen[bytes]) -> int:
        assert proc.stdout is not None
        deadline = time.monotonic() + self._ready_timeout
        seen: deque[str] = deque(maxlen=20)
        with selectors.DefaultSelector() as sel:
            sel.register(proc.stdout, selectors.EVENT_READ)
            buffer = b""
            while time.monotonic() < deadline:
                if not sel.select(timeout=0.1):
                    if proc.poll() is not None:
                        break
                    continue
                data = os.read(proc.stdout.fileno(), 65536)
                if not data:
                    proc.wait(5)
                    break
                buffer += data
                while b"\n" in buffer:
                    raw, buffer = buffer.split(b"\n", 1)
                    line = raw.decode("utf-8", "replace").strip()
                    if line.startswith(READY_PREFIX):
                        info = json.loads(line[len(READY_PREFIX) :])
                        _drain(proc.stdout)
                        return int(info["port"])
                    seen.append(line)
        if proc.poll() is None:
            proc.kill()
            proc.wait()
            raise EngineError(
                f"The engine did not start within {self._ready_timeout:.0f} s. "
                f"Its log: {self.log_path}"
            )
        raise EngineCrashed(self._describe_exit(proc, starting=True) + self._tail_text())

    def _crash_report(self) -> str | None:
        proc = self._proc
        if proc is None:
            return None
        try:
            # A connection reset can arrive a moment before the exit status does.
            proc.wait(1.0)
        except subprocess.TimeoutExpired:
            return None
        return self._describe_exit(proc) + self._tail_text()

    def _describe_exit(self, proc: subprocess.Popen[bytes], *, starting: bool = False) -> str:
        """How the host ended, in plain words and with a next step. The signal or exit code goes
        to the end of its log (once per process), where the last log lines show it."""
        code = proc.returncode
        killed = False
        if code is not None and code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            how = f"was stopped by {name}"
            if name == "SIGKILL":
                killed = True
                how += " (often the system running out of memory)"
        else:
            how = f"exited with code {code}"
        with self._lock:
            first = self._exit_logged is not proc
            self._exit_logged = proc
            if first:
                with contextlib.suppress(OSError), self.log_path.open("ab") as log:
                    log.write(f"cove: the engine process (pid {proc.pid}) {how}\n".encode())
        what = "could not start" if starting else "stopped unexpectedly"
        if killed:
            return (
                f"The engine {what}, most likely because this computer ran out of memory. "
                "Restart it; if it stops again, close other programs or choose a smaller model."
            )
        if starting:
            return f"The engine {what}. Its log says why."
        return f"The engine {what}. Restart it to continue."

    def _tail_text(self) -> str:
        tail = [line for line in self.log_tail(8) if not line.startswith("---")]
        return (" Its last log lines: " + " | ".join(tail)) if tail else ""


def _drain(stream: IO[bytes]) -> None:
    """Keep reading the host's stdout so that it can never block on a full pipe."""

    def run() -> None:
        with contextlib.suppress(OSError, ValueError):
            while stream.read(65536):
                pass

    threading.Thread(target=run, name="cove-host-stdout", daemon=True).start()
