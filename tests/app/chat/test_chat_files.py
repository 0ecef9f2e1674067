"""Files given to a chat: a PDF dropped on the composer is read into the chat's own collection
(shown above the text while it is read, and after), the reply answers from it with file and
page, the file can be taken out of the chat, and the collection goes with the chat."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from PySide6.QtCore import QMimeData, QUrl

from app.common.chat_collections import collection_name
from engine.documents.index_db import IndexDB
from tests.app.conftest import REPLY_TIMEOUT_MS, WindowFactory, type_and_send
from tests.app.pictures import landscape
from tests.engine.documents.harbour import harbour_folder

if TYPE_CHECKING:
    from pytestqt.qtbot import QtBot

pytestmark = pytest.mark.slow

ENCODER = "all-minilm-l6-v2-onnx"


def dropped(*paths: Path) -> QMimeData:
    """What a file manager's drop carries."""
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    return mime


def test_a_pdf_dropped_in_a_chat_is_answered_from_with_its_page(
    qtbot: QtBot, make_window: WindowFactory, tmp_path: Path, shared_models: Path, engine: Any
) -> None:
    docs = harbour_folder(tmp_path / "home")
    window = make_window()
    window.encoder_folder = lambda: shared_models / ENCODER
    composer = window.composer
    assert composer.attach_button.accessibleName() == "Attach files"

    # Dropped on a new chat: the chat is saved, and the file is read in the background.
    with qtbot.waitSignal(window.controller.conversation_opened, timeout=REPLY_TIMEOUT_MS):
        composer.add_from_mime(dropped(docs / "harbour_guide.pdf"))
    conversation = window.controller.current
    assert conversation is not None and conversation.title.startswith("harbour_guide")
    qtbot.waitUntil(lambda: composer.files_strip.isVisibleTo(window), timeout=REPLY_TIMEOUT_MS)
    assert composer.files_strip.names() == ["harbour_guide.pdf"]
    qtbot.waitUntil(
        lambda: [c.file.state for c in composer.files_strip.chips] == ["ready"],
        timeout=REPLY_TIMEOUT_MS,
    )
    assert "2 pages" in composer.files_strip.chips[0].label.text()
    # It is the chat's, not one of the person's collections.
    choice = composer.documents
    assert [choice.itemText(i) for i in range(choice.count())] == ["No documents"]
    assert window.documents_view.collections.count() == 0

    with qtbot.waitSignal(window.controller.reply_finished, timeout=REPLY_TIMEOUT_MS) as done:
        type_and_send(qtbot, window, "When does the ferry to Gull Island leave?")
    outcome = done.args[0]
    assert outcome.error is None, outcome.error
    documents = outcome.message.meta["documents"]
    assert documents["collection"] == collection_name(conversation.id)
    first = documents["sources"][0]
    assert (first["path"], first["page"]) == (str((docs / "harbour_guide.pdf").resolve()), 2)
    panel = window.view.messages[-1].sources_panel
    assert panel is not None and "harbour_guide.pdf · page 2" in panel.label.text()

    # Another chat has no files; coming back shows them again.
    window.new_chat()
    assert not composer.files_strip.isVisibleTo(window)
    with qtbot.waitSignal(window.view.conversation_shown, timeout=REPLY_TIMEOUT_MS):
        window.controller.open_conversation(conversation.id)
    assert composer.files_strip.names() == ["harbour_guide.pdf"]

    # Taken out of the chat: its passages are no longer given to the model.
    composer.files_strip.chips[0].remove_button.click()
    assert composer.files_strip.names() == []
    assert window.controller.chat_collection(conversation.id) == ""
    assert IndexDB().collection(collection_name(conversation.id)) is None


def test_files_that_cannot_be_read_say_why_and_images_still_go_to_the_image_strip(
    qtbot: QtBot, make_window: WindowFactory, tmp_path: Path
) -> None:
    window = make_window(with_engine=False)
    composer = window.composer
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.7\nthis is not a PDF body")
    with qtbot.waitSignal(window.controller.conversation_opened, timeout=REPLY_TIMEOUT_MS):
        composer.add_from_mime(dropped(broken))
    qtbot.waitUntil(
        lambda: [c.file.state for c in composer.files_strip.chips] == ["failed"],
        timeout=REPLY_TIMEOUT_MS,
    )
    chip = composer.files_strip.chips[0]
    assert chip.file.detail and "broken.pdf" in chip.accessibleName()
    remove = chip.remove_button.accessibleName()
    assert remove == "Remove broken.pdf from this chat"

    # A picture dropped beside a document is read as an image for the message.
    picture = landscape(tmp_path / "photo.png", (320, 200))
    notes = tmp_path / "notes.md"
    notes.write_text("# Notes\n\nThe meeting moved to Thursday.\n", encoding="utf-8")
    composer.add_from_mime(dropped(picture, notes))
    qtbot.waitUntil(lambda: len(composer.attachments) == 1, timeout=REPLY_TIMEOUT_MS)
    qtbot.waitUntil(lambda: "notes.md" in composer.files_strip.names(), timeout=REPLY_TIMEOUT_MS)

    # Deleting the chat deletes its collection (the files themselves stay).
    conversation = window.controller.current
    assert conversation is not None
    qtbot.waitUntil(
        lambda: all(c.file.state != "reading" for c in composer.files_strip.chips),
        timeout=REPLY_TIMEOUT_MS,
    )
    window.controller.delete_conversation(conversation.id)
    assert IndexDB().collection(collection_name(conversation.id)) is None
    assert notes.is_file() and broken.is_file()


def test_attach_files_opens_a_dialog_that_hands_documents_to_the_chat(
    qtbot: QtBot, make_window: WindowFactory, tmp_path: Path
) -> None:
    from PySide6.QtWidgets import QFileDialog

    window = make_window(with_engine=False)
    notes = tmp_path / "notes.md"
    notes.write_text("# Notes\n\nThe meeting moved to Thursday.\n", encoding="utf-8")
    window.composer.attach_button.click()
    dialog = next(d for d in window.findChildren(QFileDialog) if d.isVisible())
    assert dialog.windowTitle() == "Attach files"
    dialog.selectFile(str(notes))
    with qtbot.waitSignal(window.composer.documents_given, timeout=REPLY_TIMEOUT_MS) as given:
        dialog.accept()
    assert given.args == [[notes]]
    qtbot.waitUntil(lambda: window.composer.files_strip.names() == ["notes.md"])
