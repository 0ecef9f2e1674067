"""The sources under an answer from documents: each numbered as the answer cites it, with its
file, page and heading, the passage itself, and a link that opens the file at that page.

Sources the answer cites come first, numbered 1, 2, 3 in the order the answer first cites them;
the rest were given to the model but not cited and follow. The model saw them numbered in the
order they were found, so the reply as shown has its citations renumbered to match
(``shown_text``); the stored reply keeps the model's own. The panel reads the reply's stored
metadata, so a reopened chat shows them again.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QLabel, QVBoxLayout

from app.common.i18n import tr
from app.common.theme import Colors
from engine.documents import cited, claims, matched, renumber, said_not_found, shown_numbers

EXCERPT_CHARS = 280


@dataclass(frozen=True, slots=True)
class CitedSource:
    number: int  # as shown: the cited ones first, in the order the answer first cites them
    given: int  # as the model saw it: [1] is the first source given to the model
    path: str
    page: int | None
    heading: str | None
    text: str
    cited: bool  # the answer cites it, or (when it cites none) holds what the answer says

    @property
    def where(self) -> str:
        where = Path(self.path).name
        if self.page is not None:
            where += " · " + tr("Sources", "page {page}").format(page=self.page)
        return where


def _raw_sources(meta: dict[str, Any]) -> list[dict[str, Any]] | None:
    documents = meta.get("documents")
    if not isinstance(documents, dict):
        return None
    return [s for s in documents.get("sources") or [] if isinstance(s, dict)]


def _supporting(answer: str, raw: list[dict[str, Any]]) -> tuple[list[int], str]:
    """The sources that support the answer, as the model numbered them, in the order they are
    shown; and how they were found: "cited", "matched" (the answer cites none, these hold what
    it says) or "" (none)."""
    first = cited(answer, len(raw))
    if first:
        return first, "cited"
    if answer.strip() and not said_not_found(answer):
        first = matched(answer, [str(s.get("text", "")) for s in raw])[:2]
        if first:
            return first, "matched"
    return [], ""


def shown_text(meta: dict[str, Any], answer: str) -> str:
    """The reply as a person reads it: its citations numbered as its sources panel numbers
    them. A reply without sources is as it is."""
    raw = _raw_sources(meta)
    if not raw:
        return answer
    first, _how = _supporting(answer, raw)
    return renumber(answer, shown_numbers(first, len(raw)))


def sources_of(meta: dict[str, Any], answer: str) -> tuple[list[CitedSource], str, bool]:
    """The reply's sources as shown: the ones that support it first, numbered 1, 2, 3 in the
    order the answer first cites them (``number``), the others after; how they were found to
    support the answer ("cited", "matched" or ""); and whether the index was partial when
    asked."""
    raw = _raw_sources(meta)
    if raw is None:
        return [], "", False
    first, how = _supporting(answer, raw)
    numbers = shown_numbers(first, len(raw))
    sources = [
        CitedSource(
            number=numbers[n],
            given=n,
            path=str(s.get("path", "")),
            page=s.get("page") if isinstance(s.get("page"), int) else None,
            heading=s.get("heading") if isinstance(s.get("heading"), str) else None,
            text=str(s.get("text", "")),
            cited=n in first,
        )
        for n, s in enumerate(raw, 1)
    ]
    sources.sort(key=lambda s: s.number)
    documents = meta.get("documents")
    return sources, how, isinstance(documents, dict) and bool(documents.get("partial"))


def documents_not_found(meta: dict[str, Any]) -> str | None:
    """Why the documents could not hold the answer, when the reply says they could not."""
    documents = meta.get("documents")
    reason = documents.get("not_found") if isinstance(documents, dict) else None
    return reason if isinstance(reason, str) and reason else None


class SourcesPanel(QFrame):
    open_requested = Signal(str, object)  # (path, page or None)

    def __init__(self, colors: Colors) -> None:
        super().__init__()
        self.setObjectName("SourcesPanel")
        self.colors = colors
        self.sources: list[CitedSource] = []
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 8, 12, 8)
        layout.setSpacing(4)
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.RichText)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction)
        self.label.setOpenExternalLinks(False)
        self.label.linkActivated.connect(self._open)
        layout.addWidget(self.label)
        self.setVisible(False)

    def show_sources(self, meta: dict[str, Any], answer: str) -> None:
        self.sources, how, partial = sources_of(meta, answer)
        if not self.sources and not partial:
            self.setVisible(False)
            return
        muted = self.colors.muted
        rows: list[str] = []
        if partial:
            indexing = tr(
                "Sources",
                "Asked while the collection was still being indexed: files not read yet could "
                "not be searched.",
            )
            rows.append(f"<p style='color:{muted}'>{html.escape(indexing)}</p>")
        titles = {
            "cited": html.escape(tr("Sources", "Sources")),
            "matched": html.escape(tr("Sources", "Sources"))
            + " <span style='font-weight:normal'>"
            + html.escape(tr("Sources", "(the answer cites none; these hold what it says)"))
            + "</span>",
            "": html.escape(tr("Sources", "Passages searched")),
        }
        not_found = documents_not_found(meta)
        if said_not_found(answer):  # the retrieval check's verdict, or the model's own
            titles[""] = html.escape(tr("Sources", "Closest I found"))
            if not_found:
                rows.append(f"<p style='color:{muted}'>{html.escape(not_found.capitalize())}.</p>")
        unsupported = [
            c.text
            for c in claims(shown_text(meta, answer), [s.text for s in self.sources])
            if not c.supported
        ]
        if unsupported:
            shown = "".join(
                f"<br>“{html.escape(text if len(text) <= 160 else text[:159] + '…')}”"
                for text in unsupported[:3]
            )
            rows.append(
                f"<p style='color:{self.colors.warning_text}; "
                f"background-color:{self.colors.warning_bg}'>"
                f"<b>{html.escape(tr('Sources', 'Not found in the sources:'))}</b>{shown}</p>"
            )
        if self.sources:
            rows.append(f"<p><b>{titles[how]}</b></p>")
        for i, source in enumerate(self.sources):
            if how and not source.cited and (i == 0 or self.sources[i - 1].cited):
                also = html.escape(tr("Sources", "Also given to the model:"))
                rows.append(f"<p style='color:{muted}'>{also}</p>")
            heading = f" — {html.escape(source.heading)}" if source.heading else ""
            excerpt = " ".join(source.text.split())
            if len(excerpt) > EXCERPT_CHARS:
                excerpt = excerpt[: EXCERPT_CHARS - 1].rstrip() + "…"
            rows.append(
                f"<p style='margin-top:6px'><b>[{source.number}]</b> "
                f"<a href='source:{source.number}'>{html.escape(source.where)}</a>{heading}<br>"
                f"<span style='color:{muted}'>“{html.escape(excerpt)}”</span></p>"
            )
        self.label.setText("".join(rows))
        self.setVisible(True)

    def _open(self, link: str) -> None:
        if not link.startswith("source:"):
            return
        number = int(link.removeprefix("source:"))
        for source in self.sources:
            if source.number == number:
                self.open_requested.emit(source.path, source.page)
                return
