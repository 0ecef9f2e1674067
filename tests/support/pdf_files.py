"""PDF files with a real text layer, for the tests of reading documents."""

from __future__ import annotations

from pathlib import Path


def write_pdf(path: Path, pages: list[list[str]], *, password: str | None = None) -> None:
    """One PDF page per entry, each line drawn as text (a real text layer)."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen.canvas import Canvas

    canvas = Canvas(str(path), pagesize=A4, encrypt=password)
    for lines in pages:
        y = 800
        for line in lines:
            if line:
                canvas.drawString(60, y, line)
            y -= 16
        canvas.showPage()
    canvas.save()
