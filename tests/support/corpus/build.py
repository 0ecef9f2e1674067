"""The labelled evaluation corpus for document Q&A: a small, deterministic collection of documents
about one fictional world (Fenwick Loom Ltd, maker of Aerolux vacuums and the Loomlink app, in
the town of Harrowgate Vale), in all five formats the readers take.

    from tests.support.corpus.build import build_corpus
    build_corpus(tmp_path / "docs")

Questions about it live in questions.json beside this file, a list of
{"id", "question", "answers": [{"file", "page"}], "format", "kind", "evidence"}: `page` is 1-based
for PDFs and null otherwise; `format` is that of the first answer (null when there is none);
`kind` is fact, table, distractor (near-duplicate documents differ on the answer), deep (far
into a long document) or unanswerable (no answers, no evidence); `evidence` is a verbatim
snippet found, whitespace aside, at every listed location and nowhere else in the corpus.

The corpus holds near-duplicates on purpose (two manuals, two travel policies, two releases'
notes, draft and approved minutes, two council meetings), and one PDF page that is only an
image of text (SCANNED_PAGES), whose facts are not expected to be found without OCR."""

from __future__ import annotations

import io
import random
import zipfile
from datetime import datetime
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

from docx import Document
from docx.shared import Pt
from PIL import Image as PILImage
from PIL import ImageDraw, ImageFont
from reportlab.lib import colors
from reportlab.lib.enums import TA_LEFT
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import (
    Flowable,
    Image,
    ListFlowable,
    ListItem,
    PageBreak,
    Paragraph,
    SimpleDocTemplate,
    Spacer,
    TableStyle,
)
from reportlab.platypus import Table as RLTable

from .blocks import Block, Bullets, DocxDoc, H, P, PdfDoc, Scan, Table
from .docx_docs import DOCXS
from .html_docs import HTML
from .md_docs import MARKDOWN
from .pdf_docs import PDFS
from .txt_docs import PLAINTEXT

QUESTIONS = Path(__file__).with_name("questions.json")

# PDF pages (1-based) that carry no text layer, only a picture of text.
SCANNED_PAGES: dict[str, list[int]] = {
    path: [n for n, page in enumerate(doc.pages, 1) if any(isinstance(b, Scan) for b in page)]
    for path, doc in PDFS.items()
    if any(isinstance(b, Scan) for page in doc.pages for b in page)
}

# Every file build_corpus writes, relative to its folder.
FILES: list[str] = sorted([*PDFS, *DOCXS, *MARKDOWN, *PLAINTEXT, *HTML])

_FIXED_TIME = datetime(2024, 9, 1, 9, 0, 0)


def build_corpus(folder: Path) -> None:
    """Write the whole corpus into `folder` (created if needed); same bytes on every call."""
    for rel, pdf in PDFS.items():
        _write_pdf(_target(folder, rel), pdf)
    for rel, docx in DOCXS.items():
        _write_docx(_target(folder, rel), docx)
    for rel, text in {**MARKDOWN, **PLAINTEXT, **HTML}.items():
        _target(folder, rel).write_text(text, encoding="utf-8", newline="\n")


def _target(folder: Path, rel: str) -> Path:
    path = folder / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


# --------------------------------------------------------------------------------------------
# PDF

_BODY = ParagraphStyle(
    "Body", fontName="Helvetica", fontSize=10, leading=13.5, spaceAfter=6, alignment=TA_LEFT
)
_H1 = ParagraphStyle("H1", fontName="Helvetica-Bold", fontSize=15, leading=19, spaceAfter=8)
_H2 = ParagraphStyle(
    "H2", fontName="Helvetica-Bold", fontSize=11.5, leading=15, spaceBefore=6, spaceAfter=4
)
_CELL = ParagraphStyle("Cell", parent=_BODY, spaceAfter=0)


