"""The sources under a document answer: a sentence no source holds is marked, and a reply
that the documents do not hold the answer offers the closest passages with why."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.chat.message.sources import SourcesPanel
from app.common.theme import LIGHT
from engine.documents.answer import NOT_FOUND

if TYPE_CHECKING:
    from pytestqt.qtbot import QtBot

SOURCE = {
    "path": "/docs/gnuplot.pdf",
    "page": 272,
    "heading": "pdf",
    "text": "The default size for PDF output is 5 inches by 3 inches.",
}


META = {"documents": {"collection": "manuals", "partial": False, "sources": [SOURCE]}}


def panel_for(qtbot: QtBot) -> SourcesPanel:
    panel = SourcesPanel(LIGHT)
    qtbot.addWidget(panel)
    return panel


def test_a_claim_in_no_source_is_marked(qtbot: QtBot) -> None:
    panel = panel_for(qtbot)
    panel.show_sources(META, "It is 5 inches by 3 inches [1]. It is printed at 300 dpi.")
    text = panel.label.text()
    assert "Not found in the sources" in text
    assert "300 dpi" in text
    assert "5 inches by 3 inches [1]" not in text.split("Sources")[0]

    panel.show_sources(META, "The default size is 5 inches by 3 inches [1].")
    assert "Not found in the sources" not in panel.label.text()


def test_not_in_your_documents_offers_the_closest_passages(qtbot: QtBot) -> None:
    panel = panel_for(qtbot)
    meta = {"documents": {**META["documents"], "not_found": "the documents never mention webp"}}
    panel.show_sources(meta, NOT_FOUND)
    text = panel.label.text()
    assert "Closest I found" in text
    assert "The documents never mention webp." in text
    assert "Not found in the sources" not in text


def test_the_models_own_not_in_your_documents_offers_the_closest_passages(qtbot: QtBot) -> None:
    panel = panel_for(qtbot)
    panel.show_sources(META, '"Not in your documents." The sources cover PDF output only.')
    text = panel.label.text()
    assert "Closest I found" in text
    assert "5 inches by 3 inches" in text  # the passage itself, offered
