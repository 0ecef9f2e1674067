"""Conversations list, settings, models, hardware, welcome, themes: the real window."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox

from tests.app.conftest import (
    LOAD_TIMEOUT_MS,
    QUICK_MS,
    REPLY_TIMEOUT_MS,
    WindowFactory,
    stored_messages,
    type_and_send,
)
from tests.support.history_files import seed_history

if TYPE_CHECKING:
    from pytestqt.qtbot import QtBot

    from app.shell.main_window import MainWindow


def cell(view: Any, row: int, column: int = 0) -> str:
    item = view.table.item(row, column)
    assert item is not None
    return str(item.text())


def titles(window: MainWindow) -> list[str]:
    return [item.text() for item in window.sidebar.conversation_items()]


def test_conversation_list_search_rename_delete_export(
    qtbot: QtBot,
    make_window: WindowFactory,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    bread, bananas, trains = seed_history()
    window = make_window(with_engine=False)
    qtbot.waitUntil(lambda: titles(window) == ["Trains", "Bananas", "Bread"], timeout=QUICK_MS)
    # The most recent conversation opens by itself.
    qtbot.waitUntil(lambda: len(window.view.messages) == 2, timeout=QUICK_MS)
    assert window.controller.current is not None and window.controller.current.id == trains

    # Search across conversations: the message that matches, and open it from the result.
    QTest.keyClicks(window.sidebar.search, "brown")
    qtbot.waitUntil(lambda: window.sidebar.list.count() == 1, timeout=QUICK_MS)
    assert "Bananas" in titles(window)[0] and "brown" in titles(window)[0]
    with qtbot.waitSignal(window.view.conversation_shown, timeout=QUICK_MS):
        item = window.sidebar.list.item(0)
        rect = window.sidebar.list.visualItemRect(item)
        QTest.mouseClick(
            window.sidebar.list.viewport(), Qt.MouseButton.LeftButton, pos=rect.center()
        )
    assert window.view.messages[0].text == "Why do bananas turn brown?"
    window.sidebar.search.clear()
    qtbot.waitUntil(lambda: len(titles(window)) == 3, timeout=QUICK_MS)
    assert window.sidebar.list.item(0).text() == "Today"  # under the day they were last used

    # Rename in place.
    with qtbot.waitSignal(window.controller.conversations_listed, timeout=QUICK_MS):
        window.sidebar.conversation_items()[titles(window).index("Bread")].setText("Sourdough")
    qtbot.waitUntil(lambda: "Sourdough" in titles(window), timeout=QUICK_MS)
    from engine.store import Store

    with Store() as store:
        conv = store.get_conversation(bread)
        assert conv is not None and conv.title == "Sourdough"

    # Export the open conversation as Markdown and JSON.
    for fmt, name in (("markdown", "chat.md"), ("json", "chat.json")):
        target = tmp_path / name
        monkeypatch.setattr(
            QFileDialog, "getSaveFileName", staticmethod(lambda *_a, t=target: (str(t), ""))
        )
        with qtbot.waitSignal(window.controller.notice, timeout=QUICK_MS):
            window._export_current(fmt)
    assert "Why do bananas turn brown?" in (tmp_path / "chat.md").read_text()
    exported = json.loads((tmp_path / "chat.json").read_text())
    assert "brown" in json.dumps(exported)

    # Delete, after confirming.
    monkeypatch.setattr(
        QMessageBox, "question", staticmethod(lambda *_a, **_k: QMessageBox.StandardButton.Yes)
    )
    with qtbot.waitSignal(window.controller.conversations_listed, timeout=QUICK_MS):
        window.sidebar.delete_requested.emit(bananas)
    qtbot.waitUntil(lambda: titles(window) == ["Sourdough", "Trains"], timeout=QUICK_MS)
    assert window.controller.current is None and not window.view.messages
    assert stored_messages(bananas) == []


def test_settings_per_conversation_are_saved(
    qtbot: QtBot, make_window: WindowFactory, theme: Any
) -> None:
    _bread, _bananas, trains = seed_history()
    window = make_window(with_engine=False)
    qtbot.waitUntil(lambda: window.controller.current is not None, timeout=QUICK_MS)
    window.settings_button.click()
    panel = window.settings_panel
    assert panel.isVisible()
    assert panel.temperature.value() == pytest.approx(0.3)
    QTest.keyClicks(panel.system_prompt, "Answer like a pirate.")
    panel.top_k.setValue(12)
    panel.max_tokens.setValue(256)
    panel.context.setCurrentIndex(panel.context.findData(4096))
    panel.flush()
    window.close()

    from engine.store import Store

    with Store() as store:
        conv = store.get_conversation(trains)
    assert conv is not None
    assert conv.system_prompt == "Answer like a pirate."
    assert (conv.settings.top_k, conv.settings.max_tokens, conv.settings.ctx) == (12, 256, 4096)

    again = make_window(with_engine=False)
    qtbot.waitUntil(lambda: again.controller.current is not None, timeout=QUICK_MS)
    assert again.settings_panel.system_prompt.toPlainText() == "Answer like a pirate."
    assert again.settings_panel.top_k.value() == 12
    # Defaults for the model, on request.
    again.settings_panel.reset_button.click()
    assert again.controller.settings().top_k == 40


def test_theme_follows_the_choice_and_text_scales(qtbot: QtBot, make_window: WindowFactory) -> None:
    from app.common.theme import DARK, LIGHT

    seed_history()
    window = make_window(with_engine=False)
    qtbot.waitUntil(lambda: len(window.view.messages) == 2, timeout=QUICK_MS)
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    appearance = window.settings.appearance()
    appearance.theme_box.setCurrentIndex(appearance.theme_box.findData("dark"))
    appearance.theme_box.activated.emit(appearance.theme_box.currentIndex())
    assert app.palette().base().color().name() == DARK.base
    assert window.view.messages[0].renderer.colors is DARK
    appearance.theme_box.setCurrentIndex(appearance.theme_box.findData("light"))
    appearance.theme_box.activated.emit(appearance.theme_box.currentIndex())
    assert app.palette().base().color().name() == LIGHT.base
    size = app.font().pointSizeF()
    QTest.keyClick(window.composer.edit, Qt.Key.Key_Equal, Qt.KeyboardModifier.ControlModifier)
    assert app.font().pointSizeF() > size
    QTest.keyClick(window.composer.edit, Qt.Key.Key_0, Qt.KeyboardModifier.ControlModifier)
    assert app.font().pointSizeF() == pytest.approx(size)
    window.theme.set_font_scale(1.3)
    window.close()
    from engine.store import Store

    with Store() as store:
        assert store.get_setting("theme") == "light"
        assert store.get_setting("font_scale") == pytest.approx(1.3)
    window.theme.zoom_reset()


@pytest.mark.slow
def test_first_run_welcome(qtbot: QtBot, make_window: WindowFactory) -> None:
    window = make_window(welcomed=False)
    qtbot.waitUntil(lambda: window.pages.currentWidget() is window.welcome, timeout=QUICK_MS)
    qtbot.waitUntil(
        lambda: "Models run best here on" in window.welcome.capacity.text(), timeout=LOAD_TIMEOUT_MS
    )
    qtbot.waitUntil(lambda: "Fits" in window.welcome.starter.text(), timeout=LOAD_TIMEOUT_MS)
    assert "RAM" in window.welcome.hardware.text()
    QTest.mouseClick(window.welcome.start_button, Qt.MouseButton.LeftButton)
    assert window.pages.currentWidget() is window.chat_page
    from engine.store import Store

    def saved() -> None:
        with Store() as store:
            assert store.get_setting("welcomed") is True

    qtbot.waitUntil(saved, timeout=QUICK_MS)


@pytest.mark.slow
def test_hardware_view_says_what_was_found_and_chosen(
    qtbot: QtBot, make_window: WindowFactory
) -> None:
    window = make_window()
    with qtbot.waitSignal(window.probe.probed, timeout=LOAD_TIMEOUT_MS):
        QTest.mouseClick(window.sidebar.hardware_button, Qt.MouseButton.LeftButton)
    text = window.hardware_view.page.toPlainText()
    for expected in (
        "What Cove chose",
        "SmolLM2",
        "runs on the processor",
        "This computer",
        "Memory",
        "Software that runs models",
        "llama.cpp",
        "ONNX Runtime",
        "Not found",
        "Speculative decoding:",
        "draft",
    ):
        assert expected in text, expected


@pytest.mark.slow
def test_models_list_verdicts_import_load_and_cancel(
    qtbot: QtBot, make_window: WindowFactory, starter: Path, shared_models: Path, tmp_path: Path
) -> None:
    models = Path(os.environ["COVE_MODELS_DIR"])
    models.mkdir(parents=True)
    shutil.copyfile(starter, models / "copy-of-starter.gguf")  # a different file: a real load
    onnx = shared_models / "smollm2-135m-instruct-onnx-int4-cpu"
    (models / "smollm2-onnx").symlink_to(onnx, target_is_directory=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    imported = elsewhere / "imported.gguf"
    imported.symlink_to(starter)

    window = make_window()
    view = window.models_view
    with qtbot.waitSignal(view.verdicts_ready, timeout=LOAD_TIMEOUT_MS):
        QTest.mouseClick(window.sidebar.models_button, Qt.MouseButton.LeftButton)
    names = [e.name for e in view.entries]
    assert names == ["SmolLM2 135M Instruct (starter)", "copy-of-starter", "smollm2-onnx"]
    kinds = {e.name: e.kind for e in view.entries}
    assert kinds["smollm2-onnx"] == "ONNX"
    # The quantization the file declares (general.file_type) in words, with its code and the
    # tensor mix in the details.
    assert cell(view, 1, column=1) == "4-bit, medium quality"
    view.table.selectRow(1)
    details = view.details.text()
    assert "4-bit, medium quality (GGUF Q4_1)" in details and "Mostly 4-bit (Q4_1" in details
    verdicts = {e.name: view.verdicts[e.id] for e in view.entries}
    assert (
        verdicts["copy-of-starter"].text.startswith("Fits")
        and verdicts["copy-of-starter"].level == "ok"
    )
    assert verdicts["smollm2-onnx"].text  # the host says what it thinks of an ONNX folder
    assert cell(view, 0).endswith("● loaded")

    with qtbot.waitSignal(view.verdicts_ready, timeout=LOAD_TIMEOUT_MS):
        view.import_paths([str(imported)])
    assert [e.name for e in view.entries][-1] == "imported"

    # Load the copy, with progress, then cancel a load, then go back to the starter.
    view.table.selectRow(1)
    progress: list[float] = []
    window.engine.load_progressed.connect(progress.append)
    with qtbot.waitSignal(window.engine.loaded, timeout=LOAD_TIMEOUT_MS) as loaded:
        QTest.mouseClick(view.load_button, Qt.MouseButton.LeftButton)
    assert loaded.args[0].model_path == str(models / "copy-of-starter.gguf")
    assert progress and progress[-1] == pytest.approx(1.0)
    assert cell(view, 1).endswith("● loaded") and not cell(view, 0).endswith("● loaded")

    with qtbot.waitSignal(window.engine.load_failed, timeout=LOAD_TIMEOUT_MS) as failed:
        window.engine.load("starter")
        QTest.mouseClick(window.status.cancel_button, Qt.MouseButton.LeftButton)
    assert failed.args[1] is True  # cancelled
    assert not window.status.load_bar.isVisible()
    with qtbot.waitSignal(window.engine.loaded, timeout=LOAD_TIMEOUT_MS):
        window.engine.load("starter")


@pytest.mark.slow
def test_context_meter_warns_and_says_what_was_dropped(
    qtbot: QtBot, make_window: WindowFactory
) -> None:
    from engine.store import ChatSettings

    window = make_window()
    window.settings_button.click()
    panel = window.settings_panel
    try:
        panel.context.setCurrentIndex(panel.context.findData(1024))
        with qtbot.waitSignal(window.engine.loaded, timeout=LOAD_TIMEOUT_MS) as loaded:
            panel.reload_button.click()
        assert loaded.args[0].n_ctx == 1024
        window.controller.set_settings(ChatSettings(temperature=0.0, max_tokens=8, ctx=1024))
        # Each message takes about 40 % of the context: the meter warns after the second,
        # and the third no longer fits with the first.
        long_text = " ".join(f"Fact {i}: the keeper logs ship number {i}." for i in range(34))
        warnings: list[str] = []
        outcome = None
        for _turn in range(4):
            with qtbot.waitSignal(window.controller.reply_finished, timeout=REPLY_TIMEOUT_MS) as b:
                type_and_send(qtbot, window, long_text)
            outcome = b.args[0]
            if outcome.final.truncation is not None:
                break
            warnings.append(window.status.context_warning)
        assert outcome is not None and outcome.final.truncation is not None
        assert any("of the 1024-token context" in w for w in warnings), warnings
        reply = window.view.messages[-1]
        assert "dropped" in reply.notice.text() and reply.notice_frame.isVisible()
        assert "dropped" in window.context_notice.text()
        assert "system prompt was kept" in window.context_notice.text()
    finally:
        with qtbot.waitSignal(window.engine.loaded, timeout=LOAD_TIMEOUT_MS):
            window.engine.load("starter")


def test_a_long_conversation_opens_at_its_end(qtbot: QtBot, make_window: WindowFactory) -> None:
    from app.chat.view import SHOWN_AT_ONCE
    from engine.store import Store

    with Store() as store:
        conv = store.create_conversation("Long")
        for i in range(60):
            store.add_message(conv.id, "user", f"Question {i}")
            store.add_message(conv.id, "assistant", f"Answer {i}")
    window = make_window(with_engine=False)
    qtbot.waitUntil(
        lambda: len(window.view.messages) == SHOWN_AT_ONCE and not window.view._pending,
        timeout=QUICK_MS,
    )
    shown = window.view.messages
    assert len(shown) == SHOWN_AT_ONCE and shown[-1].text == "Answer 59"
    assert window.view.earlier_button.isVisible()
    assert window.view.earlier_button.text() == f"Show {120 - SHOWN_AT_ONCE} earlier messages"
    assert len(window.view.history()) == 120  # the context meter counts every message
    while window.view.earlier_button.isVisible():
        window.view.earlier_button.click()
        qtbot.waitUntil(lambda: not window.view._pending, timeout=QUICK_MS)
    texts = [w.text for w in window.view.messages]
    assert texts[:2] == ["Question 0", "Answer 0"] and len(texts) == 120


def test_composer_keys(qtbot: QtBot) -> None:
    from app.chat.composer import Composer

    composer = Composer()
    qtbot.addWidget(composer)
    sent: list[str] = []
    stops: list[bool] = []
    composer.send_requested.connect(sent.append)
    composer.stop_requested.connect(lambda: stops.append(True))
    QTest.keyClicks(composer.edit, "first line")
    QTest.keyClick(composer.edit, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    QTest.keyClicks(composer.edit, "second line")
    assert sent == [] and composer.text == "first line\nsecond line"
    QTest.keyClick(composer.edit, Qt.Key.Key_Return)
    assert sent == ["first line\nsecond line"]
    assert composer.text == "first line\nsecond line"  # kept until the owner accepts it
    QTest.keyClick(composer.edit, Qt.Key.Key_Escape)
    assert stops == [True]
    composer.take_text()
    QTest.keyClick(composer.edit, Qt.Key.Key_Return)
    assert sent == ["first line\nsecond line"]  # nothing to send
    composer.set_generating(True)
    assert composer.button.text() == "Stop"
    composer.button.click()
    assert stops == [True, True]


def test_the_system_theme_is_followed(qapp: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The OS changing its colour scheme re-themes the window, unless the user chose one. (The
    offscreen platform has no colour scheme of its own, so the OS side is stood in for.)"""
    import app.common.theme as theme_module
    from app.common.theme import DARK, LIGHT, ThemeManager

    system = {"scheme": "light"}
    monkeypatch.setattr(theme_module, "system_scheme", lambda: system["scheme"])
    hints = qapp.styleHints()
    manager = ThemeManager(qapp, "system")
    try:
        system["scheme"] = "dark"
        hints.colorSchemeChanged.emit(Qt.ColorScheme.Dark)
        assert qapp.palette().base().color().name() == DARK.base
        system["scheme"] = "light"
        hints.colorSchemeChanged.emit(Qt.ColorScheme.Light)
        assert qapp.palette().base().color().name() == LIGHT.base
        manager.set_preference("dark")  # the user's choice wins over the system's
        hints.colorSchemeChanged.emit(Qt.ColorScheme.Light)
        assert qapp.palette().base().color().name() == DARK.base
    finally:
        manager.set_preference("light")
        hints.colorSchemeChanged.disconnect(manager._os_scheme_changed)


