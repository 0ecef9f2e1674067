"""Nothing written or received is lost: versions, branches, Continue, Undo, the chat's model and
presets, driven as a person drives the window, against a real engine host on the starter model
(and a second, tiny model installed beside it)."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from tests.app.conftest import (
    REPLY_TIMEOUT_MS,
    WindowFactory,
    finished,
    settle,
    stored_messages,
    type_and_send,
)
from tests.support.installed_models import install_tiny_model

if TYPE_CHECKING:
    from pytestqt.qtbot import QtBot

    from app.chat.message.widget import MessageWidget

pytestmark = pytest.mark.slow


def click(button: Any) -> None:
    QTest.mouseClick(button, Qt.MouseButton.LeftButton)


def version_label(widget: MessageWidget) -> str:
    switch = widget.version_switch
    return switch.label.accessibleName() if switch.isVisibleTo(widget) else ""


def test_regenerate_flip_edit_branch_and_undo(qtbot: QtBot, make_window: WindowFactory) -> None:
    window = make_window()
    first = finished(qtbot, window, lambda: type_and_send(qtbot, window, "Say a greeting."))
    conv_id = first.conversation_id
    replies = [window.view.messages[-1].text]
    for _ in range(2):
        reply = window.view.messages[-1]
        finished(qtbot, window, lambda r=reply: click(r.regenerate_button))
        replies.append(window.view.messages[-1].text)
    settle(qtbot, window)
    user, reply = window.view.messages
    assert version_label(reply) == "Version 3 of 3" and version_label(user) == ""
    every = window.controller.store.all_messages(conv_id)  # type: ignore[union-attr]
    assert [m.role for m in every] == ["user", "assistant", "assistant", "assistant"]
    assert [m.content for m in every[1:]] == replies  # nothing was lost

    # Flip back: the first version shows, and it is what the model would be sent.
    click(reply.version_switch.previous)
    settle(qtbot, window)
    click(window.view.messages[-1].version_switch.previous)
    settle(qtbot, window)
    shown = window.view.messages[-1]
    assert version_label(shown) == "Version 1 of 3" and shown.text == replies[0]
    assert [m.content for m in stored_messages(conv_id)] == ["Say a greeting.", replies[0]]

    # A follow-up goes under the version shown; editing the first question keeps it all.
    finished(qtbot, window, lambda: type_and_send(qtbot, window, "Another one."))
    question = window.view.messages[0]
    click(question.edit_button)
    question.editor.selectAll()
    QTest.keyClicks(question.editor, "Say goodbye.")
    finished(qtbot, window, lambda: QTest.keyClick(question.editor, Qt.Key.Key_Return))
    settle(qtbot, window)
    assert window.view.messages[0].text == "Say goodbye."
    assert len(window.view.messages) == 2
    assert version_label(window.view.messages[0]) == "Version 2 of 2"
    click(window.view.messages[0].version_switch.previous)
    settle(qtbot, window)
    texts = [w.text for w in window.view.messages]
    assert texts[0] == "Say a greeting." and texts[1] == replies[0]
    assert texts[2] == "Another one." and len(texts) == 4
    assert version_label(window.view.messages[1]) == "Version 1 of 3"

    # Branch from the first reply: a new chat with the turns up to it, opened at once.
    with qtbot.waitSignal(window.controller.conversation_opened, timeout=REPLY_TIMEOUT_MS):
        click(window.view.messages[1].branch_button)
    settle(qtbot, window)
    branch = window.controller.current
    assert branch is not None and branch.id != conv_id and branch.title.endswith("(branch)")
    assert [w.text for w in window.view.messages] == ["Say a greeting.", replies[0]]
    assert len(window.sidebar.conversation_items()) == 2

    # Delete a version, undo it, delete it for good.
    window.sidebar.conversation_selected.emit(conv_id, None)
    settle(qtbot, window)
    doomed = window.view.messages[1]
    click(doomed.delete_button)
    assert not doomed.isVisibleTo(window) and window.chat_page.undo_frame.isVisibleTo(window)
    click(window.chat_page.undo_button)
    assert doomed.isVisibleTo(window)
    assert len(window.controller.store.all_messages(conv_id)) == 8  # type: ignore[union-attr]
    window.controller.undo.timer.setInterval(50)
    click(doomed.delete_button)
    qtbot.waitUntil(
        lambda: len(window.controller.store.all_messages(conv_id)) == 5,  # type: ignore[union-attr]
        timeout=REPLY_TIMEOUT_MS,
    )
    settle(qtbot, window)
    assert version_label(window.view.messages[1]) == "Version 1 of 2"
    assert window.view.messages[1].text == replies[1]


def test_continue_extends_a_reply_stopped_at_its_length_limit(
    qtbot: QtBot, make_window: WindowFactory
) -> None:
    from engine.store import ChatSettings

    window = make_window()
    window.controller.draft_settings = ChatSettings(temperature=0.0, max_tokens=6)
    first = finished(qtbot, window, lambda: type_and_send(qtbot, window, "Tell me about the sea."))
    if first.final.finish_reason != "length":
        pytest.skip("the model ended its reply within six tokens")
    reply = window.view.messages[-1]
    assert reply.continue_button.isVisibleTo(window)
    before = reply.text
    second = finished(qtbot, window, lambda: click(reply.continue_button))
    assert second.message.id == first.message.id  # the same reply, longer
    assert reply.text.startswith(before) and len(reply.text) > len(before)
    stored = stored_messages(first.conversation_id)
    assert len(stored) == 2 and stored[1].content == reply.text


@pytest.fixture
def tiny_model(tmp_path: Path, engine: Any) -> Any:
    """A second chat model installed beside the starter; unloaded from the session's shared
    host afterwards, so that the next tests find only the starter in memory."""
    tiny = install_tiny_model(tmp_path / "models")
    yield tiny
    from engine.errors import EngineError

    with contextlib.suppress(EngineError):  # it was never loaded
        engine.client.unload(str(tiny))


def test_the_model_is_chosen_in_the_chat_and_kept_with_it(
    qtbot: QtBot, make_window: WindowFactory, tiny_model: Path
) -> None:
    tiny = tiny_model
    window = make_window()
    picker = window.chat_page.model_picker
    with qtbot.waitSignal(window.models_view.models_listed, timeout=REPLY_TIMEOUT_MS):
        window.models_view.refresh()
    assert picker.accessibleName() == "Model" and picker.count() >= 2
    starter = window.controller.names.labels["starter"]
    tiny_id = next(m for m, label in window.controller.names.labels.items() if "tiny" in label)
    tiny_label = window.controller.names.labels[tiny_id]
    assert picker.currentData() == "starter"
    # One name for the model everywhere: the list's, on the status bar too.
    qtbot.waitUntil(lambda: window.status.model_button.text().startswith(starter))
    first = finished(qtbot, window, lambda: type_and_send(qtbot, window, "Hi."))
    assert window.view.messages[-1].role_label.text() == starter
    # Ctrl+L opens the picker; choosing the tiny model keeps it with this chat.
    QTest.keyClick(window, Qt.Key.Key_L, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: picker.view().isVisible())
    listed = picker.view()
    listed.setCurrentIndex(picker.model().index(picker.findData(tiny_id), 0))
    QTest.keyClick(listed, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not listed.isVisible())
    settle(qtbot, window)
    assert window.controller.chat_model() == tiny_id

    # Chosen, it loads beside the starter at once: the chat's next reply does not wait for it.
    def tiny_in_memory() -> bool:
        status = window.engine.status
        paths = [r.path for r in status.residents] if status is not None else []
        return str(tiny.resolve()) in paths

    qtbot.waitUntil(tiny_in_memory, timeout=REPLY_TIMEOUT_MS)
    second = finished(qtbot, window, lambda: type_and_send(qtbot, window, "And you?"))
    assert second.error is None, second.error
    assert window.view.messages[-1].role_label.text() == tiny_label
    assert second.message.meta["model"] == tiny_id == str(tiny)
    # Regenerate with… the starter: a new version by another model.
    reply = window.view.messages[-1]
    third = finished(qtbot, window, lambda: reply.regenerate_requested.emit(reply, "starter"))
    assert third.message.meta["model_name"] == starter
    assert window.view.messages[-1].role_label.text() == starter
    # Another chat, then back: the tiny model comes back with it.
    click(window.sidebar.new_button)  # (offscreen, the closed list keeps the window's keys)
    assert picker.currentData() == "starter"
    with qtbot.waitSignal(window.controller.conversation_opened, timeout=REPLY_TIMEOUT_MS):
        window.sidebar.conversation_selected.emit(first.conversation_id, None)
    assert picker.currentData() == tiny_id


def test_presets_apply_and_one_is_the_default_for_new_chats(
    qtbot: QtBot, make_window: WindowFactory
) -> None:
    window = make_window()
    presets = window.controller.presets
    assert presets is not None
    picker = window.chat_page.preset_picker
    assert picker.accessibleName() == "Preset"
    names = [picker.itemData(i) for i in range(picker.count())]
    assert names[:3] == ["General assistant", "Coding helper", "Document summariser"]
    coding = presets.get("Coding helper")
    assert coding is not None
    picker.setCurrentIndex(picker.findData("Coding helper"))
    picker.activated.emit(picker.currentIndex())
    assert window.controller.system_prompt() == coding.system_prompt
    assert window.settings_panel.current().temperature == coding.settings.temperature
    window.chat_page.preset_menu.default_requested.emit(coding)
    QTest.keyClick(window, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    assert window.controller.system_prompt() == coding.system_prompt
    assert picker.currentData() == "Coding helper"
    assert picker.itemText(picker.currentIndex()) == "Coding helper (default)"
    finished(qtbot, window, lambda: type_and_send(qtbot, window, "Reverse a list."))
    conversation = window.controller.current
    assert conversation is not None and conversation.system_prompt == coding.system_prompt


def test_a_restart_finds_every_version_and_model(qtbot: QtBot, make_window: WindowFactory) -> None:
    window = make_window()
    first = finished(qtbot, window, lambda: type_and_send(qtbot, window, "Name a fruit."))
    reply = window.view.messages[-1]
    finished(qtbot, window, lambda: click(reply.regenerate_button))
    settle(qtbot, window)
    click(window.view.messages[-1].version_switch.previous)
    settle(qtbot, window)
    shown = [w.text for w in window.view.messages]
    window.close()
    again = make_window()  # it opens the chat it was left on
    qtbot.waitUntil(
        lambda: [w.text for w in again.view.messages] == shown, timeout=REPLY_TIMEOUT_MS
    )
    settle(qtbot, again)
    assert again.controller.current is not None
    assert again.controller.current.id == first.conversation_id
    assert version_label(again.view.messages[-1]) == "Version 1 of 2"


def test_a_search_hit_in_a_version_not_shown_opens_that_version(
    qtbot: QtBot, make_window: WindowFactory
) -> None:
    from engine.store import Store

    with Store() as store:
        chat = store.create_conversation("Lighthouses")
        store.add_message(chat.id, "user", "Name a famous lighthouse.")
        first = store.add_message(chat.id, "assistant", "The Tower of Hercules, in Galicia.")
        store.add_version(first.id, "Pharos of Alexandria.")
    window = make_window()
    hits = window.controller.store.search("Galicia")  # type: ignore[union-attr]
    assert [h.message_id for h in hits] == [first.id]
    with qtbot.waitSignal(window.view.conversation_shown, timeout=REPLY_TIMEOUT_MS):
        window.sidebar.conversation_selected.emit(chat.id, first.id)
    shown = window.view.messages[-1]
    assert shown.message_id == first.id and version_label(shown) == "Version 1 of 2"
