"""Images in the chat: attached, dropped and pasted in the composer, sent with the message, kept
with the chat (and gone with it), exported, and the message when the model cannot see them."""

from __future__ import annotations

import dataclasses
import io
import json
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from PIL import Image, ImageDraw
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QGuiApplication, QImage
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QWidget

from tests.app.conftest import QUICK_MS, REPLY_TIMEOUT_MS, WindowFactory, stored_messages

if TYPE_CHECKING:
    from pytestqt.qtbot import QtBot

    from app.chat.composer import Composer
    from app.shell.main_window import MainWindow
    from engine.types import ChatMessage


def chart(path: Path, size: tuple[int, int] = (640, 400), fmt: str = "PNG") -> Path:
    """A bar chart, as a user might ask about one."""
    image = Image.new("RGB", size, "white")
    draw = ImageDraw.Draw(image)
    w, h = size
    for i, value in enumerate((0.35, 0.6, 0.45, 0.8)):
        left = 60 + i * (w - 100) // 4
        draw.rectangle((left, h - 40 - value * (h - 80), left + 60, h - 40), fill=(37, 99, 235))
    draw.line((50, h - 40, w - 20, h - 40), fill="black", width=2)
    image.save(path, fmt)
    return path


def photo_bytes(size: tuple[int, int] = (300, 200)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, (200, 120, 40)).save(out, "JPEG")
    return out.getvalue()


@pytest.fixture
def composer(qtbot: QtBot, theme: Any) -> Iterator[Composer]:
    from app.chat.composer import Composer

    widget = Composer()
    qtbot.addWidget(widget)
    widget.resize(700, 200)
    widget.show()
    yield widget
    widget.pool.wait(QUICK_MS)


def wait_read(qtbot: QtBot, composer: Composer, count: int) -> None:
    qtbot.waitUntil(lambda: not composer.reading and len(composer.attachments) == count)


def drop(qtbot: QtBot, target: QWidget, mime: QMimeData) -> None:
    """A drag entering ``target`` and the drop, as Qt delivers them from the window system."""
    point = QPointF(target.rect().center())
    actions = Qt.DropAction.CopyAction
    buttons, mods = Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    with warnings.catch_warnings():  # PySide6 flags Qt 6's only constructor as deprecated
        warnings.simplefilter("ignore", DeprecationWarning)
        enter = QDragEnterEvent(point.toPoint(), actions, mime, buttons, mods)
    QApplication.sendEvent(target, enter)
    assert enter.isAccepted()
    dropped = QDropEvent(point, actions, mime, buttons, mods)
    QApplication.sendEvent(target, dropped)
    assert dropped.isAccepted()


# The composer on its own


def test_attach_shows_a_thumbnail_and_remove_takes_it_away(
    qtbot: QtBot, composer: Composer, tmp_path: Path
) -> None:
    composer.add_files([chart(tmp_path / "sales.png"), chart(tmp_path / "q3.jpg", fmt="JPEG")])
    wait_read(qtbot, composer, 2)
    assert [a.name for a in composer.attachments] == ["sales.png", "q3.jpg"]
    chips = composer.strip.chips
    assert len(chips) == 2 and composer.strip.isVisible()
    assert "640 x 400" in chips[0].toolTip()
    assert not chips[0].picture.pixmap().isNull()
    with qtbot.waitSignal(composer.images_changed):
        QTest.mouseClick(chips[0].remove_button, Qt.MouseButton.LeftButton)
    assert [a.name for a in composer.attachments] == ["q3.jpg"]
    QTest.mouseClick(composer.strip.chips[0].remove_button, Qt.MouseButton.LeftButton)
    assert composer.attachments == [] and not composer.strip.isVisible()


def test_image_files_dropped_on_the_text_are_attached_not_typed(
    qtbot: QtBot, composer: Composer, tmp_path: Path
) -> None:
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(chart(tmp_path / "dropped.png")))])
    drop(qtbot, composer.edit.viewport(), mime)
    wait_read(qtbot, composer, 1)
    assert composer.attachments[0].name == "dropped.png"
    assert composer.text == ""  # no file URL typed into the message
    # Dropped on the composer's frame (beside the text) too.
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(chart(tmp_path / "second.png", (200, 900))))])
    drop(qtbot, composer, mime)
    wait_read(qtbot, composer, 2)
    assert composer.attachments[1].image.original == (200, 900)


