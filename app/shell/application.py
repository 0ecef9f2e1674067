"""Start the desktop window.

The window paints first; the chat history opens and the engine starts (and loads its model) only
after that, in the background, so the time to a usable window does not depend on the model.

One window per data folder (app/shell/single_instance.py): a start that finds the folder's
window hands it its files and ends before building a window or an engine of its own.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PySide6.QtWidgets import QApplication

    from app.shell.single_instance import InstanceServer

ICON = Path(__file__).resolve().parents[1] / "assets" / "icons" / "cove.svg"


def process_start_time() -> float:
    """When this process started, on the ``time.time()`` clock, for "process start to first
    paint". On Linux from the kernel's start tick (10 ms resolution): psutil's create_time adds
    the boot time, which the kernel reports in whole seconds."""
    if sys.platform.startswith("linux"):
        try:
            stat = Path("/proc/self/stat").read_text()
            start_ticks = int(stat.rsplit(")", 1)[1].split()[19])
            age = time.clock_gettime(time.CLOCK_BOOTTIME) - start_ticks / os.sysconf("SC_CLK_TCK")
            return time.time() - age
        except (OSError, ValueError, IndexError):
            pass
    import psutil

    return float(psutil.Process().create_time())


def run_gui(options: argparse.Namespace) -> int:
    started = process_start_time()
    temp_data: str | None = None
    if options.self_test and not os.environ.get("COVE_DATA_DIR"):
        # A smoke test must not write into the user's chat history.
        temp_data = tempfile.mkdtemp(prefix="cove-self-test-")
        os.environ["COVE_DATA_DIR"] = temp_data
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        return _run(options, started)
    finally:
        if temp_data is not None:
            shutil.rmtree(temp_data, ignore_errors=True)


def _run(options: argparse.Namespace, started: float) -> int:
    from PySide6.QtGui import QGuiApplication, QIcon
    from PySide6.QtWidgets import QApplication

    from app.common import i18n
    from app.common.qt_compat import keep_none_alive
    from app.shell import single_instance

    keep_none_alive()

    QGuiApplication.setApplicationName("Cove")
    QGuiApplication.setDesktopFileName("cove")
    app = QApplication.instance() or QApplication(sys.argv[:1])
    assert isinstance(app, QApplication)
    if ICON.is_file():
        app.setWindowIcon(QIcon(str(ICON)))
    i18n.install(options.language or i18n.saved_language())
    # Before the window is built: a start that hands over to the folder's window ends here.
    held = single_instance.claim(
        options.files, measuring=options.self_test or options.exit_after_paint
    )
    if isinstance(held, int):
        return held
    try:
        return _show(app, options, started, held)
    finally:
        held.close()


def _show(
    app: QApplication,
    options: argparse.Namespace,
    started: float,
    held: InstanceServer,
) -> int:
    from app.common.theme import ThemeManager
    from app.common.workers import install_invoker
    from app.shell.main_window import MainWindow
    from app.shell.single_instance import Request, answer

    install_invoker()
    theme = ThemeManager(app, options.theme or "system")
    window = MainWindow(theme, model=options.model)
    held.request_received.connect(lambda request: answer(window, request))
    if options.theme:
        window.requested_theme = options.theme

    if options.exit_after_paint:

        def report(_painted: float) -> None:
            shown = time.time() - started
            print(json.dumps({"ok": True, "window_shown_s": round(shown, 3)}), flush=True)
            window.close()
            app.exit(0)

        window.first_painted.connect(report)
    else:
        window.first_painted.connect(lambda _t: window.start())

    if options.self_test:
        from app.shell.self_test import SelfTest

        test = SelfTest(
            app,
            window,
            prompt=options.prompt,
            screenshot=options.screenshot,
            timeout_s=options.timeout,
            process_start=started,
        )
        test.start()
    window.show()
    # Take the keyboard as a window opened by a person does: where no window manager gives it
    # (a kiosk, a bare X server), the window asks for it itself.
    window.activateWindow()
    if options.files:
        answer(window, Request.of(options.files))
    return int(app.exec())
