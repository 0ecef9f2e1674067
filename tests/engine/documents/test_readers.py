"""The document readers on real files written here: PDFs (reportlab, and one by hand with a page
PDFium cannot load), Word documents (python-docx), Markdown, HTML and text in several encodings,
and files that must be refused with a reason. Large inputs are checked for bounded memory."""

from __future__ import annotations

import tracemalloc
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from engine.documents.blocks import Block, PageIssue
from engine.documents.readers import SUPPORTED_SUFFIXES, read_document
from engine.documents.readers.text import MAX_PARAGRAPH
from engine.errors import DocumentError, EngineError
from tests.engine.documents.document_blocks import blocks
from tests.support.pdf_files import write_pdf


def refused(path: Path) -> str:
    """The reason ``path`` cannot be read."""
    with pytest.raises(DocumentError) as caught:
        list(read_document(path))
    assert caught.value.code == "document_error" and isinstance(caught.value, EngineError)
    return str(caught.value)


# PDF


def test_pdf_blocks_carry_the_page_their_text_is_on(tmp_path: Path) -> None:
    path = tmp_path / "harbour.pdf"
    write_pdf(
        path,
        [
            ["The harbour master keeps the tide tables in the blue ledger by the door."],
            [
                "Mooring Fees",
                "Visiting boats pay at the kiosk beside the slipway before they tie up.",
                "",
                "",
                "Winter berths are let by the month from November to March each year.",
            ],
            ["Ferry tickets are sold on board and at the office on the quay all day."],
        ],
    )
    found = blocks(path)
    pages = {b.page for b in found}
    assert pages == {1, 2, 3}
    by_text = {b.text: b for b in found}
    assert by_text["Mooring Fees"].kind == "heading" and by_text["Mooring Fees"].page == 2
    slipway = next(b for b in found if "slipway" in b.text)
    assert slipway.page == 2 and slipway.headings == ("Mooring Fees",)
    assert next(b for b in found if "blue ledger" in b.text).page == 1
    assert next(b for b in found if "Ferry tickets" in b.text).page == 3


def test_pdf_pages_beyond_the_look_ahead_keep_their_numbers(tmp_path: Path) -> None:
    """More pages than are read ahead for running headers: every page still reports itself, and
    the running footer is dropped after the look-ahead as before it."""
    path = tmp_path / "long.pdf"
    boats = "Ada Bess Cora Dora Edna Faye Gwen Hope Iris June Kate Lena Mona Nora Opal Pearl"
    boats += " Queenie Rosa Sybil Tess"
    pages = [
        [f"Entry {n}: the {boat} went through the lock at dawn.", "", f"Logbook page {n}"]
        for n, boat in enumerate(boats.split(), 1)
    ]
    write_pdf(path, pages)
    found = blocks(path)
    assert [b.page for b in found] == list(range(1, 21))
    assert all(b.text.startswith(f"Entry {b.page}:") for b in found)
    assert not any("Logbook" in b.text for b in found)


