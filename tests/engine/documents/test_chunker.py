"""The chunker cuts along the document's structure: never across a page or a heading, whole
paragraphs up to the target size, a table's header with every piece of it, long paragraphs at
sentence ends."""

from __future__ import annotations

from engine.documents.blocks import Block, PageIssue
from engine.documents.chunker import MAX_CHARS, TARGET_CHARS, chunk_blocks


def para(text: str, page: int | None = None, headings: tuple[str, ...] = ()) -> Block:
    return Block("paragraph", text, page=page, headings=headings)


def test_chunks_never_cross_a_page_or_a_heading() -> None:
    blocks = [
        Block("heading", "Battery", level=1),
        para("Short one.", headings=("Battery",)),
        para("Short two.", headings=("Battery",)),
        Block("heading", "Charging", headings=("Battery",), level=2),
        para("Plug it in.", headings=("Battery", "Charging")),
        para("Page two text.", page=2, headings=("Battery", "Charging")),
    ]
    chunks = list(chunk_blocks(blocks))
    assert [(c.text, c.page, c.headings) for c in chunks] == [
        ("Short one.\nShort two.", None, ("Battery",)),
        ("Plug it in.", None, ("Battery", "Charging")),
        ("Page two text.", 2, ("Battery", "Charging")),
    ]
    assert chunks[1].indexed_text("manual.md") == "manual.md > Battery > Charging: Plug it in."
    assert [c.ordinal for c in chunks] == [0, 1, 2]


def test_paragraphs_gather_up_to_the_target_and_no_chunk_exceeds_the_limit() -> None:
    sentence = "The keeper climbed the stairs at dusk and lit the lamp for the night. "
    blocks = [para(sentence * 3) for _ in range(12)] + [para(sentence * 40)]
    chunks = list(chunk_blocks(blocks))
    assert all(len(c.text) <= MAX_CHARS for c in chunks)
    assert all(len(c.text) <= TARGET_CHARS + 250 for c in chunks[:-3])
    # Every word is kept, in order.
    joined = " ".join(" ".join(c.text.split()) for c in chunks)
    assert joined == " ".join(" ".join(b.text.split()) for b in blocks)
    # The long paragraph was cut at sentence ends.
    assert all(c.text.rstrip().endswith(".") for c in chunks)


def test_every_table_row_names_its_cells_by_the_header() -> None:
    header = "Model | Battery | Weight"
    rows = [
        Block("table_row", f"X{n}00 | {n * 1000} mAh | {n * 10} g", table_header=header)
        for n in range(1, 60)
    ]
    chunks = list(chunk_blocks(rows))
    assert len(chunks) > 2  # split, and whichever chunk a row lands in, it keeps the header
    lines = [line for c in chunks for line in c.text.splitlines()]
    assert len(lines) == 59
    assert lines[6] == "Model: X700; Battery: 7000 mAh; Weight: 70 g"
    # A row that does not match its header keeps both as they are; empty cells are left out.
    odd = [
        Block("table_row", "X1 | 1 mAh", table_header=header),
        Block("table_row", "X2 |  | 5 g", table_header=header),
    ]
    assert [c.text for c in chunk_blocks(odd)] == [f"{header}\nX1 | 1 mAh\nModel: X2; Weight: 5 g"]


def test_page_issues_are_reported_not_chunked() -> None:
    issues: list[PageIssue] = []
    items: list[Block | PageIssue] = [para("Text.", page=1), PageIssue(2, "needs_ocr")]
    items.append(para("More.", page=3))
    chunks = list(chunk_blocks(items, issues=issues))
    assert [c.page for c in chunks] == [1, 3]
    assert issues == [PageIssue(2, "needs_ocr")]


def test_dot_leaders_of_a_contents_page_become_one_ellipsis() -> None:
    blocks = [
        para("1.1 Legalese . . . . . . . . . . . . . 1 1.2 Obtaining R . . . . . . . . 3", page=2),
        para("absolute_tolerance.................43, 45 and an ellipsis... kept", page=2),
    ]
    (chunk,) = chunk_blocks(blocks)
    assert chunk.text == (
        "1.1 Legalese … 1 1.2 Obtaining R … 3\nabsolute_tolerance … 43, 45 and an ellipsis... kept"
    )