def test_a_pasted_image_is_attached_and_pasted_text_is_still_text(
    qtbot: QtBot, composer: Composer
) -> None:
    clipboard = QGuiApplication.clipboard()
    screenshot = QImage(320, 180, QImage.Format.Format_RGB32)
    screenshot.fill(Qt.GlobalColor.darkCyan)
    mime = QMimeData()
    mime.setImageData(screenshot)
    clipboard.setMimeData(mime)
    composer.edit.setFocus()
    QTest.keyClick(composer.edit, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
    wait_read(qtbot, composer, 1)
    attached = composer.attachments[0]
    assert attached.name == "Pasted image" and attached.image.original == (320, 180)
    assert attached.image.mime == "image/png"
    # The file's own bytes when the clipboard has them (a copied JPEG stays a JPEG).
    jpeg = QMimeData()
    jpeg.setData("image/jpeg", photo_bytes())
    clipboard.setMimeData(jpeg)
    composer.edit.paste()
    wait_read(qtbot, composer, 2)
    assert composer.attachments[1].image.encoded == photo_bytes()
    clipboard.setText("just words")
    composer.edit.paste()
    assert composer.text == "just words" and len(composer.attachments) == 2


def test_a_file_that_is_not_an_image_is_refused_with_its_reason(
    qtbot: QtBot, composer: Composer, tmp_path: Path
) -> None:
    notes = tmp_path / "notes.dat"  # neither a picture nor a document Cove reads
    notes.write_bytes(b"\x00\x01 not a picture")
    cut = tmp_path / "cut.png"
    cut.write_bytes(chart(tmp_path / "whole.png").read_bytes()[:600])
    composer.add_files([notes, cut])
    qtbot.waitUntil(lambda: not composer.reading)
    assert composer.attachments == []
    message = composer.image_error.text()
    assert composer.image_error.isVisible()
    assert "notes.dat is not an image Cove can read" in message
    assert "cut.png" in message
    composer.add_files([chart(tmp_path / "fine.png")])
    wait_read(qtbot, composer, 1)
    composer.remove_image(0)
    assert not composer.image_error.isVisible()  # the reason goes once the user moves on


def test_a_message_takes_up_to_eight_images(
    qtbot: QtBot, composer: Composer, tmp_path: Path
) -> None:
    from app.chat.attachments import MAX_IMAGES

    paths = [chart(tmp_path / f"page{i}.png", (120, 80)) for i in range(MAX_IMAGES + 2)]
    composer.add_files(paths)
    wait_read(qtbot, composer, MAX_IMAGES)
    assert "up to 8 images: 2 were not attached" in composer.image_error.text()


def test_images_alone_can_be_sent(qtbot: QtBot, composer: Composer, tmp_path: Path) -> None:
    sent: list[str] = []
    composer.send_requested.connect(sent.append)
    QTest.keyClick(composer.edit, Qt.Key.Key_Return)
    assert sent == []  # nothing to send
    composer.add_files([chart(tmp_path / "only.png")])
    # Enter while the image is still being read sends once it is.
    QTest.keyClick(composer.edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: sent == [""])


# The window, against the engine host on the starter model (a text model)


def capture_chat(window: MainWindow, seen: list[Sequence[ChatMessage]]) -> None:
    """Keep what each reply sends the engine."""
    original = window.engine.chat_fn

    def chat_fn(chosen: str | None = None) -> Any:
        chat = original(chosen)

        def wrapped(messages: Sequence[ChatMessage], params: Any, cancel: Any) -> Any:
            seen.append(list(messages))
            return chat(messages, params, cancel)

        return wrapped

    window.engine.chat_fn = chat_fn  # type: ignore[method-assign]


def seeing(window: MainWindow, vision: bool) -> None:
    status = window.engine.status
    assert status is not None
    window.engine.status = dataclasses.replace(status, vision=vision)


def attach(qtbot: QtBot, window: MainWindow, *paths: Path) -> None:
    composer = window.composer
    composer.add_files(list(paths))
    wait_read(qtbot, composer, len(paths))


@pytest.mark.slow
def test_a_model_that_cannot_see_keeps_the_images_and_points_to_vision_models(
    qtbot: QtBot, make_window: WindowFactory, tmp_path: Path
) -> None:
    window = make_window()
    status = window.engine.status
    assert status is not None and status.model and not status.vision
    # Dropped on the conversation, not only on the composer.
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(chart(tmp_path / "sales.png")))])
    drop(qtbot, window.view.viewport(), mime)
    wait_read(qtbot, window.composer, 1)
    notice = window.chat_page.vision_notice
    # Said as soon as the image is attached, and again when the user tries to send it.
    qtbot.waitUntil(lambda: window.chat_page.vision_notice_frame.isVisible())
    assert notice.text().startswith(f"{status.model} cannot see images")
    window.composer.set_text("What does this chart show?")
    window.composer.button.click()
    assert window.controller.active is None and window.view.messages == []
    assert window.composer.text == "What does this chart show?"  # nothing lost
    assert len(window.composer.attachments) == 1
    QTest.mouseClick(window.chat_page.vision_button, Qt.MouseButton.LeftButton)
    assert window.pages.currentWidget() is window.models_view
    assert window.models_view.tabs.currentWidget() is window.discover
    assert window.discover.search.text() == "vision"
    window.show_page("chat")
    window.composer.remove_image(0)
    assert not window.chat_page.vision_notice_frame.isVisible()


