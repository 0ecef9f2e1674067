"""A small folder for end-to-end answers: a two-page harbour guide (PDF) and a note on
moorings (Markdown); the ferry's departure is on the guide's second page."""

from __future__ import annotations

from pathlib import Path

from tests.support.pdf_files import write_pdf


def harbour_folder(root: Path) -> Path:
    docs = root / "Harbour"
    docs.mkdir(parents=True)
    write_pdf(
        docs / "harbour_guide.pdf",
        [
            [
                "Welcome to Saltmarsh Harbour.",
                "The visitor centre on the north quay is open from April to October.",
                "Parking is free for the first two hours on the harbour car park.",
            ],
            [
                "Boats and ferries.",
                "The ferry to Gull Island leaves from pier 3 at a quarter past nine every",
                "morning and returns at five in the afternoon. Tickets are sold on board.",
            ],
        ],
    )
    (docs / "moorings.md").write_text(
        "# Moorings\n\nVisiting yachts moor on the pontoon by the fuel berth. A night on the "
        "pontoon costs £2.50 per metre of the boat's length.\n",
        encoding="utf-8",
    )
    return docs
