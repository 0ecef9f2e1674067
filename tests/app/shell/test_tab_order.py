"""Tab reaches every control of the chat page and the sidebar, in the order they stand: the
sidebar, the chat's header, the messages (each one's buttons), then the composer."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QWidget

from tests.app.conftest import QUICK_MS, WindowFactory
from tests.support.history_files import seed_history

if TYPE_CHECKING:
    from pytestqt.qtbot import QtBot

    from app.shell.main_window import MainWindow


def focus_cycle(window: MainWindow, start: QWidget) -> list[QWidget]:
    """The widgets Tab visits from ``start`` until it comes back to it."""
    start.setFocus(Qt.FocusReason.TabFocusReason)
    visited: list[QWidget] = []
    for _ in range(200):
        focused = QApplication.focusWidget()
        assert focused is not None
        if visited and focused is visited[0]:
            return visited
        visited.append(focused)
        QTest.keyClick(focused, Qt.Key.Key_Tab)
    raise AssertionError("Tab never came back to where it started")


def reachable(root: QWidget) -> list[QWidget]:
    """The controls showing under ``root`` that take the keyboard by Tab."""
    return [
        w
        for w in root.findChildren(QWidget)
        if w.isVisibleTo(root)
        and w.isEnabled()
        and w.focusPolicy() & Qt.FocusPolicy.TabFocus == Qt.FocusPolicy.TabFocus
        and w.focusProxy() is None
    ]


def test_tab_reaches_every_control_in_the_order_they_stand(
    qtbot: QtBot, make_window: WindowFactory
) -> None:
    seed_history()
    window = make_window(with_engine=False)
    qtbot.waitUntil(lambda: len(window.view.messages) == 2, timeout=QUICK_MS)

    def message_controls() -> list[QWidget]:
        return [
            w
            for message in window.view.messages
            for w in message.findChildren(QWidget)
            if w.isVisibleTo(window) and w.focusPolicy() & Qt.FocusPolicy.TabFocus
        ]

    # The messages are built in batches between paints: wait until their controls show.
    qtbot.waitUntil(lambda: len(message_controls()) > 4, timeout=QUICK_MS)
    window.view.order_tabs()  # what the view does once a conversation is shown
    window.activateWindow()
    cycle = focus_cycle(window, window.sidebar.new_button)

    def area(widget: QWidget) -> str:
        for name, root in (
            ("sidebar", window.sidebar),
            ("composer", window.composer),
            ("messages", window.view),
            ("header", window.chat_page),
            ("status", window.status),
        ):
            if root.isAncestorOf(widget) or root is widget:
                return name
        return "elsewhere"

    areas: list[str] = []
    for widget in cycle:
        if not areas or areas[-1] != area(widget):
            areas.append(area(widget))
    assert areas == ["sidebar", "header", "messages", "composer", "status"], areas

    # Nothing that takes the keyboard is left out.
    left_out = [
        f"{type(w).__name__} {w.accessibleName() or w.objectName()!r}"
        for root in (window.sidebar, window.chat_page, window.status)
        for w in reachable(root)
        if w not in cycle
    ]
    assert left_out == []

    # Every button of every message is on the way, in reading order.
    buttons = message_controls()
    on_the_way = [w for w in cycle if area(w) == "messages"]
    assert buttons and set(buttons) <= set(on_the_way)
    tops = [w.mapTo(window, w.rect().topLeft()).y() for w in on_the_way]
    assert tops == sorted(tops)
