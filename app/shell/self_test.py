"""``cove --self-test``: open the real window, send one prompt through the UI as a user would, wait
for the whole reply, and report as one JSON object. Packaging runs it to smoke-test a bundle."""

from __future__ import annotations

import json
import sys
import time
from typing import Any

from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from app.shell.main_window import MainWindow
from app.shell.stall_meter import StallMeter

TYPING_INTERVAL_MS = 10


class SelfTest(QObject):
    def __init__(
        self,
        app: QApplication,
        window: MainWindow,
        *,
        prompt: str,
        screenshot: str | None,
        timeout_s: float,
        process_start: float,
    ) -> None:
        super().__init__(window)
        self.app = app
        self.window = window
        self.prompt = prompt
        self.screenshot = screenshot
        self.process_start = process_start
        self.result: dict[str, Any] = {"ok": False}
        self.stalls = StallMeter(self)
        self._sent_at: float | None = None
        self._first_text_at: float | None = None
        self._done = False
        self._deadline = QTimer(self)
        self._deadline.setSingleShot(True)
        self._deadline.setInterval(int(timeout_s * 1000))
        self._deadline.timeout.connect(lambda: self._finish(f"timed out after {timeout_s:.0f} s"))
        window.first_painted.connect(self._painted)
        window.engine.loaded.connect(self._ready)
        window.engine.load_failed.connect(lambda msg, _c: self._finish(f"load failed: {msg}"))
        window.engine.start_failed.connect(lambda msg: self._finish(msg))
        window.engine.crashed.connect(lambda msg, _lines: self._finish(msg))
        window.controller.reply_finished.connect(self._replied)

    def start(self) -> None:
        self._deadline.start()

    def _painted(self, painted: float) -> None:
        self.result["window_shown_s"] = round(time.time() - self.process_start, 3)
        self.stalls.start()

    def _ready(self, status: Any) -> None:
        if self._sent_at is not None:
            return
        self.result["model"] = status.model
        self.result["device"] = status.device
        # Through the UI as a user would: leave the welcome page, type, press Enter.
        if self.window.pages.currentWidget() is self.window.welcome:
            QTest.mouseClick(self.window.welcome.start_button, Qt.MouseButton.LeftButton)
        edit = self.window.composer.edit
        edit.setFocus()
        self._sent_at = -1.0  # typing
        self._type(list(self.prompt))

    def _type(self, remaining: list[str]) -> None:
        """One key per event-loop turn, as a person types: typing the whole prompt in one call
        would itself hold the event loop and count as a stall of the window."""
        edit = self.window.composer.edit
        if remaining:
            QTest.keyClicks(edit, remaining.pop(0))
            QTimer.singleShot(TYPING_INTERVAL_MS, lambda: self._type(remaining))
            return
        self._sent_at = time.perf_counter()
        QTest.keyClick(edit, Qt.Key.Key_Return)
        self.window.controller.reply_started.connect(self._first_text)
        self.window.view.verticalScrollBar().rangeChanged.connect(self._maybe_first_text)

    def _first_text(self) -> None:
        self._maybe_first_text()

    def _maybe_first_text(self, *_args: Any) -> None:
        if self._first_text_at is not None or self._sent_at is None or self._sent_at < 0:
            return
        messages = self.window.view.messages
        if messages and messages[-1].role == "assistant" and messages[-1].text:
            self._first_text_at = time.perf_counter()

    def _replied(self, outcome: Any) -> None:
        widgets = self.window.view.messages
        reply = widgets[-1].text if widgets and widgets[-1].role == "assistant" else ""
        if self._first_text_at is None and reply:
            self._first_text_at = time.perf_counter()
        final = outcome.final
        stats = final.stats if final is not None else None
        self.result.update(
            {
                "ttft_s": round(self._first_text_at - self._sent_at, 3)
                if self._first_text_at is not None and self._sent_at
                else None,
                "engine_ttft_s": stats.ttft_s if stats is not None else None,
                "decode_tokens_per_s": stats.decode_tokens_per_s if stats is not None else None,
                "reply_chars": len(reply),
                "finish_reason": final.finish_reason if final is not None else None,
                "reply": reply[:200],
            }
        )
        error = outcome.error
        if error or not reply:
            self._finish(error or "the reply was empty")
        else:
            # One more turn of the event loop so the finished reply is painted in the screenshot.
            QTimer.singleShot(50, lambda: self._finish(None))

    def _finish(self, error: str | None) -> None:
        if self._done:
            return
        self._done = True
        self.stalls.stop()
        self.result["max_ui_stall_ms"] = self.stalls.max_stall_ms
        if self.screenshot:
            saved = self.window.grab().save(self.screenshot)
            self.result["screenshot"] = self.screenshot if saved else None
        self.result["ok"] = error is None
        if error is not None:
            self.result["error"] = error
        print(json.dumps(self.result), flush=True)
        sys.stdout.flush()
        self.window.close()
        self.app.exit(0 if error is None else 1)
