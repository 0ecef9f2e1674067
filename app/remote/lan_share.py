"""Letting other computers on this network use this computer's engine: ``cove serve --lan`` with the
model in use, in a process of its own (it loads the model again: the window's own engine host stays
private to the window). It says its key once, when it makes one, and its certificate's fingerprint
each time; both are passed on as they come. It stops when the window closes, or is gone."""

from __future__ import annotations

import logging
import os

from PySide6.QtCore import QObject, QProcess, Signal

from app.common.i18n import tr
from engine.launch import module_command

log = logging.getLogger(__name__)

DEFAULT_PORT = 8080
# The app setting that keeps ``LanShare.origins``.
SHARED_ORIGINS_SETTING = "lan_allowed_origins"
STOP_GRACE_MS = 5000


class LanShare(QObject):
    serving = Signal(str)  # the address it serves on, as it says it
    key_shown = Signal(str)  # made now: shown this once
    fingerprint_shown = Signal(str)
    stopped = Signal(str)  # why ("" when asked to stop)
    origins_changed = Signal(list)  # the web origins allowed besides the default ones, to keep

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.port = DEFAULT_PORT
        self.host: str | None = None  # every address (--lan's default) unless set
        # Web pages and apps allowed besides this computer's and desktop apps' (--allow-origin
        # patterns): a browser on another computer, an extension; they still need the key.
        self.origins: list[str] = []
        self.process: QProcess | None = None
        self.address = ""  # while serving
        self.key: str | None = None  # made by this run (shown once)
        self.fingerprint: str | None = None
        self._stopping = False
        self._output: list[str] = []

    @property
    def running(self) -> bool:
        return self.process is not None

    def set_origins(self, patterns: list[str]) -> None:
        """Allow these web origins from the next start on (and keep them)."""
        if patterns != self.origins:
            self.origins = list(patterns)
            self.origins_changed.emit(list(patterns))

    def start(self, model: str, *, new_key: bool = False) -> None:
        if self.process is not None:
            return
        program, *arguments = module_command("engine.cli")
        arguments += ["serve", "--lan", "--model", model, "--port", str(self.port)]
        for pattern in self.origins:
            arguments += ["--allow-origin", pattern]
        # Gone with the window, even when the window is killed.
        arguments += ["--exit-with-parent", str(os.getpid())]
        if self.host is not None:
            arguments += ["--host", self.host]
        if new_key:
            arguments.append("--new-key")
        process = QProcess(self)
        process.setProgram(program)
        process.setArguments(arguments)
        process.setProcessChannelMode(QProcess.ProcessChannelMode.MergedChannels)
        process.readyReadStandardOutput.connect(lambda: self._read(process))
        process.finished.connect(lambda code, _status: self._finished(process, code))
        process.errorOccurred.connect(lambda error: self._failed(process, error))
        self.process, self.address, self.key, self.fingerprint = process, "", None, None
        self._stopping, self._output = False, []
        process.start()

    def stop(self) -> None:
        process = self.process
        if process is None:
            return
        self._stopping = True
        process.terminate()
        if not process.waitForFinished(STOP_GRACE_MS):
            process.kill()
            process.waitForFinished(STOP_GRACE_MS)

    def _read(self, process: QProcess) -> None:
        if process is not self.process:
            return
        while process.canReadLine():
            line = bytes(process.readLine().data()).decode("utf-8", "replace").strip()
            self._output = [*self._output[-20:], line]
            if line.startswith("key: "):
                self.key = line[len("key: ") :].strip()
                self.key_shown.emit(self.key)
            elif line.startswith("fingerprint: "):
                self.fingerprint = line[len("fingerprint: ") :].strip()
                self.fingerprint_shown.emit(self.fingerprint)
            elif " serving on " in f" {line}":
                self.address = line.split("serving on ", 1)[1].strip()
                self.serving.emit(self.address)

    def _finished(self, process: QProcess, code: int) -> None:
        if process is not self.process:
            return
        self._read(process)
        self.process, self.address = None, ""
        process.deleteLater()
        if self._stopping:
            self.stopped.emit("")
            return
        said = [line for line in self._output if line.startswith("cove: error:")]
        why = said[-1][len("cove: error:") :].strip() if said else ""
        log.warning("sharing the engine stopped (exit code %s): %s", code, why or "no error said")
        if why:
            self.stopped.emit(tr("Engine settings", "Sharing stopped: {reason}").format(reason=why))
        else:
            self.stopped.emit(
                tr(
                    "Engine settings",
                    "Sharing stopped unexpectedly. Tick the box above to share this engine again.",
                )
            )

    def _failed(self, process: QProcess, error: QProcess.ProcessError) -> None:
        """It never started (once started, ``finished`` says how it ended)."""
        if process is not self.process or error != QProcess.ProcessError.FailedToStart:
            return
        self.process, self.address = None, ""
        process.deleteLater()
        self.stopped.emit(
            tr("Engine settings", "Sharing could not start: {reason}").format(
                reason=process.errorString()
            )
        )
