"""Bad input gets a reason and never stops the rest: encrypted, truncated and empty PDFs, a
scanned page, a DOCX that is a zip bomb or not a zip, binary data named .txt, text in other
encodings, HTML with scripts, and a large text file read in bounded memory."""

from __future__ import annotations

import io
import tracemalloc
import zipfile
from pathlib import Path

import pytest

from engine.documents.blocks import Block, PageIssue
from engine.documents.readers import read_document
from engine.errors import DocumentError
from tests.engine.documents.document_blocks import blocks
from tests.support.pdf_files import write_pdf


def test_pdf_text_carries_its_page_and_a_scanned_page_needs_ocr(tmp_path: Path) -> None:
    from PIL import Image, ImageDraw
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.utils import ImageReader
    from reportlab.pdfgen.canvas import Canvas

    path = tmp_path / "mixed.pdf"
    canvas = Canvas(str(path), pagesize=A4)
    canvas.drawString(60, 800, "The harbour master keeps the tide tables in the blue ledger.")
    canvas.showPage()
    image = Image.new("RGB", (600, 200), "white")
    ImageDraw.Draw(image).text((20, 80), "Scanned: the lock opens at dawn.", fill="black")
    canvas.drawImage(ImageReader(image), 60, 500, width=480, height=160)
    canvas.showPage()
    canvas.drawString(60, 800, "Ferry tickets are sold at the kiosk beside the slipway.")
    canvas.showPage()
    canvas.save()
    items = list(read_document(path))
    text = {b.page: b.text for b in items if isinstance(b, Block)}
    assert "blue ledger" in text[1] and "kiosk" in text[3] and 2 not in text
    assert PageIssue(2, "needs_ocr") in items


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (lambda p: write_pdf(p, [["secret"]], password="hunter2"), "encrypted"),
        (lambda p: p.write_bytes(b""), "empty file"),
        (lambda p: p.write_bytes(b"%PDF-1.4\n1 0 obj\n<< /Type /Catalog"), "damaged"),
    ],
)
def test_bad_pdfs_are_refused_with_a_reason(make: object, reason: str, tmp_path: Path) -> None:
    path = tmp_path / "bad.pdf"
    make(path)  # type: ignore[operator]
    with pytest.raises(DocumentError, match=reason):
        list(read_document(path))


def test_a_truncated_pdf_is_refused(tmp_path: Path) -> None:
    whole = tmp_path / "whole.pdf"
    write_pdf(whole, [["one"], ["two"], ["three"]])
    cut = tmp_path / "cut.pdf"
    data = whole.read_bytes()
    cut.write_bytes(data[: len(data) // 2])
    try:
        found = blocks(cut)
    except DocumentError as exc:
        assert "PDF" in str(exc)
    else:  # PDFium may recover the pages it can reach; it must not invent any
        assert all(b.text in ("one", "two", "three") for b in found)


def test_docx_that_is_not_a_zip_or_is_a_zip_bomb(tmp_path: Path) -> None:
    fake = tmp_path / "fake.docx"
    fake.write_text("just text with a .docx name")
    with pytest.raises(DocumentError, match="not a zip"):
        list(read_document(fake))
    bomb = tmp_path / "bomb.docx"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("word/document.xml", b"\0" * (300 << 20))
    assert bomb.stat().st_size < 2 << 20
    with pytest.raises(DocumentError, match="zip bomb"):
        list(read_document(bomb))
    other = tmp_path / "other.docx"
    with zipfile.ZipFile(other, "w") as archive:
        archive.writestr("hello.txt", "hi")
    with pytest.raises(DocumentError, match="without a Word document"):
        list(read_document(other))


def test_docx_headings_lists_and_a_long_table_keep_their_structure(tmp_path: Path) -> None:
    import docx

    document = docx.Document()
    document.add_heading("Spare parts", level=1)
    document.add_paragraph("Order from the service desk.")
    document.add_paragraph("Quote the serial number", style="List Bullet")
    table = document.add_table(rows=31, cols=3)
    for r, row in enumerate(table.rows):
        for c, cell in enumerate(row.cells):
            cell.text = ("Part", "Code", "Price")[c] if r == 0 else f"p{r}c{c}"
    path = tmp_path / "parts.docx"
    document.save(str(path))
    found = blocks(path)
    assert (found[0].kind, found[0].text) == ("heading", "Spare parts")
    assert any(b.kind == "list_item" and "serial" in b.text for b in found)
    rows = [b for b in found if b.kind == "table_row"]
    assert len(rows) == 30
    assert all(b.table_header == "Part | Code | Price" for b in rows)
    assert all(b.headings == ("Spare parts",) for b in found[1:])


def test_text_encodings_and_binary_data(tmp_path: Path) -> None:
    (tmp_path / "cp.txt").write_bytes("Caf\u00e9 au lait costs \u20ac3.".encode("cp1252"))
    assert blocks(tmp_path / "cp.txt")[0].text == "Caf\u00e9 au lait costs \u20ac3."
    (tmp_path / "u16.txt").write_bytes("\ufeffM\u00fcnchen harbour".encode("utf-16-le"))
    assert blocks(tmp_path / "u16.txt")[0].text == "M\u00fcnchen harbour"
    (tmp_path / "bin.txt").write_bytes(bytes(range(256)) * 40)
    with pytest.raises(DocumentError, match="binary"):
        list(read_document(tmp_path / "bin.txt"))


def test_html_scripts_are_never_text(tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    page.write_text(
        "<html><head><title>T</title><script>alert('pwned')</script></head><body>"
        "<nav><a href='/'>Home</a></nav><h1>Tides</h1>"
        '<p onclick="steal()">High water at <b>06:12</b>.</p>'
        "<script>document.write('injected')</script>"
        "<table><tr><th>Day</th><th>High</th></tr><tr><td>Mon</td><td>06:12</td></tr></table>"
        "</body></html>",
        encoding="utf-8",
    )
    found = blocks(page)
    text = " ".join(b.text for b in found)
    assert "pwned" not in text and "injected" not in text and "steal" not in text
    assert "Home" not in text
    assert [(b.kind, b.text) for b in found] == [
        ("heading", "Tides"),
        ("paragraph", "High water at 06:12 ."),
        ("table_row", "Mon | 06:12"),
    ]


def test_a_large_text_file_is_read_in_bounded_memory(tmp_path: Path) -> None:
    """40 MB of text is streamed: the peak of Python allocations stays a small fraction of it."""
    path = tmp_path / "big.txt"
    paragraph = "The tide turned and the boats came home to the quay before dark.\n" * 6 + "\n"
    with path.open("w", encoding="utf-8") as f:
        buffer = io.StringIO()
        for _ in range(2000):
            buffer.write(paragraph)
        chunk = buffer.getvalue()
        while f.tell() < 40 << 20:
            f.write(chunk)
    tracemalloc.start()
    try:
        count = sum(1 for _ in read_document(path))
        _current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert count > 50_000
    assert peak < 4 << 20