@pytest.mark.slow
def test_images_go_to_the_engine_are_kept_and_go_with_the_chat(
    qtbot: QtBot, make_window: WindowFactory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from engine.store import Store

    window = make_window()
    seen: list[Sequence[ChatMessage]] = []
    capture_chat(window, seen)
    big = chart(tmp_path / "big chart.png", (3000, 1800))
    attach(qtbot, window, big, chart(tmp_path / "small.jpg", fmt="JPEG"))
    # As if the status said a vision model was loaded: the engine itself is the judge.
    seeing(window, True)
    with qtbot.waitSignal(window.controller.reply_finished, timeout=REPLY_TIMEOUT_MS) as blocker:
        window.composer.set_text("Which quarter sold most?")
        window.composer.button.click()
        assert window.composer.attachments == [] and window.composer.text == ""
    outcome = blocker.args[0]
    # The images went to the engine on the user's message, scaled for the model.
    (messages,) = seen
    user = messages[-1]
    assert user.role == "user" and user.content == "Which quarter sold most?"
    assert [(i.width, i.height, i.original) for i in user.images] == [
        (2048, 1229, (3000, 1800)),
        (640, 400, (640, 400)),
    ]
    # The starter cannot see: the engine says so, and so does the window.
    assert outcome.error and "cannot see images" in outcome.error
    qtbot.waitUntil(lambda: window.chat_page.vision_notice_frame.isVisible(), timeout=QUICK_MS)
    assert "cannot see images" in window.chat_page.vision_notice.text()
    # The message shows its images; the chat keeps the originals, whole.
    shown = window.view.messages[0]
    assert shown.images is not None and len(shown.images.thumbs) == 2
    qtbot.waitUntil(lambda: all(t.loaded for t in shown.images.thumbs))  # type: ignore[union-attr]
    stored = stored_messages(outcome.conversation_id)[0]
    assert [i.name for i in stored.images] == ["big chart.png", "small.jpg"]
    assert stored.images[0].path.read_bytes() == big.read_bytes()
    assert (stored.images[0].width, stored.images[0].height) == (3000, 1800)
    assert [t.ref.path for t in shown.images.thumbs] == [i.path for i in stored.images]

    # Clicking a thumbnail opens the whole file.
    opened: list[QUrl] = []

    def open_url(url: QUrl) -> bool:
        opened.append(url)
        return True

    monkeypatch.setattr("app.chat.message.images._open_url", open_url)
    QTest.mouseClick(shown.images.thumbs[0], Qt.MouseButton.LeftButton)
    assert [u.toLocalFile() for u in opened] == [str(stored.images[0].path)]

    # Exported with the chat: JSON embeds them, Markdown copies them beside itself.
    conv_id = outcome.conversation_id
    markdown = tmp_path / "export" / "sales.md"
    markdown.parent.mkdir()
    with qtbot.waitSignal(window.controller.notice, timeout=QUICK_MS):
        window.controller.export(conv_id, "md", markdown)
    assert "![big chart.png](sales_images/big%20chart.png)" in markdown.read_text()
    assert (markdown.parent / "sales_images" / "big chart.png").read_bytes() == big.read_bytes()
    exported = tmp_path / "export" / "sales.json"
    with qtbot.waitSignal(window.controller.notice, timeout=QUICK_MS):
        window.controller.export(conv_id, "json", exported)
    first = json.loads(exported.read_text())["messages"][0]
    assert [i["url"][:22] for i in first["images"]] == [
        "data:image/png;base64,",
        "data:image/jpeg;base64",
    ]

    # Reopened and continued, the earlier images go again as part of the conversation.
    window.controller.new_chat()
    with qtbot.waitSignal(window.view.conversation_shown, timeout=QUICK_MS):
        window.controller.open_conversation(conv_id)
    reopened = window.view.messages[0]
    assert reopened.images is not None and len(reopened.images.thumbs) == 2
    seeing(window, True)
    with qtbot.waitSignal(window.controller.reply_finished, timeout=REPLY_TIMEOUT_MS):
        window.composer.set_text("And the lowest?")
        window.composer.button.click()
    earlier = [m for m in seen[-1] if m.role == "user"]
    assert [len(m.images) for m in earlier] == [2, 0]
    # A model known not to see them gets the conversation without them, and the window says so.
    seeing(window, False)
    window.controller.notices.check_vision()
    assert "this chat's images are left out" in window.chat_page.vision_notice.text()

    # Deleting the chat deletes its image files.
    files = [i.path for i in stored.images]
    window.controller.delete_conversation(conv_id)
    qtbot.waitUntil(lambda: not any(p.exists() for p in files), timeout=QUICK_MS)
    with Store() as store:
        assert store.get_conversation(conv_id) is None
