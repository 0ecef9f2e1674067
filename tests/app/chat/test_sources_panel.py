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


def five_sources() -> dict[str, object]:
    sources = [
        {"path": f"/docs/guide{n}.pdf", "page": n, "heading": None, "text": f"Passage {n}."}
        for n in range(1, 6)
    ]
    return {"documents": {"collection": "guides", "partial": False, "sources": sources}}


CITING = "It leaves at nine [4]. Tickets on board [1], cash only [4][2]."


def test_sources_are_numbered_in_the_order_the_answer_cites_them(qtbot: QtBot) -> None:
    from app.chat.message.sources import shown_text, sources_of

    meta = five_sources()
    sources, how, _partial = sources_of(meta, CITING)
    assert how == "cited"
    assert [(s.number, s.given, s.cited) for s in sources] == [
        (1, 4, True),
        (2, 1, True),
        (3, 2, True),
        (4, 3, False),
        (5, 5, False),
    ]
    assert (
        shown_text(meta, CITING) == "It leaves at nine [1]. Tickets on board [2], cash only [1][3]."
    )
    panel = panel_for(qtbot)
    panel.show_sources(meta, CITING)
    text = panel.label.text()
    order = [text.index(f"guide{n}.pdf") for n in (4, 1, 2, 3, 5)]
    assert order == sorted(order)
    assert text.index("[3]") < text.index("Also given to the model") < text.index("[4]")
    opened: list[tuple[str, object]] = []
    panel.open_requested.connect(lambda path, page: opened.append((path, page)))
    panel._open("source:1")
    assert opened == [("/docs/guide4.pdf", 4)]


def test_the_reply_shows_the_panels_numbers_and_keeps_the_models_own(qtbot: QtBot) -> None:
    """Streamed with the model's numbers; once finished, the text and the panel agree, and the
    reply as stored (what ``text`` gives the history) is unchanged."""
    from app.chat.message.widget import MessageWidget

    meta = five_sources()
    streamed = MessageWidget("assistant", LIGHT)
    qtbot.addWidget(streamed)
    streamed.start_stream()
    streamed.append(CITING[:30])
    streamed.append(CITING[30:])
    streamed.finish("complete", meta)
    shown = "It leaves at nine [1]. Tickets on board [2], cash only [1][3]."
    assert streamed.text == CITING and streamed.shown == shown
    assert "nine [1]" in streamed.body.toPlainText()

    reopened = MessageWidget("assistant", LIGHT)
    qtbot.addWidget(reopened)
    reopened.meta = meta
    reopened.set_text(CITING)
    reopened.finish("complete", meta)
    assert reopened.text == CITING and reopened.shown == shown

    plain = MessageWidget("assistant", LIGHT)
    qtbot.addWidget(plain)
    plain.set_text(CITING)  # no sources: as written
    assert plain.shown == plain.text == CITING