def write_outlined_pdf(path: Path, bookmarks: bool) -> None:
    """A small manual: headings set larger than the text, a large word inside an example
    figure, a heading below the outline's depth, and, with ``bookmarks``, the PDF's outline
    naming the chapters and the section."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen.canvas import Canvas

    canvas = Canvas(str(path), pagesize=A4)
    body = "The kiosk beside the slipway takes cards and cash for visiting boats in season."
    charge = "Charge the handset overnight before its first trip out of the harbour."
    quick = "Twenty minutes on the dock charger give an hour of calls."
    dead = "A handset that will not switch on needs a fresh battery from the office."
    pages: list[tuple[list[tuple[str, int]], list[tuple[str, int]]]] = [
        ([("Handset Manual", 24), ("Second edition, for the harbour office.", 10)], []),
        ([("1 Getting Started", 18), (body, 10), (body, 10)], [("Getting Started", 0)]),
        (
            [
                ("Harbour Chart", 30),
                (body, 10),
                ("1.1 Charging the Battery", 14),
                (charge, 10),
                ("Quick Charging", 12),
                (quick, 10),
            ],
            [("Charging the Battery", 1)],
        ),
        ([(body, 10), ("2 Troubleshooting", 18), (dead, 10)], [("Troubleshooting", 0)]),
        ([("Spare batteries are kept in the drawer under the counter all year.", 10)], []),
        # The outline words a chapter otherwise than its page does.
        (
            [("3 Looking After the Handset", 18), ("Keep it dry and out of the sun.", 10)],
            [("Care and Storage", 0)],
        ),
    ]
    for number, (lines, marks) in enumerate(pages, 1):
        canvas.bookmarkPage(f"p{number}")
        for title, level in marks if bookmarks else []:
            canvas.addOutlineEntry(title, f"p{number}", level=level)
        y = 800
        for text, size in lines:
            canvas.setFont("Helvetica", size)
            canvas.drawString(60, y, text)
            y -= size * 2
        canvas.showPage()
    canvas.save()


def test_a_pdfs_bookmarks_tell_its_headings_from_a_figures_large_words(tmp_path: Path) -> None:
    path = tmp_path / "handset.pdf"
    write_outlined_pdf(path, bookmarks=True)
    found = blocks(path)
    heads = [(b.text, b.level) for b in found if b.kind == "heading"]
    # The title before the first bookmark stays over every chapter.
    title, first, section = (
        ("Handset Manual", 1),
        ("1 Getting Started", 2),
        ("1.1 Charging the Battery", 3),
    )
    care = ("3 Looking After the Handset", 2)
    assert heads == [title, first, section, ("Quick Charging", 4), ("2 Troubleshooting", 2), care]
    overnight = next(b for b in found if "overnight" in b.text)
    assert overnight.headings == ("Handset Manual", "1 Getting Started", "1.1 Charging the Battery")
    chart = next(b for b in found if "Harbour Chart" in b.text)
    assert chart.kind == "paragraph" and chart.headings == ("Handset Manual", "1 Getting Started")
    for text in ("fresh battery", "Spare batteries"):
        found_in = next(b for b in found if text in b.text).headings
        assert found_in == ("Handset Manual", "2 Troubleshooting")
    dry = next(b for b in found if "Keep it dry" in b.text)
    assert dry.headings == ("Handset Manual", "3 Looking After the Handset")
    assert not any("Harbour Chart" in " ".join(b.headings) for b in found)

    # Without the outline the sizes alone decide, and the figure's word stands over the section.
    write_outlined_pdf(path, bookmarks=False)
    sized = blocks(path)
    overnight = next(b for b in sized if "overnight" in b.text)
    assert "Harbour Chart" in overnight.headings


def test_a_page_that_is_only_an_image_needs_ocr(tmp_path: Path) -> None:
    from PIL import Image, ImageDraw
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.utils import ImageReader
    from reportlab.pdfgen.canvas import Canvas

    path = tmp_path / "scanned.pdf"
    canvas = Canvas(str(path), pagesize=A4)
    canvas.drawString(60, 800, "A typed page about the swing bridge and its opening hours.")
    canvas.showPage()
    image = Image.new("RGB", (800, 300), "white")
    ImageDraw.Draw(image).text((20, 120), "Scanned: the bridge opens at dawn.", fill="black")
    canvas.drawImage(ImageReader(image), 60, 500, width=480, height=180)
    canvas.drawString(300, 40, "2")  # a page number is not a text layer
    canvas.showPage()
    canvas.drawString(60, 800, "Thank you!")  # short, but no image: text, not a scan
    canvas.showPage()
    canvas.save()
    items = list(read_document(path))
    assert PageIssue(2, "needs_ocr") in items
    assert not any(isinstance(i, Block) and i.page == 2 for i in items)
    assert [(b.page, b.text) for b in items if isinstance(b, Block) and b.page == 3] == [
        (3, "Thank you!")
    ]
    assert "dawn" not in " ".join(b.text for b in items if isinstance(b, Block))


def handwritten_pdf(objects: list[bytes]) -> bytes:
    """A PDF with the given objects (numbered from 1, the first the catalog) and a correct
    cross-reference table."""
    out, offsets = b"%PDF-1.4\n", []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return out


def test_a_page_that_cannot_be_loaded_is_reported_and_the_rest_are_read(tmp_path: Path) -> None:
    def page(contents: int) -> bytes:
        return (
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents %d 0 R"
            b" /Resources << /Font << /F1 3 0 R >> >> >>" % contents
        )

    def stream(text: bytes) -> bytes:
        content = b"BT /F1 12 Tf 72 700 Td (" + text + b") Tj ET"
        return b"<< /Length %d >>\nstream\n%s\nendstream" % (len(content), content)

    path = tmp_path / "broken_page.pdf"
    path.write_bytes(
        handwritten_pdf(
            [
                b"<< /Type /Catalog /Pages 2 0 R >>",
                # The second kid is an object the file does not have.
                b"<< /Type /Pages /Kids [4 0 R 99 0 R 6 0 R] /Count 3 >>",
                b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
                page(5),
                stream(b"The first page tells of the north pier and its lamp."),
                page(7),
                stream(b"The third page tells of the south pier and its bell."),
            ]
        )
    )
    assert list(read_document(path)) == [
        Block("paragraph", "The first page tells of the north pier and its lamp.", page=1),
        PageIssue(2, "unreadable"),
        Block("paragraph", "The third page tells of the south pier and its bell.", page=3),
    ]


def test_an_encrypted_pdf_needs_a_password(tmp_path: Path) -> None:
    path = tmp_path / "locked.pdf"
    write_pdf(path, [["The combination of the chart room safe."]], password="hunter2")
    assert refused(path) == "encrypted PDF (needs a password)"


def test_truncated_empty_and_fake_pdfs_are_refused(tmp_path: Path) -> None:
    whole = tmp_path / "whole.pdf"
    write_pdf(whole, [[f"Page {n} of the harbour guide."] for n in range(1, 6)])
    cut = tmp_path / "cut.pdf"
    data = whole.read_bytes()
    cut.write_bytes(data[: len(data) // 2])
    assert refused(cut) == "damaged or truncated PDF"
    empty = tmp_path / "empty.pdf"
    empty.write_bytes(b"")
    assert refused(empty) == "empty file"
    fake = tmp_path / "page.pdf"
    fake.write_text("<html><body>a web page saved with the wrong name</body></html>")
    assert refused(fake) == "not a PDF file (no PDF header)"


# DOCX


def test_docx_headings_lists_paragraphs_and_a_long_table(tmp_path: Path) -> None:
    import docx

    document = docx.Document()
    document.add_heading("Harbour handbook", level=0)  # the Title style
    document.add_heading("Spare parts", level=1)
    document.add_paragraph("Order parts from the service desk on the quay.")
    document.add_paragraph("Quote the serial number", style="List Bullet")
    document.add_paragraph("Give the berth number", style="List Number")
    document.add_heading("Price list", level=2)
    table = document.add_table(rows=31, cols=3)
    for r, row in enumerate(table.rows):
        for c, cell in enumerate(row.cells):
            cell.text = ("Part", "Code", "Price")[c] if r == 0 else f"part {r} col {c}"
    document.add_heading("Opening hours", level=1)
    hours = document.add_table(rows=1, cols=2).rows[0].cells
    hours[0].text, hours[1].text = "Daily", "8-18"
    path = tmp_path / "handbook.docx"
    document.save(str(path))

    found = blocks(path)
    assert [(b.text, b.level, b.headings) for b in found if b.kind == "heading"] == [
        ("Harbour handbook", 1, ()),
        ("Spare parts", 1, ()),
        ("Price list", 2, ("Spare parts",)),
        ("Opening hours", 1, ()),
    ]
    paragraph = next(b for b in found if b.kind == "paragraph")
    assert paragraph.text.startswith("Order parts") and paragraph.headings == ("Spare parts",)
    assert [b.text for b in found if b.kind == "list_item"] == [
        "Quote the serial number",
        "Give the berth number",
    ]
    rows = [b for b in found if b.kind == "table_row" and b.headings[-1] == "Price list"]
    assert [b.text for b in rows] == [
        f"part {r} col 0 | part {r} col 1 | part {r} col 2" for r in range(1, 31)
    ]
    assert all(b.table_header == "Part | Code | Price" for b in rows)
    assert all(b.headings == ("Spare parts", "Price list") for b in rows)
    # A table of one row is not lost for want of a body.
    assert found[-1] == Block("table_row", "Daily | 8-18", headings=("Opening hours",))


def test_a_zip_bomb_named_docx_is_refused_before_it_inflates(tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.docx"
    zeros = b"\0" * (1 << 20)
    with (
        zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as archive,
        archive.open("word/document.xml", "w") as member,
    ):
        for _ in range(64):
            member.write(zeros)
    assert bomb.stat().st_size < 1 << 20  # 64 MB of zeros, packed more than 100 to 1
    assert refused(bomb).startswith("looks like a zip bomb")


def test_zips_and_files_that_are_not_docx_are_refused(tmp_path: Path) -> None:
    other = tmp_path / "photos.docx"
    with zipfile.ZipFile(other, "w") as archive:
        archive.writestr("holiday.txt", "not a Word document")
    assert refused(other) == "not a DOCX file (a zip archive without a Word document)"
    text = tmp_path / "notes.docx"
    text.write_text("plain text with a .docx name")
    assert refused(text) == "not a DOCX file (not a zip archive)"


# Markdown


def test_markdown_structure(tmp_path: Path) -> None:
    path = tmp_path / "guide.md"
    path.write_text(
        "---\ntitle: Front matter is skipped\n---\n"
        "# Harbour guide\n\n"
        "Read the `tide_table_2024` file and the [notice board](http://example.org).\n\n"
        "## Berths\n\n"
        "- Visitors use **pontoon C**\n"
        "- Residents use pontoon A\n\n"
        "| Berth | Length | Fee |\n|---|---|---|\n| C1 | 8 m | 20 |\n| C2 | 10 m | 25 |\n\n"
        "### Power\n\n"
        "```sh\nmeter --top-up 10\n```\n\n"
        "# Contacts\n\n"
        "| Harbour office only |\n|---|\n",
        encoding="utf-8",
    )
    found = blocks(path)
    assert "Front matter" not in " ".join(b.text for b in found)
    assert [(b.text, b.level, b.headings) for b in found if b.kind == "heading"] == [
        ("Harbour guide", 1, ()),
        ("Berths", 2, ("Harbour guide",)),
        ("Power", 3, ("Harbour guide", "Berths")),
        ("Contacts", 1, ()),
    ]
    assert found[1] == Block(
        "paragraph",
        "Read the tide_table_2024 file and the notice board.",
        headings=("Harbour guide",),
    )
    assert [b.text for b in found if b.kind == "list_item"] == [
        "Visitors use pontoon C",
        "Residents use pontoon A",
    ]
    rows = [b for b in found if b.kind == "table_row"]
    assert [(b.text, b.table_header) for b in rows] == [
        ("C1 | 8 m | 20", "Berth | Length | Fee"),
        ("C2 | 10 m | 25", "Berth | Length | Fee"),
        ("Harbour office only", None),
    ]
    code = next(b for b in found if b.kind == "code")
    assert code.text == "meter --top-up 10"
    assert code.headings == ("Harbour guide", "Berths", "Power")


# HTML


def test_html_scripts_styles_and_handlers_never_become_text(tmp_path: Path) -> None:
    path = tmp_path / "tides.html"
    path.write_text(
        "<!doctype html><html><head><title>Tides | Harbour</title>"
        "<style>body { color: red }</style><script>alert(1)</script>"
        "<body onload=\"fetch('http://evil.example')\">"  # the head is never closed
        "<h1>Tide times</h1>"
        "<p onclick=\"alert('clicked')\">High water at 06:12 and 18:40.</p>"
        "<script>alert(1)</script><noscript>Enable scripts</noscript>"
        "<template><p>hidden template</p></template><svg><text>vector words</text></svg>"
        "<iframe>framed words</iframe>"
        "<h2>Weekly</h2><table><tr><th>Day</th><th>High</th></tr>"
        "<tr><td>Mon</td><td>06:12</td></tr><tr><td>Tue</td><td>06:58</td></tr></table>"
        "<h2>Notes</h2><ul><li>Springs<ul><li>Extra high</li></ul></li></ul>"
        "<pre>  LAT  0.0 m\n  MHWS 4.9 m</pre>"
        "</body></html>",
        encoding="utf-8",
    )
    found = blocks(path)
    text = " ".join(b.text for b in found)
    for hidden in ("alert", "evil", "clicked", "color", "Enable", "template", "vector", "framed"):
        assert hidden not in text
    assert "Tides | Harbour" not in text  # an <h1> is there, so the title is not a heading
    assert [(b.kind, b.text, b.headings) for b in found] == [
        ("heading", "Tide times", ()),
        ("paragraph", "High water at 06:12 and 18:40.", ("Tide times",)),
        ("heading", "Weekly", ("Tide times",)),
        ("table_row", "Mon | 06:12", ("Tide times", "Weekly")),
        ("table_row", "Tue | 06:58", ("Tide times", "Weekly")),
        ("heading", "Notes", ("Tide times",)),
        ("list_item", "Springs", ("Tide times", "Notes")),
        ("list_item", "Extra high", ("Tide times", "Notes")),
        ("code", "  LAT  0.0 m\n  MHWS 4.9 m", ("Tide times", "Notes")),
    ]
    assert {b.table_header for b in found if b.kind == "table_row"} == {"Day | High"}


def test_an_html_page_without_h1_is_headed_by_its_title(tmp_path: Path) -> None:
    path = tmp_path / "fees.htm"
    path.write_text(
        "<title>Mooring fees</title><h2>Visitors</h2><p>Twenty a night.</p>"
        "<table><tr><td>Night</td><td>20</td></tr><tr><td>Week</td><td>120</td></tr></table>"
    )
    found = blocks(path)
    assert found[0] == Block("heading", "Mooring fees", level=1)
    assert found[2] == Block("paragraph", "Twenty a night.", headings=("Mooring fees", "Visitors"))
    assert found[3:] == [
        Block(
            "table_row",
            "Week | 120",
            headings=("Mooring fees", "Visitors"),
            table_header="Night | 20",
        )
    ]


def test_deeply_nested_html_is_read_as_text(tmp_path: Path) -> None:
    path = tmp_path / "deep.html"
    path.write_text("<div>" * 3000 + "<p>The bottom of the well.</p>" + "</div>" * 3000)
    assert [b.text for b in blocks(path)] == ["The bottom of the well."]


def test_a_large_html_file_streams_without_its_scripts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from engine.documents.readers import html

    monkeypatch.setattr(html, "MAX_PARSE_BYTES", 1024)
    monkeypatch.setattr(html, "READ_BYTES", 100)  # tags and entities cut across reads
    path = tmp_path / "archive.html"
    row = (
        "<div><p>Notice {n}: the quay is closed &amp; fenced.</p><script>alert({n})</script></div>"
    )
    path.write_text(
        "<html><head><title>Archive</title><style>p { x: y }</style></head><body>"
        + "".join(row.format(n=n) for n in range(200))
        + "</body></html>"
    )
    found = blocks(path)
    assert [b.text for b in found] == [
        f"Notice {n}: the quay is closed & fenced." for n in range(200)
    ]


# Text


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("utf8.txt", "Caf\u00e9 cr\u00e8me on the quay \u2013 \u20ac3.".encode()),
        ("bom8.txt", "\ufeffCaf\u00e9 cr\u00e8me on the quay \u2013 \u20ac3.".encode()),
        ("le.txt", "\ufeffCaf\u00e9 cr\u00e8me on the quay \u2013 \u20ac3.".encode("utf-16-le")),
        ("be.text", "\ufeffCaf\u00e9 cr\u00e8me on the quay \u2013 \u20ac3.".encode("utf-16-be")),
        ("cp.txt", "Caf\u00e9 cr\u00e8me on the quay \u2013 \u20ac3.".encode("cp1252")),
        ("README", "Caf\u00e9 cr\u00e8me on the quay \u2013 \u20ac3.".encode()),
        ("notes.log", "Caf\u00e9 cr\u00e8me on the quay \u2013 \u20ac3.".encode()),
    ],
)
def test_text_encodings(name: str, data: bytes, tmp_path: Path) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    assert [b.text for b in blocks(path)] == ["Caf\u00e9 cr\u00e8me on the quay \u2013 \u20ac3."]


def test_undecodable_bytes_are_replaced_never_fatal(tmp_path: Path) -> None:
    path = tmp_path / "mixed.txt"
    path.write_bytes(b"Plain start. " * 100 + b"then \x81\x8d\x8f\x90 bytes cp1252 lacks")
    (block,) = blocks(path)
    assert block.text.endswith("then \ufffd\ufffd\ufffd\ufffd bytes cp1252 lacks")


@pytest.mark.parametrize(
    ("name", "make"),
    [
        ("image.txt", lambda: bytes(range(256)) * 64),
        ("nul.txt", lambda: b"looks like text\x00but is not" * 10),
        ("photo.png", lambda: b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8),
    ],
)
def test_binary_data_is_not_text(name: str, make: Callable[[], bytes], tmp_path: Path) -> None:
    path = tmp_path / name
    path.write_bytes(make())
    assert refused(path) == "binary data, not text"


def test_a_missing_file_is_refused(tmp_path: Path) -> None:
    assert "No such file" in refused(tmp_path / "gone.txt")


def test_text_paragraphs_headings_and_long_paragraphs_in_pieces(tmp_path: Path) -> None:
    sentence = "The pilot boards outbound ships at the fairway buoy in all weathers. "
    long_paragraph = "\n".join([sentence * 3] * 40)  # about 8,300 characters over 40 lines
    path = tmp_path / "pilots.txt"
    path.write_text(f"PILOTAGE\n\nFirst paragraph\nwraps here.\n\n\n{long_paragraph}\n\nLast.\n")
    found = blocks(path)
    assert found[0] == Block("heading", "PILOTAGE", level=1)
    assert found[1] == Block("paragraph", "First paragraph wraps here.", headings=("PILOTAGE",))
    assert found[-1].text == "Last."
    pieces = found[2:-1]
    assert len(pieces) == 3
    assert all(len(b.text) <= MAX_PARAGRAPH and b.text.endswith("weathers.") for b in pieces)
    assert " ".join(b.text for b in pieces) == " ".join(long_paragraph.split())


def traced_peak(path: Path) -> tuple[int, int]:
    """(blocks, peak bytes of Python allocations) reading ``path``."""
    tracemalloc.start()
    try:
        count = sum(1 for _ in read_document(path))
        _current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return count, peak


def write_repeated(path: Path, unit: str, size: int) -> None:
    block = unit * max(1, (1 << 20) // len(unit))
    with path.open("w", encoding="utf-8") as f:
        while f.tell() < size:
            f.write(block)


@pytest.mark.parametrize(
    "unit",
    [
        "The tide turned and the boats came home to the quay before dark.\n" * 5 + "\n",
        "One endless line without a break, the way some exports are. ",
    ],
    ids=["paragraphs", "one-line"],
)
def test_text_streams_in_memory_that_does_not_grow_with_the_file(unit: str, tmp_path: Path) -> None:
    small, large = tmp_path / "small.txt", tmp_path / "large.txt"
    write_repeated(small, unit, 2 << 20)
    write_repeated(large, unit, 32 << 20)
    small_count, small_peak = traced_peak(small)
    large_count, large_peak = traced_peak(large)
    scale = large.stat().st_size / small.stat().st_size
    assert large_count > 0.9 * scale * small_count  # all of it was read
    # Sixteen times the text, about the same memory: nothing holds more than a window of it.
    assert large_peak < 2 * small_peak + (256 << 10)
    assert large_peak < (32 << 20) // 16


def test_every_supported_suffix_has_a_reader(tmp_path: Path) -> None:
    contents = {
        ".md": "# T\n\nbody text\n",
        ".markdown": "# T\n\nbody text\n",
        ".html": "<h1>T</h1><p>body text</p>",
        ".htm": "<h1>T</h1><p>body text</p>",
        ".txt": "T\n\nbody text\n",
        ".text": "T\n\nbody text\n",
    }
    assert set(contents) | {".pdf", ".docx"} == SUPPORTED_SUFFIXES
    for suffix, content in contents.items():
        path = tmp_path / f"doc{suffix}"
        path.write_text(content)
        assert blocks(path)[-1].text == "body text", suffix


def test_a_pdf_table_is_read_as_rows_under_its_header(tmp_path: Path) -> None:
    """Cells set apart on a line (text boxes with wide gaps between them) are a table's row;
    headings come from the font sizes, a wrapped heading is one, and a numbered one is no list."""
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.platypus import Paragraph, SimpleDocTemplate, Table

    body = ParagraphStyle("Body", fontName="Helvetica", fontSize=10, leading=13)
    title = ParagraphStyle(
        "Title", fontName="Helvetica-Bold", fontSize=16, leading=20, spaceBefore=4, spaceAfter=6
    )
    path = tmp_path / "tides.pdf"
    SimpleDocTemplate(str(path), pagesize=A4).build(
        [
            Paragraph(
                "Tide tables for the harbour approaches, the outer moorings and the channel "
                "past the breakwater",
                title,
            ),
            Paragraph("3. Spring tides", title),
            Paragraph("Heights are given in metres above chart datum for each berth.", body),
            Table(
                [["Berth", "High water", "Low water"], ["C1", "4.2", "0.6"], ["C2", "4.4", "0.7"]],
                colWidths=[120, 120, 120],
            ),
            Paragraph("Tides run an hour later on the east side of the breakwater.", body),
        ]
    )
    blocks = [b for b in read_document(path) if isinstance(b, Block)]
    headings = [b for b in blocks if b.kind == "heading"]
    assert [h.text for h in headings] == [
        "Tide tables for the harbour approaches, the outer moorings and the channel past the "
        "breakwater",
        "3. Spring tides",
    ]
    rows = [b for b in blocks if b.kind == "table_row"]
    assert [(r.text, r.table_header, r.page) for r in rows] == [
        ("C1 | 4.2 | 0.6", "Berth | High water | Low water", 1),
        ("C2 | 4.4 | 0.7", "Berth | High water | Low water", 1),
    ]
    assert rows[0].headings == ("3. Spring tides",)
    after = blocks[-1]
    assert after.kind == "paragraph" and after.text.startswith("Tides run an hour later")


def test_a_chapters_own_and_alternating_running_heads_are_dropped(tmp_path: Path) -> None:
    """Beyond the first pages, a head that only one chapter carries, and heads that alternate
    between left and right pages, are running heads too; the body lines stay."""
    path = tmp_path / "long.pdf"
    pages = []
    for number in range(1, 25):
        chapter = "Chapter 1. Getting Started" if number <= 14 else "Chapter 2. Harbour Rules"
        head = chapter if number % 2 else "Club Handbook, second edition"
        body = [
            f"{word} is what page {number} is about, beside the tide tables of the harbour."
            for word in ("Sailing", "Rowing", "Mooring", "Fishing", "Swimming", "Diving")
        ]
        pages.append([head, "", *body[number % 6 :], *body[: number % 6]])
    write_pdf(path, pages)
    texts = " ".join(b.text for b in blocks(path))
    assert "Harbour Rules" not in texts and "second edition" not in texts
    assert "Getting Started" not in texts
    for number in range(1, 25):
        assert f"page {number} is about" in texts
