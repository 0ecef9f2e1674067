"""The grounded prompt and what is made of the answer: sources numbered within the context
budget, citations read back, sources matched to an answer that cites none, and the
off-topic gate that answers "Not in your documents." without a model."""

from __future__ import annotations

from engine.documents.answer import (
    NOT_FOUND,
    REPLY_TOKENS,
    build_messages,
    cited,
    ground,
    matched,
)
from engine.documents.answerable import MIN_SIMILARITY, off_topic
from engine.documents.retrieve import Source


def source(n: int, text: str, similarity: float | None = 0.6, page: int | None = 2) -> Source:
    return Source(n, f"/docs/file{n}.pdf", page, "Charging", ("Charging",), 0.5, text, similarity)


CHARGE = source(1, "A full charge from empty takes about 4.5 hours on the CH-19 charger.")
OTHER = source(2, "A full charge from empty takes about 3.5 hours on the CH-12 charger.")
BIN = source(3, "The dust bin holds 0.75 litre and empties with one lever.")


def test_the_prompt_numbers_sources_with_file_page_and_heading() -> None:
    system, user = build_messages("How long to charge?", [CHARGE, OTHER], 2048)
    assert system.role == "system" and NOT_FOUND in system.content
    assert "[1] (file1.pdf, page 2, Charging)\nA full charge" in user.content
    assert "[2] (file2.pdf, page 2, Charging)" in user.content
    assert user.content.endswith("Question: How long to charge?")


def test_sources_that_do_not_fit_the_context_are_left_out_best_first() -> None:
    long = [source(n, "word " * 400) for n in range(1, 6)]
    _system, small = build_messages("q", long, REPLY_TOKENS + 1200)
    _system, large = build_messages("q", long, 8192)
    assert "[1]" in small.content and "[2]" not in small.content
    assert all(f"[{n}]" in large.content for n in range(1, 6))


def test_citations_are_read_once_each_and_only_for_real_sources() -> None:
    assert cited("It takes 4.5 hours [2][1], as [2] says; see also [7].", 3) == [2, 1]
    assert cited("No citations here.", 3) == []


def test_an_answer_without_citations_is_matched_by_its_figures() -> None:
    texts = [s.text for s in (OTHER, BIN, CHARGE)]
    assert matched("The X200 takes approximately 4.5 hours to charge.", texts) == [3]
    assert matched("It holds 0.75 litre.", texts) == [2]
    # A figure the model made up does not hide the one it took.
    assert matched("About 4.5 hours, or 1.9 kWh.", texts) == [3]
    assert matched("About 9.9 hours.", texts) == []  # a figure no source has: nothing matched
    assert matched("The charger from empty takes hours.", texts)[:1] in ([1], [3])


def test_off_topic_questions_are_answered_without_the_model() -> None:
    far = [source(1, CHARGE.text, MIN_SIMILARITY - 0.1), source(2, BIN.text, 0.05)]
    assert off_topic([]) and off_topic(far)
    assert not off_topic([*far, source(3, OTHER.text, MIN_SIMILARITY + 0.01)])
    assert not off_topic([source(1, CHARGE.text, similarity=None)])  # keyword search only
    grounding = ground("Who painted the Mona Lisa?", far, 2048)
    assert grounding.messages is None
    near = ground("How long to charge?", [CHARGE], 2048, partial=True)
    assert near.messages is not None
    meta = near.meta("Manuals")["documents"]
    assert meta["collection"] == "Manuals" and meta["partial"] is True
    assert meta["sources"][0] == CHARGE.to_dict()


def test_the_instructed_decline_is_recognised_however_it_is_dressed() -> None:
    from engine.documents.answer import NOT_FOUND, said_not_found

    for reply in (NOT_FOUND, f'"{NOT_FOUND}"', f"**{NOT_FOUND}**", "not in your documents"):
        assert said_not_found(reply)
    assert said_not_found(f"{NOT_FOUND} The sources are about PDF output.")
    assert not said_not_found("The default size is 5 inches [1]. It is not in your documents.")
    assert not said_not_found("")
