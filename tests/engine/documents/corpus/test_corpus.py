"""The evaluation corpus keeps its labels honest: every answer's evidence is found, verbatim, at
each labelled file and page and nowhere else, the scanned page really has no text, the question
set has the promised spread, and the build is deterministic."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import docx
import pypdfium2 as pdfium
import pytest

from tests.support.corpus.build import FILES, QUESTIONS, SCANNED_PAGES, build_corpus

FORMATS = {"pdf", "docx", "md", "txt", "html"}
KINDS = {"fact", "table", "distractor", "deep", "unanswerable"}

Location = tuple[str, int | None]


def _norm(text: str) -> str:
    return " ".join(text.split())


def _pdf_pages(path: Path) -> list[str]:
    pdf = pdfium.PdfDocument(path)
    try:
        return [pdf[i].get_textpage().get_text_range() for i in range(len(pdf))]
    finally:
        pdf.close()


def _docx_text(path: Path) -> str:
    document = docx.Document(str(path))
    parts = [p.text for p in document.paragraphs]
    for table in document.tables:
        for row in table.rows:
            parts.extend(cell.text for cell in row.cells)
    return "\n".join(parts)


def _extract(folder: Path) -> dict[Location, str]:
    """Every unit an answer can point at: one per PDF page, one per other file."""
    units: dict[Location, str] = {}
    for rel in FILES:
        path = folder / rel
        if rel.endswith(".pdf"):
            for number, text in enumerate(_pdf_pages(path), 1):
                units[(rel, number)] = _norm(text)
        elif rel.endswith(".docx"):
            units[(rel, None)] = _norm(_docx_text(path))
        else:
            units[(rel, None)] = _norm(path.read_text(encoding="utf-8"))
    return units


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("corpus")
    build_corpus(folder)
    return folder


@pytest.fixture(scope="module")
def units(corpus: Path) -> dict[Location, str]:
    return _extract(corpus)


@pytest.fixture(scope="module")
def questions() -> list[dict[str, Any]]:
    loaded: list[dict[str, Any]] = json.loads(QUESTIONS.read_text(encoding="utf-8"))
    return loaded


def test_corpus_has_every_format_in_subfolders(corpus: Path) -> None:
    written = sorted(p.relative_to(corpus).as_posix() for p in corpus.rglob("*") if p.is_file())
    assert written == FILES
    assert 20 <= len(FILES) <= 25
    assert {rel.rsplit(".", 1)[1] for rel in FILES} == FORMATS
    assert len({rel.split("/")[0] for rel in FILES}) >= 4
    for rel in FILES:
        if rel.endswith(".pdf"):
            assert 3 <= len(_pdf_pages(corpus / rel)) <= 8, rel
        if rel.endswith(".html"):
            text = (corpus / rel).read_text(encoding="utf-8")
            assert "<script" in text and "<nav" in text, rel
        if rel.endswith(".docx"):
            style = docx.Document(str(corpus / rel)).paragraphs[0].style
            assert style is not None and style.name == "Title", rel


def test_scanned_page_has_no_text_layer(corpus: Path, units: dict[Location, str]) -> None:
    assert SCANNED_PAGES
    for rel, pages in SCANNED_PAGES.items():
        for number in pages:
            assert units[(rel, number)] == "", (rel, number)
    # what the scan says is nowhere in any extracted text
    assert not any("FLD-2291-C" in text or "Henrietta Vos" in text for text in units.values())


def test_questions_are_well_formed(questions: list[dict[str, Any]]) -> None:
    ids = [q["id"] for q in questions]
    assert len(ids) == len(set(ids))
    for q in questions:
        assert q["kind"] in KINDS, q["id"]
        assert q["question"].strip().endswith("?"), q["id"]
        if q["kind"] == "unanswerable":
            assert q["answers"] == [] and "evidence" not in q and q["format"] is None, q["id"]
            continue
        assert q["answers"] and q["evidence"].strip(), q["id"]
        assert q["format"] == q["answers"][0]["file"].rsplit(".", 1)[1], q["id"]
        for answer in q["answers"]:
            assert answer["file"] in FILES, q["id"]
            if answer["file"].endswith(".pdf"):
                assert isinstance(answer["page"], int) and answer["page"] >= 1, q["id"]
            else:
                assert answer["page"] is None, q["id"]


def test_question_spread(questions: list[dict[str, Any]]) -> None:
    answerable = [q for q in questions if q["kind"] != "unanswerable"]
    kinds = Counter(q["kind"] for q in questions)
    formats = Counter(q["format"] for q in answerable)
    assert len(answerable) >= 60
    assert kinds["distractor"] >= 15 and kinds["unanswerable"] >= 8
    assert kinds["table"] >= 5 and kinds["deep"] >= 5
    assert set(formats) == FORMATS and min(formats.values()) >= 8, formats
    assert len({q["question"] for q in questions}) == len(questions)


def test_evidence_is_exactly_where_the_labels_say(
    questions: list[dict[str, Any]], units: dict[Location, str]
) -> None:
    wrong: list[str] = []
    for q in questions:
        if q["kind"] == "unanswerable":
            continue
        evidence = _norm(q["evidence"])
        labelled = {(a["file"], a["page"]) for a in q["answers"]}
        found = {loc for loc, text in units.items() if evidence in text}
        if found != labelled:
            wrong.append(
                f"{q['id']} {evidence!r}: labelled {sorted(labelled, key=str)}, "
                f"found {sorted(found, key=str)}"
            )
    assert not wrong, "\n".join(wrong)


def test_question_wording_is_not_copied_from_the_evidence(questions: list[dict[str, Any]]) -> None:
    for q in questions:
        if "evidence" in q:
            assert _norm(q["evidence"]).lower() not in q["question"].lower(), q["id"]


def test_build_is_deterministic(corpus: Path, tmp_path: Path) -> None:
    build_corpus(tmp_path)
    for rel in FILES:
        assert (tmp_path / rel).read_bytes() == (corpus / rel).read_bytes(), rel
