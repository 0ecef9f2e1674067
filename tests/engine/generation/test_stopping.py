from __future__ import annotations

from engine.generation.stopping import StopMatcher


def feed_all(stops: tuple[str, ...], pieces: list[str]) -> tuple[str, bool]:
    m = StopMatcher(stops)
    out = []
    for p in pieces:
        text, hit = m.feed(p)
        out.append(text)
        if hit:
            return "".join(out), True
    out.append(m.flush())
    return "".join(out), False


def test_stop_split_across_pieces_never_leaks() -> None:
    text, hit = feed_all(("<|end|>",), ["Hello <|", "en", "d|> ignored"])
    assert (text, hit) == ("Hello ", True)


def test_held_back_prefix_is_released_when_it_is_not_a_stop() -> None:
    m = StopMatcher(("STOP",))
    assert m.feed("abc ST") == ("abc ", False)
    assert m.feed("ART") == ("START", False)


def test_flush_releases_a_partial_match_at_the_end() -> None:
    assert feed_all(("###",), ["a #", "#"]) == ("a ##", False)


def test_earliest_of_several_stops_wins() -> None:
    assert feed_all(("b", "a"), ["xxab"]) == ("xx", True)


def test_no_stops_passes_text_through() -> None:
    assert feed_all((), ["a", "b"]) == ("ab", False)
