"""One Settings page (Ctrl+, or the sidebar's Settings): appearance, engine, MCP servers, saved
state, privacy and data; the chat's ⋯ menu keeps only the chat's own actions; every control on the
page is named for screen readers."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QAccessible
from PySide6.QtTest import QTest
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QLineEdit,
    QWidget,
)

from app.common import i18n
from tests.app.conftest import WindowFactory

if TYPE_CHECKING:
    from pytestqt.qtbot import QtBot

CONTROLS = (QAbstractButton, QComboBox, QLineEdit, QAbstractSpinBox)


def unnamed(page: QWidget) -> list[str]:
    """The showing controls a screen reader has no name for (or only a symbol)."""
    found = []
    for widget in page.findChildren(QWidget):
        if not isinstance(widget, CONTROLS) or not widget.isVisibleTo(page):
            continue
        if isinstance(widget.parent(), QAbstractSpinBox | QComboBox):
            continue  # a spin box's or combo box's own text field: named by its box
        face = QAccessible.queryAccessibleInterface(widget)
        name = face.text(QAccessible.Text.Name).strip() if face is not None else ""
        if not name or not any(ch.isalpha() for ch in name):
            found.append(f"{type(widget).__name__} {widget.objectName()!r} {name!r}")
    return found


def test_ctrl_comma_opens_settings_and_the_chat_menu_keeps_the_chats_actions(
    qtbot: QtBot, make_window: WindowFactory
) -> None:
    window = make_window(with_engine=False)
    QTest.keyClick(window.composer.edit, Qt.Key.Key_Comma, Qt.KeyboardModifier.ControlModifier)
    view = window.settings.view
    assert window.pages.currentWidget() is view
    sections = [view.list.item(i).text() for i in range(view.list.count())]
    assert sections == ["Appearance", "Engine", "MCP servers", "Saved state", "Privacy", "Data"]
    menu = window.chat_page.menu_button.menu()
    actions = [a.text() for a in menu.actions() if a.text()]
    assert actions == [
        "Export chat as Markdown…",
        "Export chat as JSON…",
        "Import chat…",
        "Rename chat",
        "Delete chat…",
    ]
    # Each section is part of the page, not a window of its own, and every control is named.
    for key in view.section_keys():
        widget = view.show_section(key)
        assert not widget.isWindow()
        assert unnamed(view) == [], key
    assert window.open_engine_settings().close_button.isVisibleTo(view) is False
    # A screen reader selects a section's item (AT-SPI's selection), without moving the cursor.
    view.list.clearSelection()
    view.list.item(4).setSelected(True)
    assert view.current_key() == "privacy"
    view.back_requested.emit()
    assert window.pages.currentWidget() is window.chat_page
    window.sidebar.settings_button.click()  # the sidebar's way there
    assert window.pages.currentWidget() is view


def test_appearance_sets_theme_text_size_and_language(
    qtbot: QtBot, make_window: WindowFactory
) -> None:
    window = make_window(with_engine=False)
    window.open_settings()
    appearance = window.settings.appearance()
    app = QApplication.instance()
    assert isinstance(app, QApplication)

    appearance.theme_box.setCurrentIndex(appearance.theme_box.findData("dark"))
    appearance.theme_box.activated.emit(appearance.theme_box.currentIndex())
    assert window.theme.preference == "dark"

    size = app.font().pointSizeF()
    appearance.text_size.setValue(130)
    assert app.font().pointSizeF() > size
    QTest.keyClick(window.composer.edit, Qt.Key.Key_0, Qt.KeyboardModifier.ControlModifier)
    assert appearance.text_size.value() == 100  # the keys and the box agree

    assert not appearance.restart_notice.isVisibleTo(appearance)
    box = appearance.language_box
    names = [box.itemText(i) for i in range(box.count())]
    assert names[1:] == [language.name for language in i18n.LANGUAGES]
    other = "de" if i18n.current() != "de" else "fr"
    box.setCurrentIndex(box.findData(other))
    box.activated.emit(box.currentIndex())
    assert i18n.saved_language() == other  # kept for the next start
    assert appearance.restart_notice.isVisibleTo(appearance)
    assert appearance.restart_button.text() == "Restart Cove now"


def test_a_screen_reader_sets_a_box_by_selecting_in_its_list(
    qtbot: QtBot, make_window: WindowFactory
) -> None:
    from PySide6.QtCore import QItemSelectionModel

    window = make_window(with_engine=False)
    window.open_settings()
    box = window.settings.appearance().language_box
    row = box.findData("fr" if i18n.current() != "fr" else "de")
    assert not box.view().isVisible()
    box.view().selectionModel().select(
        box.model().index(row, 0), QItemSelectionModel.SelectionFlag.ClearAndSelect
    )
    assert box.currentIndex() == row
    assert i18n.saved_language() == box.itemData(row)
