"""The sidebar's pins, folders (dragged into and out of), names edited in place, and search
reaching chats in folders: the real window on its own chat history."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QPoint, QPointF, Qt, QTimer
from PySide6.QtGui import QContextMenuEvent, QDragEnterEvent, QDragMoveEvent, QDropEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QLineEdit, QListWidgetItem, QMenu

from tests.app.conftest import QUICK_MS, WindowFactory

if TYPE_CHECKING:
    from pytestqt.qtbot import QtBot

    from app.shell.main_window import MainWindow
    from app.shell.sidebar import Sidebar
    from engine.store import Conversation, Folder


def seed(*titles: str) -> dict[str, int]:
    """Conversations written by an earlier session, the last one the newest."""
    from engine.store import Store

    ids: dict[str, int] = {}
    with Store() as store:
        for title in titles:
            conv = store.create_conversation(title)
            store.add_message(conv.id, "user", f"A question about {title.lower()}")
            ids[title] = conv.id
    return ids


def stored(conv_id: int) -> Conversation:
    from engine.store import Store

    with Store() as store:
        conv = store.get_conversation(conv_id)
    assert conv is not None
    return conv


def stored_folders() -> list[Folder]:
    from engine.store import Store

    with Store() as store:
        return store.folders()


def setting(key: str) -> Any:
    from engine.store import Store

    with Store() as store:
        return store.get_setting(key)


def rows(sidebar: Sidebar) -> list[str]:
    """The list as it reads: headings and folders as they are, a folder's chats set in by two
    spaces; rows hidden in a closed folder left out."""
    from app.shell.sidebar_list import IN_FOLDER_ROLE

    shown = []
    for row in range(sidebar.list.count()):
        item = sidebar.list.item(row)
        if not item.isHidden():
            inset = "  " if item.data(IN_FOLDER_ROLE) is not None else ""
            shown.append(inset + item.text())
    return shown


def chat_item(sidebar: Sidebar, title: str) -> QListWidgetItem:
    return next(item for item in sidebar.conversation_items() if item.text() == title)


def folder_item(sidebar: Sidebar, name: str) -> QListWidgetItem:
    return next(item for item in sidebar.folder_items() if item.text() == name)


def open_window(qtbot: QtBot, make_window: WindowFactory, titles: list[str]) -> MainWindow:
    window = make_window(with_engine=False)
    qtbot.waitUntil(
        lambda: sorted(i.text() for i in window.sidebar.conversation_items()) == sorted(titles),
        timeout=QUICK_MS,
    )
    # The newest chat opens by itself (one question each): shown whole before the test goes on.
    qtbot.waitUntil(lambda: len(window.view.messages) == 1, timeout=QUICK_MS)
    return window


def editor_of(window: MainWindow) -> QLineEdit:
    open_now = [e for e in window.sidebar.list.findChildren(QLineEdit) if e.isVisible()]
    assert len(open_now) == 1
    return open_now[0]


def retype(editor: QLineEdit, text: str) -> None:
    QTest.keyClick(editor, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    if text:
        QTest.keyClicks(editor, text)
    else:
        QTest.keyClick(editor, Qt.Key.Key_Backspace)


def drag_chat(sidebar: Sidebar, chat: QListWidgetItem, to: QPoint) -> None:
    """Drag ``chat`` over the list and drop it at ``to``, through the events Qt delivers."""
    view = sidebar.list
    data = view.mime_for(chat)
    assert data is not None
    move = Qt.DropAction.MoveAction
    button, none = Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    start = QPointF(view.visualItemRect(chat).center())
    QApplication.sendEvent(view.viewport(), QDragEnterEvent(start, move, data, button, none))
    QApplication.sendEvent(view.viewport(), QDragMoveEvent(QPointF(to), move, data, button, none))
    drop = QDropEvent(QPointF(to), move, data, button, none)
    QApplication.sendEvent(view.viewport(), drop)
    assert drop.isAccepted()


def test_a_pinned_chat_shows_first_under_pinned(qtbot: QtBot, make_window: WindowFactory) -> None:
    ids = seed("Bread", "Bananas", "Trains")
    window = open_window(qtbot, make_window, ["Bread", "Bananas", "Trains"])
    sidebar = window.sidebar
    assert rows(sidebar) == ["Today", "Trains", "Bananas", "Bread"]
    sidebar.list.setCurrentItem(chat_item(sidebar, "Bread"))
    button = sidebar.pin_button
    assert button.accessibleName() == "Pin" and button.isEnabled()
    button.click()
    qtbot.waitUntil(lambda: rows(sidebar)[:2] == ["Pinned", "Bread"], timeout=QUICK_MS)
    assert rows(sidebar) == ["Pinned", "Bread", "Today", "Trains", "Bananas"]
    assert stored(ids["Bread"]).pinned
    sidebar.list.setCurrentItem(chat_item(sidebar, "Bread"))
    assert button.accessibleName() == "Unpin" and button.text() == "Unpin"
    # The context menu says the same, and unpins.
    menu = sidebar.menu_for(chat_item(sidebar, "Bread"))
    unpin = next(a for a in menu.actions() if a.text() == "Unpin")
    unpin.trigger()
    qtbot.waitUntil(lambda: rows(sidebar)[0] == "Today", timeout=QUICK_MS)
    assert not stored(ids["Bread"]).pinned


def test_chats_dragged_into_a_folder_and_out_again(
    qtbot: QtBot, make_window: WindowFactory
) -> None:
    ids = seed("Bread", "Bananas", "Trains")
    window = open_window(qtbot, make_window, ["Bread", "Bananas", "Trains"])
    sidebar = window.sidebar
    assert sidebar.new_folder_button.accessibleName() == "New folder"
    sidebar.new_folder_button.click()
    # The new folder's name is edited in place at once.
    qtbot.waitUntil(lambda: bool(sidebar.folder_items()), timeout=QUICK_MS)
    qtbot.waitUntil(lambda: sidebar.list.state() == sidebar.list.State.EditingState)
    editor = editor_of(window)
    assert editor.text() == "New folder" and editor.accessibleName() == "Folder name"
    retype(editor, "Kitchen")
    QTest.keyClick(editor, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: [f.name for f in stored_folders()] == ["Kitchen"], timeout=QUICK_MS)
    qtbot.waitUntil(lambda: "Kitchen" in rows(sidebar), timeout=QUICK_MS)
    kitchen = stored_folders()[0].id

    folder = folder_item(sidebar, "Kitchen")
    with qtbot.waitSignal(sidebar.move_requested, timeout=QUICK_MS) as moved:
        drag_chat(
            sidebar, chat_item(sidebar, "Bread"), sidebar.list.visualItemRect(folder).center()
        )
    assert moved.args == [ids["Bread"], kitchen]
    expected = ["Folders", "Kitchen", "  Bread", "Today", "Trains", "Bananas"]
    qtbot.waitUntil(lambda: rows(sidebar) == expected, timeout=QUICK_MS)
    assert stored(ids["Bread"]).folder_id == kitchen
    # Dropped on a chat in the folder: into the folder too.
    inside = sidebar.list.visualItemRect(chat_item(sidebar, "Bread")).center()
    drag_chat(sidebar, chat_item(sidebar, "Bananas"), inside)
    qtbot.waitUntil(lambda: stored(ids["Bananas"]).folder_id == kitchen, timeout=QUICK_MS)
    qtbot.waitUntil(lambda: "  Bananas" in rows(sidebar), timeout=QUICK_MS)
    assert rows(sidebar).count("Bananas") == 0  # not under the days as well

    # Closed, the folder hides its chats; a screen reader hears how many and that it is closed.
    folder = folder_item(sidebar, "Kitchen")
    sidebar.list.setFocus()
    sidebar.list.setCurrentItem(folder)
    QTest.keyClick(sidebar.list, Qt.Key.Key_Left)
    assert rows(sidebar) == ["Folders", "Kitchen", "Today", "Trains"]
    assert folder.data(Qt.ItemDataRole.AccessibleDescriptionRole) == "Folder, 2 chats, closed"
    qtbot.waitUntil(lambda: setting("sidebar_closed_folders") == [kitchen], timeout=QUICK_MS)
    QTest.keyClick(sidebar.list, Qt.Key.Key_Right)
    assert "  Bananas" in rows(sidebar)

    # Dragged onto the top level (a chat there), it leaves the folder.
    top = sidebar.list.visualItemRect(chat_item(sidebar, "Trains")).center()
    drag_chat(sidebar, chat_item(sidebar, "Bread"), top)
    qtbot.waitUntil(lambda: stored(ids["Bread"]).folder_id is None, timeout=QUICK_MS)
    qtbot.waitUntil(lambda: "Bread" in rows(sidebar), timeout=QUICK_MS)

    # Without a mouse: Move to folder in the chat's menu.
    menu = sidebar.menu_for(chat_item(sidebar, "Trains"))
    moves = next(a.menu() for a in menu.actions() if a.text() == "Move to folder")
    assert isinstance(moves, QMenu)
    next(a for a in moves.actions() if a.text() == "Kitchen").trigger()
    qtbot.waitUntil(lambda: stored(ids["Trains"]).folder_id == kitchen, timeout=QUICK_MS)

    # Deleting the folder keeps its chats: they are back under the days.
    qtbot.waitUntil(lambda: "  Trains" in rows(sidebar), timeout=QUICK_MS)
    menu = sidebar.menu_for(folder_item(sidebar, "Kitchen"))
    next(a for a in menu.actions() if a.text().startswith("Delete folder")).trigger()
    qtbot.waitUntil(lambda: not sidebar.folder_items(), timeout=QUICK_MS)
    assert stored_folders() == []
    assert sorted(rows(sidebar)[1:]) == ["Bananas", "Bread", "Trains"]
    assert all(stored(i).folder_id is None for i in ids.values())


def test_f2_renames_in_place_esc_gives_up_and_empty_is_refused(
    qtbot: QtBot, make_window: WindowFactory
) -> None:
    ids = seed("Bread", "Trains")
    window = open_window(qtbot, make_window, ["Bread", "Trains"])
    sidebar = window.sidebar
    view = sidebar.list
    view.setFocus()
    view.setCurrentItem(chat_item(sidebar, "Bread"))
    QTest.keyClick(view, Qt.Key.Key_F2)
    editor = editor_of(window)
    assert editor.accessibleName() == "Chat title"
    retype(editor, "Sourdough")
    with qtbot.waitSignal(sidebar.rename_requested, timeout=QUICK_MS):
        QTest.keyClick(editor, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: stored(ids["Bread"]).title == "Sourdough", timeout=QUICK_MS)
    qtbot.waitUntil(lambda: "Sourdough" in rows(sidebar), timeout=QUICK_MS)

    # Esc: the title stays.
    view.setFocus()
    view.setCurrentItem(chat_item(sidebar, "Trains"))
    QTest.keyClick(view, Qt.Key.Key_F2)
    editor = editor_of(window)
    retype(editor, "Planes")
    QTest.keyClick(editor, Qt.Key.Key_Escape)
    assert chat_item(sidebar, "Trains").text() == "Trains"
    # Empty: refused, the title stays.
    view.setCurrentItem(chat_item(sidebar, "Trains"))
    QTest.keyClick(view, Qt.Key.Key_F2)
    editor = editor_of(window)
    retype(editor, "")
    QTest.keyClick(editor, Qt.Key.Key_Return)
    assert chat_item(sidebar, "Trains").text() == "Trains"
    assert stored(ids["Trains"]).title == "Trains"


def menu_shown(during: Callable[[], object]) -> list[str]:
    """What the context menu opened by ``during`` offers; it is closed again once read."""
    seen: list[str] = []

    def read_and_close() -> None:
        menu = QApplication.activePopupWidget()
        assert isinstance(menu, QMenu)
        seen.extend(action.text() for action in menu.actions() if action.text())
        menu.close()

    QTimer.singleShot(0, read_and_close)
    during()
    return seen


def test_the_menu_opens_from_the_keyboard_and_the_mouse(
    qtbot: QtBot, make_window: WindowFactory
) -> None:
    from engine.store import Store

    ids = seed("Bread")
    with Store() as store:
        store.move_to_folder(ids["Bread"], store.create_folder("Pantry"))
    window = open_window(qtbot, make_window, ["Bread"])
    sidebar = window.sidebar
    qtbot.waitUntil(lambda: bool(sidebar.folder_items()), timeout=QUICK_MS)
    view = sidebar.list
    view.setFocus()
    view.setCurrentItem(chat_item(sidebar, "Bread"))
    shift = Qt.KeyboardModifier.ShiftModifier
    seen = menu_shown(lambda: QTest.keyClick(view, Qt.Key.Key_F10, shift))
    assert seen[:3] == ["Rename", "Pin", "Move to folder"]
    assert "Delete…" in seen
    assert menu_shown(lambda: QTest.keyClick(view, Qt.Key.Key_Menu)) == seen
    # A right click on the folder: the folder's menu.
    where = view.visualItemRect(folder_item(sidebar, "Pantry")).center()
    mouse = QContextMenuEvent.Reason.Mouse
    click = QContextMenuEvent(mouse, where, view.viewport().mapToGlobal(where))
    seen = menu_shown(lambda: QApplication.sendEvent(view.viewport(), click))
    assert seen[:2] == ["Collapse", "Rename folder"]


def test_search_finds_a_chat_in_a_folder(qtbot: QtBot, make_window: WindowFactory) -> None:
    from engine.store import Store

    ids = seed("Bread", "Bananas")
    with Store() as store:
        pantry = store.create_folder("Pantry")
        store.move_to_folder(ids["Bananas"], pantry)
    window = open_window(qtbot, make_window, ["Bread", "Bananas"])
    sidebar = window.sidebar
    qtbot.waitUntil(lambda: "  Bananas" in rows(sidebar), timeout=QUICK_MS)
    assert rows(sidebar) == ["Folders", "Pantry", "  Bananas", "Today", "Bread"]
    QTest.keyClicks(sidebar.search, "bananas")
    qtbot.waitUntil(lambda: "Bread" not in rows(sidebar), timeout=QUICK_MS)
    assert not sidebar.folder_items()  # while searching, the hits alone
    hit = sidebar.conversation_items()[0]
    assert hit.text() == "Bananas"
    assert hit.data(Qt.ItemDataRole.AccessibleDescriptionRole) == "In the folder Pantry"
    message = sidebar.conversation_items()[1]  # the question that matched: opened at it
    assert message.text().startswith("Bananas\n")
    with qtbot.waitSignal(window.view.conversation_shown, timeout=QUICK_MS):
        sidebar.list.itemClicked.emit(message)
    assert window.controller.current is not None
    assert window.controller.current.id == ids["Bananas"]
    sidebar.search.clear()
    qtbot.waitUntil(lambda: "  Bananas" in rows(sidebar), timeout=QUICK_MS)


def test_the_sidebar_alone_lays_out_pins_folders_and_days(qtbot: QtBot, theme: Any) -> None:
    from app.shell.sidebar import Sidebar
    from engine.store import ChatSettings, Conversation, Folder

    now = datetime.now()

    def chat(n: int, days: int, **extra: Any) -> Conversation:
        stamp = (now - timedelta(days=days)).timestamp()
        return Conversation(n, f"Chat {n}", "", ChatSettings(), None, stamp, stamp, **extra)

    sidebar = Sidebar()
    qtbot.addWidget(sidebar)
    folders = [Folder(7, "Work", 0, 0.0), Folder(8, "Empty one", 1, 0.0)]
    sidebar.set_conversations(
        [
            chat(1, 0),
            chat(2, 0, pinned=True),
            chat(3, 1, folder_id=7),
            chat(4, 3, pinned=True, folder_id=7),
            chat(5, 30),
            chat(6, 0, folder_id=99),  # a folder not read yet: shown once it is
        ],
        folders,
    )
    assert rows(sidebar) == [
        "Pinned",
        "Chat 2",
        "Chat 4",
        "Folders",
        "Work",
        "  Chat 3",
        "Empty one",
        "  No chats yet: drag one here",
        "Today",
        "Chat 1",
        "Older",
        "Chat 5",
    ]
    # A closed folder stays closed when the list is filled again.
    sidebar.set_collapsed([7])
    assert "  Chat 3" not in rows(sidebar)
    assert not sidebar.pin_button.isEnabled()  # no chat chosen
    for button in (sidebar.new_folder_button, sidebar.pin_button):
        assert button.accessibleName() in ("New folder", "Pin")