def _write_pdf(path: Path, pdf: PdfDoc) -> None:
    story: list[Flowable] = []
    scanned: set[int] = set()
    for number, page in enumerate(pdf.pages, 1):
        if number > 1:
            story.append(PageBreak())
        for block in page:
            if isinstance(block, Scan):
                scanned.add(number)
            story.extend(_pdf_flowables(block))

    def decorate(canvas: Canvas, _doc: Any) -> None:
        number = canvas.getPageNumber()
        if number in scanned:  # a scan is the whole page: no running footer either
            return
        canvas.saveState()
        canvas.setFont("Helvetica", 8)
        canvas.setFillColor(colors.grey)
        canvas.drawString(20 * mm, 12 * mm, pdf.title)
        canvas.drawRightString(190 * mm, 12 * mm, f"Page {number} of {len(pdf.pages)}")
        canvas.restoreState()

    doc = SimpleDocTemplate(
        str(path),
        pagesize=A4,
        leftMargin=20 * mm,
        rightMargin=20 * mm,
        topMargin=20 * mm,
        bottomMargin=22 * mm,
        title=pdf.title,
        author=pdf.author,
        creator="Fenwick Loom document system",
        invariant=True,
    )
    doc.build(story, onFirstPage=decorate, onLaterPages=decorate)


def _pdf_flowables(block: Block) -> list[Flowable]:
    if isinstance(block, H):
        return [Paragraph(escape(block.text), _H1 if block.level == 1 else _H2)]
    if isinstance(block, P):
        return [Paragraph(escape(block.text), _BODY)]
    if isinstance(block, Bullets):
        items = [ListItem(Paragraph(escape(item), _CELL), leftIndent=12) for item in block.items]
        return [ListFlowable(items, bulletType="bullet", start="•", leftIndent=12), Spacer(1, 6)]
    if isinstance(block, Table):
        rows = [[Paragraph(escape(cell), _CELL) for cell in row] for row in block.rows]
        table = RLTable(rows, hAlign="LEFT")
        table.setStyle(
            TableStyle(
                [
                    ("GRID", (0, 0), (-1, -1), 0.5, colors.grey),
                    ("BACKGROUND", (0, 0), (-1, 0), colors.lightgrey),
                    ("VALIGN", (0, 0), (-1, -1), "TOP"),
                ]
            )
        )
        return [table, Spacer(1, 8)]
    png = _scan_png(block.lines)
    width = 170 * mm
    return [Image(io.BytesIO(png), width=width, height=width * 1600 / 1240)]


def _scan_png(lines: list[str]) -> bytes:
    """A greyish, slightly skewed, speckled picture of typed text, like a photocopied page."""
    image = PILImage.new("L", (1240, 1600), 246)
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=34)
    y = 160
    for line in lines:
        draw.text((130, y), line, fill=40, font=font)
        y += 58
    rng = random.Random(1987)
    for _ in range(2500):
        x, y = rng.randrange(1240), rng.randrange(1600)
        draw.point((x, y), fill=rng.randrange(150, 220))
    image = image.rotate(0.7, resample=PILImage.Resampling.BICUBIC, fillcolor=246)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=False)
    return out.getvalue()


# --------------------------------------------------------------------------------------------
# DOCX


def _write_docx(path: Path, spec: DocxDoc) -> None:
    doc = Document()
    props = doc.core_properties
    props.title = spec.title
    props.author = spec.author
    props.last_modified_by = spec.author
    props.created = _FIXED_TIME
    props.modified = _FIXED_TIME
    props.revision = 1
    doc.styles["Normal"].font.size = Pt(11)
    doc.add_heading(spec.title, level=0)
    for block in spec.blocks:
        if isinstance(block, H):
            doc.add_heading(block.text, level=block.level)
        elif isinstance(block, P):
            doc.add_paragraph(block.text)
        elif isinstance(block, Bullets):
            for item in block.items:
                doc.add_paragraph(item, style="List Bullet")
        elif isinstance(block, Table):
            table = doc.add_table(rows=len(block.rows), cols=len(block.rows[0]))
            table.style = "Table Grid"
            for r, row in enumerate(block.rows):
                for c, text in enumerate(row):
                    cell = table.cell(r, c)
                    cell.text = text
                    if r == 0:
                        for run in cell.paragraphs[0].runs:
                            run.bold = True
        else:
            raise ValueError("scanned pages exist only in PDFs")
    raw = io.BytesIO()
    doc.save(raw)
    path.write_bytes(_stable_zip(raw.getvalue()))


def _stable_zip(data: bytes) -> bytes:
    """The same archive with fixed member timestamps, so the bytes do not depend on the clock."""
    out = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(data)) as src,
        zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst,
    ):
        for info in src.infolist():
            member = zipfile.ZipInfo(info.filename, date_time=_FIXED_TIME.timetuple()[:6])
            member.compress_type = zipfile.ZIP_DEFLATED
            dst.writestr(member, src.read(info.filename))
    return out.getvalue()
