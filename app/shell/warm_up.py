"""Start-up warm-up: one-time costs paid right after the first paint instead of at the first
message. A worker imports and builds the Markdown and highlighting machinery; the UI thread
creates Qt for Python's enum classes a few milliseconds at a time between events, then renders one
throw-away message in small steps. Chats wait (without blocking) until the first two are done; see
``message_document.text_ready``."""

from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer

from app.common.theme import Colors
from app.common.workers import WorkerPool

# Work done on the UI thread per event-loop turn.
SLICE_S = 0.004
# The next slice is started by a timer, not a posted call (see chat_view.NEXT_SLICE_MS).
NEXT_SLICE_MS = 1


class WarmUp(QObject):
    def __init__(self, pool: WorkerPool, colors: Callable[[], Colors], parent: QObject) -> None:
        super().__init__(parent)
        self._pool = pool
        self._colors = colors
        self._text_done = False
        self._types_done = False

    def start(self) -> None:
        from app.chat.message.document import warm_up

        self._pool.submit(warm_up, lambda _r: self._text_warmed())
        self._prepare_types()

    def _prepare_types(self) -> None:
        from app.chat.message.document import preparing_types
        from app.common.qt_compat import qt_type_steps

        preparing_types()
        steps = qt_type_steps()

        def run() -> None:
            deadline = time.perf_counter() + SLICE_S
            for _ in steps:
                if time.perf_counter() >= deadline:
                    QTimer.singleShot(NEXT_SLICE_MS, run)
                    return
            preparing_types(done=True)
            self._types_done = True
            self._maybe_render_sample()

        QTimer.singleShot(0, run)

    def _text_warmed(self) -> None:
        self._text_done = True
        self._maybe_render_sample()

    def _maybe_render_sample(self) -> None:
        if self._text_done and self._types_done:
            self._render_sample()

    def _render_sample(self) -> None:
        """One throw-away message, in steps, so that the first real one does not pay for the
        one-time set-up of the types it uses."""
        from app.chat.message.body import MessageBody
        from app.chat.message.widget import MessageWidget

        def sample() -> None:
            widget = MessageWidget("assistant", self._colors())
            widget.set_text("A *sample* with `code`:\n\n- one\n\n```python\nx = 1\n```\n")
            widget.deleteLater()

        steps: list[Callable[[], object]] = [
            lambda: MessageBody().viewport(),
            lambda: MessageWidget("assistant", self._colors()).deleteLater(),
            sample,
        ]

        def run(i: int) -> None:
            steps[i]()
            if i + 1 < len(steps):
                QTimer.singleShot(NEXT_SLICE_MS, lambda: run(i + 1))

        QTimer.singleShot(0, lambda: run(0))