def test_models_in_memory_are_listed_with_unload(qtbot: QtBot, make_window: WindowFactory) -> None:
    window = make_window()
    view = window.models_view
    with qtbot.waitSignal(view.verdicts_ready, timeout=LOAD_TIMEOUT_MS):
        QTest.mouseClick(window.sidebar.models_button, Qt.MouseButton.LeftButton)
    if not view.residents.names:  # the status after the load reaches the view
        with qtbot.waitSignal(window.engine.status_changed, timeout=LOAD_TIMEOUT_MS):
            window.engine.refresh_status()
    loaded = window.engine.status.model if window.engine.status else None
    assert loaded is not None and view.residents.names == [loaded]
    assert view.residents.isVisibleTo(view)
    stays = view.residents.item(0, 4)
    assert stays is not None and stays.text() == "until unloaded"
    button = view.residents.cellWidget(0, 5)
    with qtbot.waitSignal(
        window.engine.status_changed,
        timeout=LOAD_TIMEOUT_MS,
        check_params_cb=lambda status: status.model is None,
    ):
        QTest.mouseClick(button, Qt.MouseButton.LeftButton)
    assert view.residents.names == [] and not view.residents.isVisibleTo(view)
    with qtbot.waitSignal(window.engine.loaded, timeout=LOAD_TIMEOUT_MS):
        window.engine.load("starter")


