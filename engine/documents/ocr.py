"""Reading a scanned PDF page: PDFium renders it, RapidOCR (PaddleOCR's detection and
recognition models, run by ONNX Runtime) finds its lines of text, and they are put back in
reading order, as paragraphs.

It is optional (Cove's ``ocr`` extra) and off by default: it costs seconds a page, and a scan's
text is only as good as the scan. A page it finds nothing on stays "needs OCR".
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engine.errors import OcrUnavailable

RENDER_DPI = 300  # measured (bench/bench_ocr.py): at 150 and 200 dpi whole lines were lost
MIN_CONFIDENCE = 0.5  # recognised text below this is noise (specks, stamps)
PARAGRAPH_GAP = 1.6  # a gap this many line heights parts two paragraphs


@dataclass(frozen=True, slots=True)
class OcrLine:
    text: str
    left: float
    top: float
    bottom: float
    confidence: float


def ocr_installed() -> bool:
    """Whether the OCR engine is installed (found, not loaded)."""
    import importlib.util

    return importlib.util.find_spec("rapidocr_onnxruntime") is not None


def require_ocr() -> None:
    """Raise ``OcrUnavailable`` unless the OCR engine is installed."""
    if not ocr_installed():
        raise OcrUnavailable(
            "Reading scanned pages needs Cove's OCR extra: pip install 'cove[ocr]'"
        )


class PageOcr:
    """One OCR engine (its models load once), reading pages of open PDFium documents."""

    def __init__(self, on_page: Callable[[int], None] | None = None) -> None:
        try:
            from rapidocr_onnxruntime import RapidOCR
        except ImportError as exc:
            raise OcrUnavailable(
                f"Reading scanned pages needs Cove's OCR extra ({exc}): pip install 'cove[ocr]'"
            ) from None
        self._engine: Any = RapidOCR()
        self.on_page = on_page

    def read(self, document: Any, index: int) -> list[str]:
        """The paragraphs of page ``index`` (0-based) of a pypdfium2 document."""
        if self.on_page is not None:
            self.on_page(index + 1)
        page = document[index]
        try:
            bitmap = page.render(scale=RENDER_DPI / 72)
            try:
                image = bitmap.to_numpy()
            finally:
                bitmap.close()
        finally:
            page.close()
        if image.ndim == 3 and image.shape[2] == 4:  # BGRA: drop the alpha channel
            image = image[:, :, :3]
        found, _timings = self._engine(image)
        return paragraphs(_lines(found or []))


def _lines(found: list[Any]) -> list[OcrLine]:
    lines = []
    for box, text, score in found:
        confidence = float(score)
        if not str(text).strip() or confidence < MIN_CONFIDENCE:
            continue
        xs = [float(p[0]) for p in box]
        ys = [float(p[1]) for p in box]
        lines.append(OcrLine(str(text).strip(), min(xs), min(ys), max(ys), confidence))
    return lines


def paragraphs(boxes: list[OcrLine]) -> list[str]:
    """Text boxes in reading order: boxes on one line (their vertical middles within half a
    line of each other) left to right, lines top to bottom, a paragraph break at a wide gap."""
    if not boxes:
        return []
    height = statistics.median(b.bottom - b.top for b in boxes) or 1.0
    rows: list[list[OcrLine]] = []
    for box in sorted(boxes, key=lambda b: (b.top + b.bottom) / 2):
        middle = (box.top + box.bottom) / 2
        if rows and abs(middle - _middle(rows[-1])) <= height / 2:
            rows[-1].append(box)
        else:
            rows.append([box])
    out: list[str] = []
    current: list[str] = []
    previous_bottom: float | None = None
    for row in rows:
        row.sort(key=lambda b: b.left)
        top = min(b.top for b in row)
        if previous_bottom is not None and top - previous_bottom > (PARAGRAPH_GAP - 1) * height:
            out.append(" ".join(current))
            current = []
        current.append(" ".join(b.text for b in row))
        previous_bottom = max(b.bottom for b in row)
    if current:
        out.append(" ".join(current))
    return out


def _middle(row: list[OcrLine]) -> float:
    return statistics.fmean((b.top + b.bottom) / 2 for b in row)
