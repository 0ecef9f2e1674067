"""OCR accuracy and speed on a rendered page: a page of prose and a small table typeset as a
PDF, printed to an image at scan resolution (as a scanner would give it: a PDF holding only the
picture), read back by Cove's OCR; reported: character error rate and word accuracy against the
page's own text, and seconds per page, at several render resolutions. The baseline in the same
run is PDFium's text extraction from the typeset original (what the page would cost with a text
layer).

    python bench/bench_ocr.py [--json out.json] [--repeat 3]
"""

from __future__ import annotations

import argparse
import io
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

PROSE = [
    "Harbour Board minutes, 4 June 2024",
    "The board met at the harbour office at seven in the evening. Nine members attended and the",
    "chair opened the meeting by thanking the volunteers who repaired the north pontoon after the",
    "spring storms. The repairs cost 4,380 pounds, which is 620 pounds less than the estimate.",
    "The harbour master reported that 212 visiting yachts used the moorings in May, against 167 a",
    "year earlier. Fuel sales rose by eleven per cent. Two complaints were received about noise",
    "from the boatyard on Sunday mornings; the yard has agreed to start work after ten o'clock.",
    "The board approved the new mooring fees below, to take effect on the first of August.",
]
TABLE = [
    ["Berth", "Length", "Fee per night"],
    ["Pontoon A", "up to 8 m", "18.50"],
    ["Pontoon B", "8 to 12 m", "24.00"],
    ["Outer wall", "over 12 m", "31.75"],
]
SCAN_DPI = 300  # the picture in the scanned PDF, as an office scanner makes it
RENDER_DPIS = (150, 200, 300)  # what Cove renders the scanned page at before reading it


def truth() -> str:
    return " ".join([*PROSE, *(" ".join(row) for row in TABLE)])


def typeset(path: Path) -> None:
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen.canvas import Canvas

    canvas = Canvas(str(path), pagesize=A4)
    canvas.setFont("Helvetica-Bold", 14)
    canvas.drawString(60, 780, PROSE[0])
    canvas.setFont("Helvetica", 10.5)
    y = 750
    for line in PROSE[1:]:
        canvas.drawString(60, y, line)
        y -= 15
    y -= 15
    for row in TABLE:
        for x, cell in zip((60, 220, 380), row, strict=True):
            canvas.drawString(x, y, cell)
        y -= 16
    canvas.showPage()
    canvas.save()


def scanned(original: Path, path: Path) -> None:
    """``original`` printed to a greyscale picture and put in a PDF of its own."""
    import pypdfium2 as pdfium
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.utils import ImageReader
    from reportlab.pdfgen.canvas import Canvas

    document = pdfium.PdfDocument(str(original))
    image = document[0].render(scale=SCAN_DPI / 72, grayscale=True).to_pil()
    document.close()
    png = io.BytesIO()
    image.save(png, format="PNG")
    canvas = Canvas(str(path), pagesize=A4)
    canvas.drawImage(ImageReader(io.BytesIO(png.getvalue())), 0, 0, *A4)
    canvas.showPage()
    canvas.save()


def distance(a: list[str] | str, b: list[str] | str) -> int:
    """Levenshtein distance (insertions, deletions, substitutions), over characters or words."""
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        current = [i]
        for j, y in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x != y)))
        previous = current
    return previous[-1]


def normal(text: str) -> str:
    return " ".join(text.split())


def measure(repeat: int) -> dict[str, Any]:
    import pypdfium2 as pdfium

    from engine.documents import ocr as ocr_module
    from engine.documents.ocr import PageOcr

    expected = normal(truth())
    results: dict[str, Any] = {"scan_dpi": SCAN_DPI, "characters": len(expected), "runs": {}}
    with tempfile.TemporaryDirectory() as folder:
        original, scan = Path(folder) / "original.pdf", Path(folder) / "scan.pdf"
        typeset(original)
        scanned(original, scan)
        times = []
        for _ in range(repeat):
            document = pdfium.PdfDocument(str(original))
            started = time.perf_counter()
            page = document[0]
            textpage = page.get_textpage()
            textpage.get_text_range()
            textpage.close()
            page.close()
            times.append(time.perf_counter() - started)
            document.close()
        results["pdfium_text_s"] = statistics.median(times)
        reader = PageOcr()
        for dpi in RENDER_DPIS:
            ocr_module.RENDER_DPI = dpi
            times, text = [], ""
            for _ in range(repeat):
                document = pdfium.PdfDocument(str(scan))
                started = time.perf_counter()
                text = normal(" ".join(reader.read(document, 0)))
                times.append(time.perf_counter() - started)
                document.close()
            words_expected, words_read = expected.split(), text.split()
            results["runs"][str(dpi)] = {
                "seconds_per_page": statistics.median(times),
                "character_error_rate": distance(text, expected) / len(expected),
                "word_accuracy": 1 - distance(words_read, words_expected) / len(words_expected),
                "text": text,
            }
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    results = measure(args.repeat)
    print(f"PDFium text layer: {results['pdfium_text_s'] * 1000:.1f} ms a page")
    for dpi, run in results["runs"].items():
        print(
            f"OCR at {dpi} dpi: CER {run['character_error_rate']:.3%}, word accuracy "
            f"{run['word_accuracy']:.1%}, {run['seconds_per_page']:.2f} s a page"
        )
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
