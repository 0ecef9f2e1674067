"""Answering in the chat from a collection, on the starter model: the composer's choice, the
grounded reply with its sources under it (file, page, passage), the sources kept with the reply
and shown again when the chat is reopened, and a question the documents know nothing about
answered "Not in your documents." without the model."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from engine.documents.answer import NOT_FOUND
from engine.documents.embeddings import EmbeddingModel
from engine.documents.index_db import IndexDB
from engine.documents.indexer import Indexer
from tests.app.conftest import REPLY_TIMEOUT_MS, WindowFactory, stored_messages, type_and_send
from tests.engine.documents.harbour import harbour_folder

if TYPE_CHECKING:
    from pytestqt.qtbot import QtBot

    from app.shell.main_window import MainWindow

pytestmark = pytest.mark.slow

ENCODER = "all-minilm-l6-v2-onnx"


@pytest.fixture
def harbour(data_dir: Path, tmp_path: Path, shared_models: Path) -> Iterator[Path]:
    """The folder, indexed into the window's own document index, with the real encoder."""
    docs = harbour_folder(tmp_path / "home")
    db = IndexDB()
    collection = db.collection("Harbour", create=True)
    assert collection is not None
    with EmbeddingModel.load(shared_models / ENCODER) as encoder:
        outcomes = Indexer(db, collection, encoder).add([docs])
    db.close()
    assert {o.outcome for o in outcomes} == {"indexed"}
    yield docs


def use_host_encoder(window: MainWindow, engine: Any, shared_models: Path) -> None:
    """The test encoder in the engine host, as the library's would be."""
    from engine.documents.host_encoder import HostEncoder

    window.document_answers._encoder = lambda: HostEncoder(engine.client, shared_models / ENCODER)


def ask(qtbot: QtBot, window: MainWindow, question: str) -> Any:
    with qtbot.waitSignal(window.controller.reply_finished, timeout=REPLY_TIMEOUT_MS) as done:
        type_and_send(qtbot, window, question)
    return done.args[0]


def test_a_chat_answer_from_a_collection_cites_file_and_page(
    qtbot: QtBot,
    make_window: WindowFactory,
    harbour: Path,
    engine: Any,
    shared_models: Path,
) -> None:
    window = make_window()
    use_host_encoder(window, engine, shared_models)
    choice = window.composer.documents
    assert choice.isVisibleTo(window)
    assert [choice.itemText(i) for i in range(choice.count())] == ["No documents", "Harbour"]
    window.composer.choose_collection("Harbour")

    outcome = ask(qtbot, window, "When does the boat to Gull Island depart?")
    assert outcome.error is None, outcome.error
    sources = outcome.message.meta["documents"]["sources"]
    assert sources[0]["path"] == str(harbour / "harbour_guide.pdf")
    assert sources[0]["page"] == 2
    assert "quarter past nine" in sources[0]["text"]
    assert outcome.message.meta["documents"]["partial"] is False
    reply = window.view.messages[-1]
    assert reply.text.strip()
    panel = reply.sources_panel
    assert panel is not None and panel.isVisibleTo(window)
    assert "harbour_guide.pdf · page 2" in panel.label.text()
    assert "quarter past nine" in panel.label.text()

    # Opening the chat again shows the sources from the stored reply.
    conversation = outcome.conversation_id
    window.new_chat()
    with qtbot.waitSignal(window.view.conversation_shown, timeout=REPLY_TIMEOUT_MS):
        window.controller.open_conversation(conversation)
    reopened = window.view.messages[-1].sources_panel
    assert reopened is not None and "harbour_guide.pdf · page 2" in reopened.label.text()

    # Something the documents do not speak of: said without asking the model.
    outcome = ask(qtbot, window, "Who painted the Mona Lisa?")
    assert outcome.message.content == NOT_FOUND
    assert outcome.message.meta["documents"]["collection"] == "Harbour"
    assert stored_messages(conversation)[-1].content == NOT_FOUND

    # On the documents' subject, but naming what they never mention: the closest passages
    # are offered, with why the answer is not there.
    outcome = ask(qtbot, window, "Can I book the Gull Island boat through the Ferrylink app?")
    assert outcome.message.content == NOT_FOUND
    assert "ferrylink" in outcome.message.meta["documents"]["not_found"]
    panel = window.view.messages[-1].sources_panel
    assert panel is not None and "Closest I found" in panel.label.text()


def test_without_a_collection_the_chat_is_plain(
    qtbot: QtBot, make_window: WindowFactory, harbour: Path
) -> None:
    window = make_window()
    assert window.composer.collection == ""
    outcome = ask(qtbot, window, "Say hello.")
    assert "documents" not in outcome.message.meta
    assert window.view.messages[-1].sources_panel is None


def test_a_document_answer_streams_beside_a_chat_reply(
    qtbot: QtBot,
    make_window: WindowFactory,
    harbour: Path,
    engine: Any,
    shared_models: Path,
) -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    from engine.store import ChatSettings

    window = make_window()
    use_host_encoder(window, engine, shared_models)
    controller = window.controller
    # A long story in one chat...
    controller.draft_settings = ChatSettings(temperature=0.0, max_tokens=1500)
    finished: list[Any] = []
    controller.reply_finished.connect(finished.append)
    type_and_send(qtbot, window, "Write a very long story about a lighthouse keeper.")
    qtbot.waitUntil(
        lambda: bool(controller.replies and controller.replies[0].parts), timeout=REPLY_TIMEOUT_MS
    )
    story = controller.replies[0]
    # ...and, while it is written, a question to the documents in another.
    QTest.keyClick(window, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    assert not controller.generating  # the new chat on screen is not being answered
    assert window.composer.button.text() == "Send"
    window.composer.choose_collection("Harbour")
    type_and_send(qtbot, window, "When does the boat to Gull Island depart?")
    assert len(controller.replies) == 2 and controller.generating
    qtbot.waitUntil(lambda: len(finished) == 1, timeout=REPLY_TIMEOUT_MS)
    answer = finished[0]
    assert answer.error is None, answer.error
    assert answer.message.meta["documents"]["sources"][0]["page"] == 2
    # The story was still being written when the answer was complete, and the list says so.
    assert story in controller.replies and story.parts
    qtbot.waitUntil(lambda: len(window.sidebar.conversation_items()) == 2, timeout=REPLY_TIMEOUT_MS)
    marked = {
        item.data(Qt.ItemDataRole.UserRole): not item.icon().isNull()
        for item in window.sidebar.conversation_items()
    }
    assert marked == {story.conversation_id: True, answer.conversation_id: False}
    if os.environ.get("COVE_SHOT"):
        window.grab().save(os.environ["COVE_SHOT"])
    assert window.view.messages[-1].sources_panel is not None
    assert window.composer.button.text() == "Send"
    story.request.cancel.set()
    qtbot.waitUntil(lambda: len(finished) == 2, timeout=REPLY_TIMEOUT_MS)
    assert finished[1].final.finish_reason == "cancelled"
    assert stored_messages(finished[1].conversation_id)[-1].content == story.text
    assert not controller.replies
