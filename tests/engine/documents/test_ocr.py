"""Scanned PDF pages read by OCR (RapidOCR's ONNX models on ONNX Runtime), off by default: the
corpus's scanned declaration of conformity, indexed without OCR (the page needs OCR), then with
it (the page's text is found, on its page); a PDF of nothing but a scan; and a clear error when
the OCR extra is missing."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from engine.documents.index_db import IndexDB
from engine.documents.indexer import Indexer
from engine.documents.ocr import OcrLine, paragraphs
from engine.documents.retrieve import Retriever
from engine.errors import OcrUnavailable
from tests.support.corpus.build import build_corpus

pytest.importorskip("rapidocr_onnxruntime", reason="the OCR extra is not installed")


@pytest.fixture(scope="module")
def manual(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("corpus")
    build_corpus(root)
    return root / "products" / "aerolux_x200_manual.pdf"


def index(tmp_path: Path, paths: list[Path], *, ocr: bool) -> tuple[IndexDB, Indexer]:
    db = IndexDB(tmp_path / "index.sqlite3")
    collection = db.collection("c", create=True)
    assert collection is not None
    indexer = Indexer(db, collection, ocr=ocr)
    indexer.outcomes = indexer.add(paths)  # type: ignore[attr-defined]
    return db, indexer


def test_a_scanned_page_is_read_only_when_ocr_is_on(manual: Path, tmp_path: Path) -> None:
    db, indexer = index(tmp_path, [manual], ocr=False)
    (plain,) = indexer.outcomes  # type: ignore[attr-defined]
    assert plain.outcome == "indexed" and plain.ocr_pages == (6,) and plain.ocr_read == ()
    keyword = Retriever(db, indexer.collection)
    assert not [s for s in keyword.search("certificate number notified body", 5) if s.page == 6]

    # The same file with OCR on: read again (its hash is unchanged, its scan was not read).
    again = Indexer(db, indexer.collection, ocr=True)
    (read,) = again.add([manual])
    assert read.outcome == "indexed" and read.ocr_read == (6,) and read.ocr_pages == ()
    assert read.reason == "pages 6 read by OCR"
    found = Retriever(db, again.collection).search("certificate number notified body", 5)
    page6 = [s for s in found if s.page == 6]
    assert page6, [(s.page, s.text[:60]) for s in found]
    text = page6[0].text
    for words in ("Certificate number: FLD-2291-C", "Calder Test House", "3317", "Henrietta Vos"):
        assert words.lower() in text.lower(), text
    # And once read, not again.
    (unchanged,) = Indexer(db, again.collection, ocr=True).add([manual])
    assert unchanged.outcome == "unchanged"
    db.close()


def scan_only_pdf(path: Path) -> None:
    """A PDF of one page that is a picture of text (as a scanner makes them)."""
    from PIL import Image, ImageDraw, ImageFont
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.utils import ImageReader
    from reportlab.pdfgen.canvas import Canvas

    image = Image.new("L", (1240, 1754), 255)
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=36)
    lines = ["HARBOUR MASTER'S NOTICE", "", "The north pier is closed", "until 14 March 2025."]
    for n, line in enumerate(lines):
        draw.text((120, 160 + n * 60), line, fill=30, font=font)
    png = io.BytesIO()
    image.save(png, format="PNG")
    canvas = Canvas(str(path), pagesize=A4)
    canvas.drawImage(ImageReader(io.BytesIO(png.getvalue())), 0, 0, *A4)
    canvas.showPage()
    canvas.save()


def test_a_pdf_that_is_only_a_scan(tmp_path: Path) -> None:
    pdf = tmp_path / "notice.pdf"
    scan_only_pdf(pdf)
    db, indexer = index(tmp_path, [pdf], ocr=False)
    (outcome,) = indexer.outcomes  # type: ignore[attr-defined]
    assert outcome.outcome == "needs_ocr" and outcome.ocr_pages == (1,)
    (read,) = Indexer(db, indexer.collection, ocr=True).add([pdf])
    assert read.outcome == "indexed" and read.ocr_read == (1,)
    (chunk,) = [db.chunks_by_id([i])[i] for i, _s in db.keyword(indexer.collection, '"pier"', 5)]
    assert chunk.page == 1 and "north pier is closed" in chunk.text.lower()
    db.close()


def test_without_the_ocr_extra_the_error_says_how_to_get_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "rapidocr_onnxruntime" else real(name, *a),
    )
    db = IndexDB(tmp_path / "index.sqlite3")
    collection = db.collection("c", create=True)
    assert collection is not None
    with pytest.raises(OcrUnavailable, match=r"pip install 'cove\[ocr\]'"):
        Indexer(db, collection, ocr=True)
    db.close()


def test_text_boxes_are_put_in_reading_order() -> None:
    def box(text: str, left: float, top: float) -> OcrLine:
        return OcrLine(text, left, top, top + 20, 0.9)

    found = [
        box("second line", 10, 38),
        box("right", 300, 10),
        box("Left", 10, 12),  # the same line as "right", a little lower
        box("New paragraph", 10, 130),
    ]
    assert paragraphs(found) == ["Left right second line", "New paragraph"]
