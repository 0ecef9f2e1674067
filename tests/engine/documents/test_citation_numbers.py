"""Citations numbered for a person: the sources a reply cites become [1], [2], [3] in the order
it first cites them, the others follow, and the reply's own markers are written to match."""

from __future__ import annotations

from engine.documents.answer import cited, renumber, shown_numbers

ANSWER = "The boat leaves at 9:15 [4]. Tickets are sold on board [1], cash only [4][2]."


def test_the_cited_sources_come_first_in_the_order_of_first_citation() -> None:
    first = cited(ANSWER, 5)
    assert first == [4, 1, 2]
    assert shown_numbers(first, 5) == {4: 1, 1: 2, 2: 3, 3: 4, 5: 5}


def test_the_reply_says_the_numbers_the_sources_are_shown_with() -> None:
    numbers = shown_numbers(cited(ANSWER, 5), 5)
    assert renumber(ANSWER, numbers) == (
        "The boat leaves at 9:15 [1]. Tickets are sold on board [2], cash only [1][3]."
    )


def test_numbers_without_a_source_and_code_stay_as_written() -> None:
    answer = "See [3] and [9]. In code, `items[1]` and\n```\nrow[2] = 0\n```\nend [1]."
    assert cited(answer, 3) == [3, 1]
    shown = renumber(answer, shown_numbers(cited(answer, 3), 3))
    assert shown == "See [1] and [9]. In code, `items[1]` and\n```\nrow[2] = 0\n```\nend [2]."


def test_a_reply_that_cites_nothing_keeps_the_order_the_sources_were_given_in() -> None:
    assert shown_numbers([], 3) == {1: 1, 2: 2, 3: 3}
    assert renumber("No citations.", shown_numbers([], 3)) == "No citations."
