"""The chat header's Thinking switch, in the real window against the real engine host: offered
for a model whose chat template can turn its thinking off and not for the starter, checked by
default, kept with each chat, and sent with its requests (the tiny model's replies then come with
and without a reasoning section)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from tests.app.conftest import REPLY_TIMEOUT_MS, WindowFactory, finished, settle, type_and_send
from tests.tiny_thinking import write_thinking_model

if TYPE_CHECKING:
    from pytestqt.qtbot import QtBot

    from app.shell.main_window import MainWindow


@pytest.fixture
def thinker(tmp_path: Path, engine: Any) -> Iterator[Path]:
    """A model that can turn its thinking off, installed beside the starter; unloaded from the
    session's shared host afterwards."""
    pytest.importorskip("gguf")
    path = write_thinking_model(tmp_path / "models" / "acme__Thinker-GGUF" / "thinker-F16.gguf")
    yield path
    from engine.errors import EngineError

    with contextlib.suppress(EngineError):  # it was never loaded
        engine.client.unload(str(path))


def choose(window: MainWindow, model: str) -> None:
    """As a user: the model chosen in the chat's Model box."""
    picker = window.chat_page.model_picker
    index = picker.findData(model)
    assert index >= 0
    picker.setCurrentIndex(index)
    picker.activated.emit(index)


def test_the_switch_is_offered_where_thinking_can_be_turned_off_and_kept_per_chat(
    qtbot: QtBot, make_window: WindowFactory, thinker: Path
) -> None:
    window = make_window()
    switch = window.chat_page.thinking_switch
    with qtbot.waitSignal(window.models_view.models_listed, timeout=REPLY_TIMEOUT_MS):
        window.models_view.refresh()
    assert switch.text() == "Thinking" and switch.accessibleName() == "Thinking"
    # The starter's template has no switch: nothing is offered.
    assert window.chat_page.model_picker.currentData() == "starter"
    assert not switch.isVisible()

    thinker_id = str(thinker)
    choose(window, thinker_id)
    assert switch.isVisible() and switch.isChecked()
    on = finished(qtbot, window, lambda: type_and_send(qtbot, window, "Hi."))
    assert on.error is None, on.error
    assert on.message.meta.get("reasoning")  # the model thought (noise, from a tiny model)
    first = on.conversation_id

    QTest.mouseClick(switch, Qt.MouseButton.LeftButton)
    assert not switch.isChecked()
    sent: list[Any] = []

    def send() -> None:
        type_and_send(qtbot, window, "Again.")
        active = window.controller.active
        assert active is not None
        sent.append(active.request.params)

    off = finished(qtbot, window, send)
    assert off.error is None, off.error
    assert sent[0].thinking is False and on.message.meta.get("model") == thinker_id
    assert window.controller.settings().thinking is False
    assert "reasoning" not in off.message.meta and off.message.content.strip()

    # A new chat starts with thinking on; the first chat keeps its choice.
    QTest.mouseClick(window.sidebar.new_button, Qt.MouseButton.LeftButton)
    assert not switch.isVisible()  # the starter again
    choose(window, thinker_id)
    assert switch.isVisible() and switch.isChecked()
    with qtbot.waitSignal(window.controller.conversation_opened, timeout=REPLY_TIMEOUT_MS):
        window.sidebar.conversation_selected.emit(first, None)
    settle(qtbot, window)
    assert switch.isVisible() and not switch.isChecked()
    assert stored_settings(first).thinking is False


def stored_settings(conv_id: int) -> Any:
    from engine.store import Store

    with Store() as store:
        conversation = store.get_conversation(conv_id)
    assert conversation is not None
    return conversation.settings
