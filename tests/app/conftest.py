"""The real main window against a real engine host on the starter model.

One host serves the whole session (starting one and loading the model costs seconds on a small
machine); each test gets its own window and its own chat history folder.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from pytestqt.qtbot import QtBot

    from app.common.theme import ThemeManager
    from app.shell.main_window import MainWindow
    from engine.client.local import LocalEngine
    from engine.hardware.report import HardwareReport
    from engine.store import ChatSettings

# Generous: the machines that run this suite may have two busy cores.
LOAD_TIMEOUT_MS = 180_000
REPLY_TIMEOUT_MS = 240_000
QUICK_MS = 30_000


@pytest.fixture(scope="package", autouse=True)
def automatic_gc_after_the_window_tests() -> Iterator[None]:
    """The window's tests run with the window's garbage collection (on the UI thread's timer,
    app/common/workers.py); the tests after them, which run no Qt event loop, get Python's own
    back."""
    yield
    gc.enable()


@pytest.fixture(scope="session")
def shared_engine(tmp_path_factory: pytest.TempPathFactory, starter: Path) -> Iterator[Any]:
    from engine.client.local import LocalEngine

    log = tmp_path_factory.mktemp("host") / "engine.log"
    engine = LocalEngine.start(model="starter", log_path=log, ready_timeout=180)
    yield engine
    engine.stop()
    engine.client.close()


@pytest.fixture
def engine(shared_engine: LocalEngine) -> LocalEngine:
    """The shared host, alive (a test that killed it may have failed before restarting it)."""
    if not shared_engine.alive():
        shared_engine.restart()
    return shared_engine


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "data"
    monkeypatch.setenv("COVE_DATA_DIR", str(folder))
    monkeypatch.setenv("COVE_MODELS_DIR", str(tmp_path / "models"))
    return folder


@pytest.fixture
def theme(qapp: Any) -> ThemeManager:
    from app.common.theme import ThemeManager
    from app.common.workers import install_invoker

    install_invoker()
    return ThemeManager(qapp, "light")


def with_laptop_speed(report: HardwareReport) -> HardwareReport:
    """``report`` with the speed profile of a laptop's CPU (20 GB/s memory): predictions that
    do not depend on the machine running the tests."""
    import dataclasses

    from engine.hardware.speed_profile import DeviceSpeed, SpeedProfile

    cpu = DeviceSpeed("cpu", "Intel Core i5-8250U", "cpu", 20e9, 200e9, "measured")
    return dataclasses.replace(report, speed=SpeedProfile(devices=(cpu,)))


def without_speed(report: HardwareReport) -> HardwareReport:
    """``report`` as it is before the speed probe has run: no predictions."""
    import dataclasses

    return dataclasses.replace(report, speed=None)


def quick_settings() -> ChatSettings:
    from engine.store import ChatSettings

    return ChatSettings(temperature=0.0, max_tokens=16)


WindowFactory = Callable[..., "MainWindow"]


@pytest.fixture
def make_window(
    qtbot: QtBot, theme: ThemeManager, data_dir: Path, request: pytest.FixtureRequest
) -> WindowFactory:
    """A shown, started main window; ``with_engine`` adopts the shared host and waits for it."""

    def make(*, with_engine: bool = True, welcomed: bool = True) -> MainWindow:
        from app.shell.main_window import MainWindow
        from engine.store import Store

        if welcomed:
            with Store() as store:
                store.set_setting("welcomed", True)
        host = request.getfixturevalue("engine") if with_engine else None
        window = MainWindow(theme, engine=host)
        window.start_engine = False
        qtbot.addWidget(window)
        window.resize(1200, 760)
        window.show()
        window.activateWindow()
        qtbot.waitActive(window, timeout=QUICK_MS)  # shortcuts need the active window
        signals = [window.controller.store_opened]
        if with_engine:
            signals.append(window.engine.loaded)
        with qtbot.waitSignals(signals, timeout=LOAD_TIMEOUT_MS):
            window.start()
        window.controller.draft_settings = quick_settings()
        return window

    return make


def type_and_send(qtbot: QtBot, window: MainWindow, text: str) -> None:
    """As a user: type into the composer and press Enter."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    edit = window.composer.edit
    edit.setFocus()
    QTest.keyClicks(edit, text)
    QTest.keyClick(edit, Qt.Key.Key_Return)


def stored_messages(conv_id: int) -> list[Any]:
    from engine.store import Store

    with Store() as store:
        return store.messages(conv_id)


os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


@pytest.fixture(scope="session", autouse=True)
def _sound_qt_binding() -> None:
    """The app guards against PySide6 6.12.0's None leak at start-up (app.common.qt_compat); so must
    a test session that drives its widgets."""
    from app.common.qt_compat import keep_none_alive

    keep_none_alive()


def wait_for_text(qtbot: QtBot, window: MainWindow, chars: int = 1) -> None:
    def has_text() -> None:
        messages = window.view.messages
        assert messages and messages[-1].role == "assistant"
        reply = messages[-1]
        if reply.status != "streaming" and len(reply.text) < chars:
            # Fail now, with the reason, rather than wait for text that will not come.
            raise RuntimeError(f"the reply ended early ({reply.status}): {reply.meta}")
        assert len(reply.text) >= chars

    qtbot.waitUntil(has_text, timeout=REPLY_TIMEOUT_MS)


def finished(qtbot: QtBot, window: MainWindow, act: Any) -> Any:
    with qtbot.waitSignal(window.controller.reply_finished, timeout=REPLY_TIMEOUT_MS) as blocker:
        act()
    qtbot.waitUntil(lambda: not window.controller.io.busy, timeout=REPLY_TIMEOUT_MS)
    return blocker.args[0]


def settle(qtbot: QtBot, window: MainWindow) -> None:
    """Wait until the history's reads and writes asked for so far are done and shown."""
    qtbot.waitUntil(lambda: not window.controller.io.busy, timeout=REPLY_TIMEOUT_MS)
    qtbot.waitUntil(lambda: not window.view._pending, timeout=REPLY_TIMEOUT_MS)