def test_conversations_are_listed_under_the_day_they_were_last_used(
    qtbot: QtBot, theme: Any
) -> None:
    from datetime import date, datetime, timedelta

    from app.shell.sidebar import Sidebar, when_heading
    from engine.store import ChatSettings, Conversation

    today = date(2026, 11, 28)
    assert [when_heading(today - timedelta(days=d), today) for d in (0, 1, 2, 7, 8, 400)] == [
        "Today",
        "Yesterday",
        "Previous 7 days",
        "Previous 7 days",
        "Older",
        "Older",
    ]
    now = datetime.now()

    def chat(n: int, days: int) -> Conversation:
        stamp = (now - timedelta(days=days)).timestamp()
        return Conversation(n, f"Chat {n}", "", ChatSettings(), None, stamp, stamp)

    sidebar = Sidebar()
    qtbot.addWidget(sidebar)
    sidebar.set_conversations([chat(1, 0), chat(2, 0), chat(3, 1), chat(4, 3), chat(5, 30)])
    shown = [sidebar.list.item(i).text() for i in range(sidebar.list.count())]
    assert shown == [
        "Today",
        "Chat 1",
        "Chat 2",
        "Yesterday",
        "Chat 3",
        "Previous 7 days",
        "Chat 4",
        "Older",
        "Chat 5",
    ]
    heading = sidebar.list.item(0)
    assert not heading.flags() & Qt.ItemFlag.ItemIsSelectable  # read, never chosen
    assert sidebar.conversation_items()[0].text() == "Chat 1"


