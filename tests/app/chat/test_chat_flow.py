"""The chat, driven as a user drives it, against a real engine host on the starter model."""

from __future__ import annotations

import os
import signal
from typing import TYPE_CHECKING, Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from tests.app.conftest import (
    REPLY_TIMEOUT_MS,
    WindowFactory,
    stored_messages,
    type_and_send,
    wait_for_text,
)

if TYPE_CHECKING:
    from pytestqt.qtbot import QtBot

    from app.shell.main_window import MainWindow

pytestmark = pytest.mark.slow


def reply_and_wait(qtbot: QtBot, window: MainWindow, text: str) -> Any:
    with qtbot.waitSignal(window.controller.reply_finished, timeout=REPLY_TIMEOUT_MS) as blocker:
        type_and_send(qtbot, window, text)
    return blocker.args[0]


def long_settings(window: MainWindow, max_tokens: int = 400) -> None:
    from engine.store import ChatSettings

    window.controller.draft_settings = ChatSettings(temperature=0.0, max_tokens=max_tokens)


def test_send_streams_renders_and_saves(qtbot: QtBot, make_window: WindowFactory) -> None:
    window = make_window()
    appended: list[str] = []
    with qtbot.waitSignal(window.controller.reply_finished, timeout=REPLY_TIMEOUT_MS) as blocker:
        type_and_send(qtbot, window, "Name three colours.")
        # The worker exists once the message is sent; count its coalesced updates.
        worker = window.controller.replies[-1].worker
        assert worker is not None
        worker.signals.chunk_received.connect(lambda _id, text: appended.append(text))
    outcome = blocker.args[0]
    assert outcome.error is None
    assert outcome.final.finish_reason in ("stop", "length")
    assert window.composer.text == ""  # the composer was cleared when the message was accepted
    user, reply = window.view.messages
    assert user.text == "Name three colours." and user.role == "user"
    assert reply.text and reply.status == "complete"
    assert len(appended) >= 2, "the reply arrived in one piece: nothing was streamed"
    assert "".join(appended) == reply.text
    stored = stored_messages(outcome.conversation_id)
    assert [(m.role, m.content, m.status) for m in stored] == [
        ("user", "Name three colours.", "complete"),
        ("assistant", reply.text, "complete"),
    ]
    assert stored[1].meta["stats"]["completion_tokens"] > 0
    # The conversation got its title from the message and appears in the list.
    assert [item.text() for item in window.sidebar.conversation_items()] == ["Name three colours."]
    # Status bar: speed, first token, context used against the loaded context.
    assert "tokens/s" in window.status.speed.text()
    stats = stored[1].meta["stats"]
    used = stats["prompt_tokens"] + stats["completion_tokens"]
    assert window.status.context_label.text() == f"Context {used} / 8.2k"


def test_stop_keeps_the_partial_reply(qtbot: QtBot, make_window: WindowFactory) -> None:
    window = make_window()
    long_settings(window)
    with qtbot.waitSignal(window.controller.reply_finished, timeout=REPLY_TIMEOUT_MS) as blocker:
        type_and_send(qtbot, window, "Write a long story about a lighthouse keeper.")
        wait_for_text(qtbot, window, 3)
        QTest.keyClick(window.composer.edit, Qt.Key.Key_Escape)
    outcome = blocker.args[0]
    assert outcome.final.finish_reason == "cancelled"
    reply = window.view.messages[-1]
    assert reply.badge.text() == "Stopped" and not reply.badge.isHidden()
    assert window.composer.button.text() == "Send"
    stored = stored_messages(outcome.conversation_id)[-1]
    assert stored.content == reply.text and stored.content
    assert stored.status == "interrupted"
    assert (stored.meta.get("stats") or {}).get("completion_tokens", 0) < 400


def test_regenerate_replaces_the_last_reply(qtbot: QtBot, make_window: WindowFactory) -> None:
    from engine.store import ChatSettings

    window = make_window()
    first = reply_and_wait(qtbot, window, "Say a greeting.")
    reply = window.view.messages[-1]
    assert reply.regenerate_button.isVisibleTo(window) and reply.regenerate_button.isEnabled()
    window.controller.set_settings(ChatSettings(temperature=1.2, max_tokens=16))
    with qtbot.waitSignal(window.controller.reply_finished, timeout=REPLY_TIMEOUT_MS) as blocker:
        QTest.mouseClick(reply.regenerate_button, Qt.MouseButton.LeftButton)
    second = blocker.args[0]
    # The old reply was removed (from the view and the history) and a new one written.
    assert reply not in window.view.messages and len(window.view.messages) == 2
    assert second.message.created_at >= first.message.created_at
    stored = stored_messages(second.conversation_id)
    assert [m.role for m in stored] == ["user", "assistant"]
    assert stored[1].id == second.message.id and stored[1].content == window.view.messages[1].text


def test_edit_an_earlier_message_and_resend(qtbot: QtBot, make_window: WindowFactory) -> None:
    window = make_window()
    reply_and_wait(qtbot, window, "What is two plus two?")
    reply_and_wait(qtbot, window, "And three plus three?")
    assert len(window.view.messages) == 4
    first_user = window.view.messages[0]
    QTest.mouseClick(first_user.edit_button, Qt.MouseButton.LeftButton)
    assert first_user.editing
    first_user.editor.selectAll()
    QTest.keyClicks(first_user.editor, "What is five plus five?")
    with qtbot.waitSignal(window.controller.reply_finished, timeout=REPLY_TIMEOUT_MS) as blocker:
        QTest.keyClick(first_user.editor, Qt.Key.Key_Return)
    outcome = blocker.args[0]
    assert [w.role for w in window.view.messages] == ["user", "assistant"]
    assert window.view.messages[0].text == "What is five plus five?"
    stored = stored_messages(outcome.conversation_id)
    assert [(m.role, m.content) for m in stored] == [
        ("user", "What is five plus five?"),
        ("assistant", window.view.messages[1].text),
    ]


