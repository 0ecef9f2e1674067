"""The preset picker as a person uses it: by keyboard and mouse, and as a screen reader names it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from app.chat.preset_picker import PresetMenu, PresetPicker
from engine.store.presets import BUILT_IN, Preset

if TYPE_CHECKING:
    from pytestqt.qtbot import QtBot

MINE = Preset("Pirate", "Answer like a pirate.")


def picker(qtbot: QtBot) -> PresetPicker:
    box = PresetPicker()
    qtbot.addWidget(box)
    box.set_presets([*BUILT_IN, MINE], default_name="Coding helper")
    box.show()
    qtbot.waitExposed(box)
    return box


def test_it_is_named_for_screen_readers(qtbot: QtBot) -> None:
    box = picker(qtbot)
    assert box.accessibleName() == "Preset"
    assert box.toolTip()


def test_items_are_the_presets_with_the_default_marked(qtbot: QtBot) -> None:
    box = picker(qtbot)
    labels = [box.itemText(i) for i in range(box.count())]
    assert labels == [
        "General assistant",
        "Coding helper (default)",
        "Document summariser",
        "Pirate",
    ]
    assert [box.itemData(i) for i in range(box.count())] == [
        "General assistant",
        "Coding helper",
        "Document summariser",
        "Pirate",
    ]
    assert box.itemData(3, Qt.ItemDataRole.ToolTipRole) == MINE.system_prompt


def test_choosing_a_preset_emits_it(qtbot: QtBot) -> None:
    box = picker(qtbot)
    box.select("Document summariser")
    box.setFocus()
    with qtbot.waitSignal(box.preset_chosen, timeout=5000) as chosen:
        QTest.keyClick(box, Qt.Key.Key_Down)
    assert chosen.args == [MINE]
    assert box.current_preset() == MINE


def test_choosing_from_the_open_list_emits_it(qtbot: QtBot) -> None:
    box = picker(qtbot)
    box.showPopup()
    view = box.view()
    qtbot.waitExposed(view)
    spot = view.visualRect(box.model().index(0, 0)).center()
    with qtbot.waitSignal(box.preset_chosen, timeout=5000) as chosen:
        QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=spot)
    assert chosen.args == [BUILT_IN[0]]


def test_select_and_refilling_do_not_emit(qtbot: QtBot) -> None:
    box = picker(qtbot)
    with qtbot.assertNotEmitted(box.preset_chosen):
        box.select("Pirate")
        assert box.current_name() == "Pirate"
        box.set_presets([*BUILT_IN, MINE, Preset("Zed")], default_name=None)
        assert box.current_name() == "Pirate"
        assert box.itemText(1) == "Coding helper"
        box.select(None)
        assert box.currentIndex() == -1 and box.current_preset() is None
        box.select("Not there")
        assert box.current_preset() is None


def test_the_menu_offers_what_applies(qtbot: QtBot) -> None:
    menu = PresetMenu()
    qtbot.addWidget(menu)
    assert menu.accessibleName() == "Presets menu"
    texts = [a.text() for a in menu.menu().actions() if not a.isSeparator()]
    assert "Save current as preset…" in texts and "Set as default for new chats" in texts
    assert "Import presets…" in texts and "Export presets…" in texts

    assert not menu.default_action.isEnabled() and not menu.delete_action.isEnabled()
    menu.set_current(BUILT_IN[1], default_name="Coding helper")
    assert not menu.default_action.isEnabled()  # already the default
    assert not menu.delete_action.isEnabled()  # built in
    assert menu.clear_default_action.isEnabled()

    menu.set_current(MINE, default_name="Coding helper")
    with qtbot.waitSignal(menu.default_requested, timeout=5000) as made_default:
        menu.default_action.trigger()
    assert made_default.args == [MINE]
    with qtbot.waitSignal(menu.delete_requested, timeout=5000) as deleted:
        menu.delete_action.trigger()
    assert deleted.args == [MINE]
    for action, signal in (
        (menu.save_action, menu.save_requested),
        (menu.import_action, menu.import_requested),
        (menu.export_action, menu.export_requested),
        (menu.clear_default_action, menu.clear_default_requested),
    ):
        with qtbot.waitSignal(signal, timeout=5000):
            action.trigger()