def test_ctrl_f_finds_in_the_open_chat(qtbot: QtBot, make_window: WindowFactory) -> None:
    from engine.store import Store

    with Store() as store:
        chat = store.create_conversation("Lamps")
        store.add_message(chat.id, "user", "How do I trim a lamp wick?")
        store.add_message(chat.id, "assistant", "Trim the wick flat. A trimmed wick burns clean.")
        store.add_message(chat.id, "user", "And the glass?")
    window = make_window(with_engine=False)
    qtbot.waitUntil(lambda: len(window.view.messages) == 3, timeout=QUICK_MS)
    QTest.keyClick(window, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    bar = window.chat_page.find_bar
    assert bar.isVisibleTo(window) and bar.field.hasFocus()
    assert bar.field.accessibleName() == "Find in chat"
    QTest.keyClicks(bar.field, "wick")
    assert bar.count.text() == "1 of 3"
    first = bar.matches[0].body
    assert first.textCursor().selectedText().lower() == "wick"
    QTest.keyClick(bar.field, Qt.Key.Key_Return)
    assert bar.count.text() == "2 of 3"
    QTest.keyClick(bar.field, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    assert bar.count.text() == "1 of 3"
    bar.field.setText("nowhere to be found")
    assert bar.count.text() == "No matches"
    QTest.keyClick(bar.field, Qt.Key.Key_Escape)
    assert not bar.isVisibleTo(window)
    # The sidebar's search, for every chat, is one key further.
    both = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    QTest.keyClick(window, Qt.Key.Key_F, both)
    assert window.sidebar.search.hasFocus()


def test_ctrl_slash_lists_every_shortcut(qtbot: QtBot, make_window: WindowFactory) -> None:
    from PySide6.QtWidgets import QApplication

    from app.shell.shortcuts import ShortcutsSheet

    window = make_window(with_engine=False)
    QTest.keyClick(window, Qt.Key.Key_Slash, Qt.KeyboardModifier.ControlModifier)
    sheet = next(w for w in QApplication.topLevelWidgets() if isinstance(w, ShortcutsSheet))
    assert sheet.isVisible() and sheet.accessibleName() == "Keyboard shortcuts"
    keys = [cell(sheet, row, 0) for row in range(sheet.table.rowCount())]
    assert {"Ctrl+N", "Ctrl+L", "Ctrl+F", "Ctrl+Z", "Ctrl+/"} <= set(keys)
    sheet.close()