def test_delete_a_message_can_be_undone_and_then_goes(
    qtbot: QtBot, make_window: WindowFactory
) -> None:
    window = make_window()
    outcome = reply_and_wait(qtbot, window, "Hello there.")
    reply = window.view.messages[-1]
    page = window.chat_page
    QTest.mouseClick(reply.delete_button, Qt.MouseButton.LeftButton)
    assert not reply.isVisibleTo(window) and page.undo_frame.isVisibleTo(window)
    assert page.undo_text.text() == "Reply deleted."
    # Nothing is gone from disk while it can be undone.
    assert [m.role for m in stored_messages(outcome.conversation_id)] == ["user", "assistant"]
    QTest.keyClick(window, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert reply.isVisibleTo(window) and not page.undo_frame.isVisibleTo(window)
    window.controller.undo.timer.setInterval(50)  # the chance to undo, made short
    QTest.mouseClick(reply.delete_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(
        lambda: [m.role for m in stored_messages(outcome.conversation_id)] == ["user"],
        timeout=REPLY_TIMEOUT_MS,
    )
    qtbot.waitUntil(lambda: [w.role for w in window.view.messages] == ["user"])
    assert not page.undo_frame.isVisibleTo(window)


def test_switch_conversations_mid_stream(qtbot: QtBot, make_window: WindowFactory) -> None:
    window = make_window()
    first = reply_and_wait(qtbot, window, "Say hi.")
    conv_a = first.conversation_id
    # A second chat, whose reply is still streaming when the user goes back to the first.
    QTest.keyClick(window, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    assert window.controller.current is None and not window.view.messages
    long_settings(window, max_tokens=1500)  # still being written when the user comes back
    with qtbot.waitSignal(window.controller.reply_finished, timeout=REPLY_TIMEOUT_MS) as blocker:
        type_and_send(qtbot, window, "Write a very long story about a lighthouse keeper.")
        wait_for_text(qtbot, window, 2)
        assert window.controller.current is not None
        conv_b = window.controller.current.id
        with qtbot.waitSignal(window.view.conversation_shown, timeout=REPLY_TIMEOUT_MS):
            window.sidebar.conversation_selected.emit(conv_a, None)
        assert window.view.messages[0].text == "Say hi."
        # While away, the reply keeps being written and saved.
        qtbot.waitUntil(
            lambda: len(stored_messages(conv_b)[-1].content) > 0, timeout=REPLY_TIMEOUT_MS
        )
        with qtbot.waitSignal(window.view.conversation_shown, timeout=REPLY_TIMEOUT_MS):
            window.sidebar.conversation_selected.emit(conv_b, None)
        live = window.view.messages[-1]
        assert live.status == "streaming"
        before = live.text
        qtbot.waitUntil(lambda: len(live.text) > len(before), timeout=REPLY_TIMEOUT_MS)
        window.controller.stop()
    outcome = blocker.args[0]
    assert outcome.conversation_id == conv_b
    stored = stored_messages(conv_b)[-1]
    assert stored.content == window.view.messages[-1].text
    assert len(stored_messages(conv_a)) == 2


def test_restart_the_app_and_find_everything(
    qtbot: QtBot, make_window: WindowFactory, theme: Any
) -> None:
    window = make_window()
    outcome = reply_and_wait(qtbot, window, "Remember the word pineapple.")
    window.controller.set_system_prompt("You are terse.")
    expected = [(w.role, w.text) for w in window.view.messages]
    window.close()

    again = make_window()
    qtbot.waitUntil(lambda: len(again.view.messages) == 2, timeout=REPLY_TIMEOUT_MS)
    assert [(w.role, w.text) for w in again.view.messages] == expected
    current = again.controller.current
    assert current is not None and current.id == outcome.conversation_id
    assert current.system_prompt == "You are terse."
    assert len(again.sidebar.conversation_items()) == 1


def test_engine_crash_mid_reply_is_survived(
    qtbot: QtBot, make_window: WindowFactory, engine: Any
) -> None:
    from engine.store import ChatSettings

    window = make_window()
    long_settings(window)
    with qtbot.waitSignals(
        [window.controller.reply_finished, window.engine.crashed], timeout=REPLY_TIMEOUT_MS
    ) as blockers:
        type_and_send(qtbot, window, "Write a long poem about the sea.")
        wait_for_text(qtbot, window, 3)
        os.kill(engine.pid, signal.SIGKILL)
    del blockers
    reply = window.view.messages[-1]
    assert reply.status == "interrupted" and reply.text
    assert window.banner.isVisible()
    # Plain words in the banner; the signal in the log that Show log opens.
    assert window.banner.message.text().startswith("The engine stopped unexpectedly")
    assert "SIGKILL" not in window.banner.message.text()
    assert "SIGKILL" in window.banner.details.text()
    assert window.controller.current is not None
    conv_id = window.controller.current.id
    stored = stored_messages(conv_id)
    assert stored[-1].status == "interrupted" and stored[-1].content == reply.text
    assert stored[0].content == "Write a long poem about the sea."

    with qtbot.waitSignal(window.engine.restarted, timeout=REPLY_TIMEOUT_MS):
        QTest.mouseClick(window.banner.restart_button, Qt.MouseButton.LeftButton)
    assert not window.banner.isVisible()
    window.controller.set_settings(ChatSettings(temperature=0.0, max_tokens=16))
    outcome = reply_and_wait(qtbot, window, "Are you back?")
    assert outcome.error is None and window.view.messages[-1].text
    assert len(stored_messages(conv_id)) == 4
