"""PDF, read by PDFium (pypdfium2): the text layer page by page, every block with its 1-based
page number, so that a citation names the page the passage is on.

PDF text comes as lines. Paragraphs are rebuilt from them (a line much shorter than the page's
text width ends one); a short line without closing punctuation, followed by more text, is a
heading. A running header or footer is dropped: the same line, digits aside, at the top or foot
of most of the first pages, or of several pages around it (a chapter's or section's own head,
or one that alternates between left and right pages).
A page with images and no text layer (or a few characters of one, a page number) is a scanned
page: it is reported as needing OCR, never indexed as empty. Pages stream: only the first
``RUNNING_WINDOW`` are held at once, to find the running headers. An encrypted or damaged file
is refused with the reason; one bad page is reported and the rest are read.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.documents.blocks import Block, PageIssue
from engine.errors import DocumentError

if TYPE_CHECKING:
    from engine.documents.ocr import PageOcr

MIN_TEXT_CHARS = 16  # less than this on a page with an image: a scan
RUNNING_WINDOW = 12  # pages read ahead to find running headers and footers
EDGE_LINES = 2  # lines at the top and at the foot of a page where running heads are
RUNNING_REACH = 4  # pages either side where a chapter's own running head recurs
RUNNING_SEEN = 2  # ... at the same end of at least this many of them
HEADING_MAX = 80
SHORT_LINE = 0.7  # of the page's longest line: a line this short ends its paragraph
HEADING_SCALE = 1.1  # a line set this much larger than the body text is a heading
SIZE_TOLERANCE = 0.25  # points: sizes closer than this are one size
BOOKMARK_DEPTH = 6  # bookmark levels read as headings
BOOKMARKS_PER_PAGE = 0.1  # fewer bookmarks than this a page are not the document's outline
TITLE_LABEL = 8  # letters a heading line may add to its bookmark's title ("Part I", "Chapter")
TITLE_LINES = 3  # a heading set over at most this many lines
WRAP_LEADING = 1.3  # font sizes between the baselines of two lines of one paragraph, at most
CELL_GAP = 1.5  # a gap this many line heights wide between two texts on a line parts two cells
_DIGITS = re.compile(r"\d+")
_BULLET = re.compile(r"^[\u2022\u25aa\u25cf\-*]\s")


def read_pdf(path: Path, *, ocr: PageOcr | None = None) -> Iterator[Block | PageIssue]:
    import pypdfium2 as pdfium

    with path.open("rb") as f:
        if b"%PDF-" not in f.read(1024):  # where PDF readers look for the header
            raise DocumentError("not a PDF file (no PDF header)")
    try:
        document = pdfium.PdfDocument(str(path))
    except pdfium.PdfiumError as exc:
        raise DocumentError(_reason(str(exc))) from None
    try:
        pages = (_page_lines(document, index) for index in range(len(document)))
        # Running headers and the body text size are found in the first pages only, so that
        # the rest streams.
        first = list(itertools.islice(pages, RUNNING_WINDOW))
        repeated = _running_lines(first)
        outline = _Outline(first, repeated, _bookmarks(document))
        for index, lines, running in _with_running(itertools.chain(first, pages)):
            number = index + 1
            yield from _page_blocks(document, index, lines, running, repeated, outline, ocr)
            outline.end_page(number)
    finally:
        document.close()


def _page_blocks(
    document: Any,
    index: int,
    lines: list[_Line] | None,
    running: set[tuple[str, str]],
    repeated: set[str],
    outline: _Outline,
    ocr: PageOcr | None,
) -> Iterator[Block | PageIssue]:
    """One page's blocks, or what is wrong with it (unreadable, a scan needing OCR)."""
    number = index + 1
    if lines is None:
        yield PageIssue(number, "unreadable")
        return
    if sum(len(line.text) for line in lines) < MIN_TEXT_CHARS and _has_images(document, index):
        found = ocr.read(document, index) if ocr is not None else []
        if not found:
            yield PageIssue(number, "needs_ocr")
            return
        yield PageIssue(number, "read_by_ocr")
        for text in found:
            yield Block("paragraph", text, page=number, headings=outline.headings)
        return
    kept = [
        line
        for i, line in enumerate(lines)
        if _shape(line.text) not in repeated
        and (_side(i, len(lines)), _shape(line.text)) not in running
    ]
    yield from _blocks(kept, number, outline)


@dataclass(frozen=True, slots=True)
class _Line:
    text: str
    size: float  # the font size of its first character, in points; 0 when PDFium has none
    cells: tuple[str, ...] = ()  # a table row's cells, where the line is one
    baseline: float | None = None  # of its first character, in points from the page's foot


def _page_lines(document: Any, index: int) -> list[_Line] | None:
    import pypdfium2.raw as raw

    try:
        page = document[index]
    except Exception:
        return None
    try:
        textpage = page.get_textpage()
        try:
            text = str(textpage.get_text_range())
            lines = []
            # PDFium counts characters in UTF-16 units: one past the BMP is two of them.
            astral = 0
            position = 0
            for match in re.finditer(r"[^\r\n]+", text):
                astral += sum(ord(c) > 0xFFFF for c in text[position : match.start()])
                position = match.start()
                line = match.group()
                lead = len(line) - len(line.lstrip())
                if not line.strip():
                    continue
                index = match.start() + lead + astral
                size = float(raw.FPDFText_GetFontSize(textpage, index))
                lines.append(_Line(line.strip(), size, baseline=_baseline(textpage, index)))
            rows = _table_rows(textpage)
            return [
                _Line(
                    line.text, line.size, rows.get(" ".join(line.text.split()), ()), line.baseline
                )
                for line in lines
            ]
        finally:
            textpage.close()
    except Exception:
        return None
    finally:
        page.close()


def _baseline(textpage: Any, index: int) -> float | None:
    import ctypes

    import pypdfium2.raw as raw

    x, y = ctypes.c_double(), ctypes.c_double()
    if not raw.FPDFText_GetCharOrigin(textpage, index, x, y):
        return None
    return y.value


def _table_rows(textpage: Any) -> dict[str, tuple[str, ...]]:
    """Lines set as table rows, by their text: PDFium's text rectangles on one baseline with
    gaps wider than ``CELL_GAP`` line heights between them are a row's cells. Only those rows'
    texts are read: most lines are one rectangle, and cost one call."""
    boxes: list[_Box] = [textpage.get_rect(i) for i in range(textpage.count_rects())]
    rows: dict[str, tuple[str, ...]] = {}
    i = 0
    while i < len(boxes):
        row = [boxes[i]]
        # Consecutive rectangles whose vertical extents overlap are on one line.
        while i + 1 < len(boxes) and _same_line(row[-1], boxes[i + 1]):
            i += 1
            row.append(boxes[i])
        i += 1
        if len(row) < 2:
            continue
        row.sort(key=lambda box: box[0])
        height = max(box[3] - box[1] for box in row)
        groups = [[row[0]]]
        for before, box in itertools.pairwise(row):
            if box[0] - before[2] > CELL_GAP * height:
                groups.append([box])
            else:
                groups[-1].append(box)
        if len(groups) < 2:
            continue
        cells = [
            " ".join(" ".join(str(textpage.get_text_bounded(*box)).split()) for box in group)
            for group in groups
        ]
        cells = [cell for cell in cells if cell]
        if len(cells) >= 2:
            rows[" ".join(cells)] = tuple(cells)
    return rows


_Box = tuple[float, float, float, float]  # left, bottom, right, top


def _same_line(a: _Box, b: _Box) -> bool:
    overlap = min(a[3], b[3]) - max(a[1], b[1])
    return overlap > 0.5 * min(a[3] - a[1], b[3] - b[1])


def _has_images(document: Any, index: int) -> bool:
    import pypdfium2.raw as raw

    try:
        page = document[index]
    except Exception:  # the page loaded a moment ago for its text; if not now, it is no scan
        return False
    try:
        return any(obj.type == raw.FPDF_PAGEOBJ_IMAGE for obj in page.get_objects(max_depth=2))
    finally:
        page.close()


def _shape(line: str) -> str:
    return _DIGITS.sub("#", " ".join(line.split()))


def _running_lines(pages: list[list[_Line] | None]) -> set[str]:
    """Lines that recur, digits aside, on most pages: running headers and footers."""
    texts = [[line.text for line in lines] for lines in pages if lines]
    if len(texts) < 3:
        return set()
    counts: Counter[str] = Counter()
    for lines in texts:
        counts.update({_shape(line) for line in lines[:2] + lines[-2:]})
    return {shape for shape, n in counts.items() if n >= max(3, len(texts) * 0.6)}


def _side(i: int, n: int) -> str | None:
    """Whether line ``i`` of ``n`` is at the top or the foot of its page, where running heads
    are."""
    if i < EDGE_LINES:
        return "top"
    if i >= n - EDGE_LINES:
        return "foot"
    return None


def _edges(lines: list[_Line] | None) -> set[tuple[str, str]]:
    if not lines:
        return set()
    n = len(lines)
    found = set()
    for i, line in enumerate(lines):
        side = _side(i, n)
        if side is not None:
            found.add((side, _shape(line.text)))
    return found


def _with_running(
    pages: Iterator[list[_Line] | None],
) -> Iterator[tuple[int, list[_Line] | None, set[tuple[str, str]]]]:
    """Each page (index, lines) with its top and foot lines, as (side, shape), that recur at the
    same end of at least ``RUNNING_SEEN`` of the ``RUNNING_REACH`` pages either side: the
    running heads of its chapter. Holds ``RUNNING_REACH`` pages ahead."""
    window: list[tuple[int, list[_Line] | None, set[tuple[str, str]]]] = []
    done = 0

    def running(at: int) -> set[tuple[str, str]]:
        index, _lines, edges = window[at]
        seen: Counter[tuple[str, str]] = Counter()
        for other, _l, shapes in window:
            if other != index and abs(other - index) <= RUNNING_REACH:
                seen.update(shapes & edges)
        return {shape for shape, n in seen.items() if n >= RUNNING_SEEN}

    for index, lines in enumerate(pages):
        window.append((index, lines, _edges(lines)))
        while window and window[0][0] < index - 2 * RUNNING_REACH:
            window.pop(0)
        ready = index - RUNNING_REACH
        if ready >= done:
            at = next(i for i, item in enumerate(window) if item[0] == ready)
            yield ready, window[at][1], running(at)
            done = ready + 1
    for at, (index, lines, _shapes) in enumerate(window):
        if index >= done:
            yield index, lines, running(at)


def _body_size(pages: list[list[_Line] | None], repeated: set[str]) -> float:
    """The size most of the text is set in (by characters); 0 when PDFium gives no sizes."""
    sizes: Counter[float] = Counter()
    for lines in pages:
        for line in lines or ():
            if line.size > 0 and _shape(line.text) not in repeated:
                sizes[round(line.size, 1)] += len(line.text)
    return sizes.most_common(1)[0][0] if sizes else 0.0


class _Outline:
    """The heading path so far.

    Where the PDF sets headings larger than its body text, a heading's size gives its level (a
    larger one closes the smaller ones under it); where every line is one size, headings are
    guessed from the text alone and stand one level deep.

    Where the PDF also has bookmarks (its own outline, as a reader's side panel shows it) and
    enough of them, they decide which large lines are headings: one that reads as the title of
    a bookmark pointing at its page; one set smaller than the innermost such heading (below
    it); one before the first of them (the title); one on a page whose bookmark no line
    matched, no larger than the bookmarked headings (it stands for that bookmark). Other large
    text (the words of an example figure) stays text: taken by size, such words stood above the
    real chapters for hundreds of pages of a manual."""

    def __init__(
        self,
        pages: list[list[_Line] | None],
        repeated: set[str],
        marks: dict[int, list[tuple[int, str]]] | None = None,
    ) -> None:
        self.body = _body_size(pages, repeated)
        self.stack: list[tuple[float, str]] = []
        # The stack's headings down to the innermost one a bookmark confirmed (0: none yet).
        self.marked = 0
        self.largest = 0.0  # the largest size of a heading a bookmark confirmed
        self.marks = marks or {}
        self.sized = any(self.is_heading(line) for lines in pages for line in lines or ())

    @property
    def outlined(self) -> bool:
        return bool(self.marks)

    def is_heading(self, line: _Line) -> bool:
        return (
            self.body > 0
            and line.size >= self.body * HEADING_SCALE
            and len(line.text) <= 2 * HEADING_MAX
            and not line.text.endswith((".", ",", ";", "?", "!"))
            and not _BULLET.match(line.text)  # a numbered line this large is a heading
        )

    def may_head(self, size: float, page: int) -> bool:
        """Whether a line this large may be a heading: with bookmarks, one in the front matter
        before the first of them (the document's title, which stays over every chapter), or one
        set smaller than the innermost bookmark's heading, below it (where the outline is
        shallower than the text)."""
        if not self.outlined or not self.marked:
            return True
        if self.marks.get(page) and size <= self.largest + SIZE_TOLERANCE:
            # A bookmark of this page its heading's words did not match ("Chapter 3" in the
            # outline, "Installing" on the page): the size decides, as without bookmarks, within
            # the sizes of the headings bookmarks confirmed.
            return True
        return size < self.stack[self.marked - 1][0] - SIZE_TOLERANCE

    def enter(self, text: str, size: float, page: int) -> Block:
        pending = self.marks.get(page) if self.marked else None
        # As large as the bookmarked headings, on a page whose bookmark it did not match: it
        # stands for that bookmark. Otherwise it goes below the innermost bookmarked heading.
        if pending and size >= self.stack[self.marked - 1][0] - SIZE_TOLERANCE:
            pending.pop(0)
            return self._push(text, size, page, confirmed=True)
        return self._push(text, size, page, confirmed=False)

    def bookmark(self, lines: list[str], page: int) -> int:
        """How many of ``lines`` (from the first) read as the title of the next bookmarks of
        ``page`` not yet met; 0 when they do not."""
        pending = self.marks.get(page)
        if not pending or len(lines[0]) > 2 * HEADING_MAX:
            return 0
        wanted = [_letters(title) for _level, title in pending]
        seen = ""
        for n, line in enumerate(lines[:TITLE_LINES], start=1):
            seen += _letters(line)
            if not seen or len(seen) > max(map(len, wanted)) + TITLE_LABEL:
                return 0
            if any(_same_title(seen, title) for title in wanted):
                return n
        return 0

    def enter_bookmark(self, lines: list[str], size: float, page: int) -> Block:
        """A heading its bookmark confirms (``lines``, as ``bookmark`` matched them), at the
        level its size gives, as without bookmarks."""
        pending = self.marks[page]
        got = "".join(_letters(line) for line in lines)
        at = next(
            (i for i, (_l, title) in enumerate(pending) if _same_title(got, _letters(title))), 0
        )
        del pending[: at + 1]
        self.largest = max(self.largest, size)
        return self._push(_joined(lines), size, page, confirmed=True)

    def _push(self, text: str, size: float, page: int, *, confirmed: bool) -> Block:
        """The heading over what follows, closing the ones no larger (a bookmarked one only
        when ``confirmed``, which it then is itself)."""
        floor = 0 if confirmed else self.marked
        while len(self.stack) > floor and self.stack[-1][0] <= size + SIZE_TOLERANCE:
            self.stack.pop()
        parents = self.headings
        self.stack.append((size, text))
        if confirmed:
            self.marked = len(self.stack)
        return Block("heading", text, page=page, headings=parents, level=len(self.stack))

    def end_page(self, page: int) -> None:
        self.marks.pop(page, None)

    @property
    def headings(self) -> tuple[str, ...]:
        return tuple(text for _size, text in self.stack)


def _bookmarks(document: Any) -> dict[int, list[tuple[int, str]]]:
    """The PDF's bookmarks by the 1-based page they point at, in order, each (depth from 0,
    title); none where there are too few of them to be the document's outline."""
    marks: dict[int, list[tuple[int, str]]] = {}
    try:
        for item in document.get_toc(max_depth=BOOKMARK_DEPTH):
            dest = item.get_dest()
            index = dest.get_index() if dest is not None else None
            title = " ".join(str(item.get_title() or "").split())
            if index is None or not _letters(title):
                continue
            marks.setdefault(int(index) + 1, []).append((int(item.level), title))
    except Exception:  # a damaged outline is no outline: the sizes decide
        return {}
    if sum(map(len, marks.values())) < max(3, len(document) * BOOKMARKS_PER_PAGE):
        return {}
    return marks


def _letters(text: str) -> str:
    """A title as compared with a line: letters only, lower case (numbering, punctuation and
    typographic quotes aside)."""
    return "".join(c for c in unicodedata.normalize("NFKC", text).lower() if c.isalpha())


def _same_title(line: str, title: str) -> bool:
    """Whether a line's letters are a bookmark's title: the same, or with a short label more
    on either side ("Part I", "Chapter")."""
    if line == title:
        return True
    short, long = sorted((line, title), key=len)
    return len(short) >= 6 and long.endswith(short) and len(long) - len(short) <= TITLE_LABEL


_SOFT_BREAK = re.compile("[\ufffe\x02] ?")


def _blocks(lines: list[_Line], page: int, outline: _Outline) -> Iterator[Block]:
    if not lines:
        return
    width = max(len(line.text) for line in lines)
    sized = outline.sized
    paragraph: list[str] = []

    def flush() -> Iterator[Block]:
        if paragraph:
            yield Block("paragraph", _joined(paragraph), page=page, headings=outline.headings)
            paragraph.clear()

    texts = [line.text for line in lines]
    candidate = [_heading_like(text, width) for text in texts]
    i = 0
    while i < len(lines):
        line = lines[i]
        following = texts[i + 1] if i + 1 < len(lines) else None
        run = list(itertools.takewhile(lambda ln: len(ln.cells) >= 2, lines[i:]))
        if len(run) >= 2:  # a table: its first row is the header every other row carries
            yield from flush()
            header = " | ".join(run[0].cells)
            for row in run[1:]:
                yield Block(
                    "table_row",
                    " | ".join(row.cells),
                    page=page,
                    headings=outline.headings,
                    table_header=header,
                )
            i += len(run)
            continue
        heading = sized and outline.is_heading(line)
        n = outline.bookmark(texts[i:], page) if heading else 0
        if n:
            yield from flush()
            yield outline.enter_bookmark(texts[i : i + n], line.size, page)
            i += n
            continue
        if heading and outline.may_head(line.size, page):
            # A heading set over several lines is one heading.
            j = i + 1
            while (
                j < len(lines)
                and abs(lines[j].size - line.size) <= SIZE_TOLERANCE
                and outline.is_heading(lines[j])
                and _wrapped(lines[j - 1], lines[j])
            ):
                j += 1
            yield from flush()
            yield outline.enter(_joined(texts[i:j]), line.size, page)
            i = j
            continue
        # Without sizes, a run of short lines is a table or a list, not a heading and its text.
        alone = following is not None and not candidate[i + 1] and (i == 0 or not candidate[i - 1])
        if not sized and not outline.outlined and not paragraph and candidate[i] and alone:
            outline.stack = [(0.0, line.text)]
            yield Block("heading", line.text, page=page, level=1)
            i += 1
            continue
        paragraph.append(line.text)
        ends = len(line.text) < width * SHORT_LINE and line.text.endswith(
            (".", ":", "!", "?", ")", '"')
        )
        next_size = lines[i + 1].size if i + 1 < len(lines) else line.size
        if (
            ends
            or (following is not None and _starts_item(following))
            or (not sized and not outline.outlined and candidate[i])
            or abs(next_size - line.size) > SIZE_TOLERANCE
        ):
            yield from flush()
        i += 1
    yield from flush()


def _joined(lines: list[str]) -> str:
    """A paragraph's lines as one text; a word the typesetter broke at a line's end (PDFium
    marks the break with U+FFFE, or U+0002 in older builds) is made whole again, so that
    "deter-/mined" is found as "determined"."""
    text = " ".join(lines)
    return _SOFT_BREAK.sub("", text)


def _wrapped(above: _Line, below: _Line) -> bool:
    """Whether ``below`` goes on from ``above`` (lines of one paragraph are set a line's
    leading apart; a new one adds its space before)."""
    if above.baseline is None or below.baseline is None:
        return True
    return 0 < above.baseline - below.baseline <= WRAP_LEADING * max(above.size, below.size)


def _heading_like(line: str, width: int) -> bool:
    """Short, capitalised (or numbered: "3. Test units"), no closing punctuation, not a row of
    figures."""
    words = line.split()
    numbers = sum(bool(re.fullmatch(r"[\d.,%()+\-]+", w)) for w in words)
    numbered = re.match(r"^\d+(\.\d+)*\.?\s+\S", line) is not None
    return (
        len(line) <= min(HEADING_MAX, width * 0.6)
        and (line[:1].isupper() or numbered)
        and not line.endswith((".", ",", ";", ":", "?", "!"))
        and len(words) <= 10
        and numbers <= (1 if numbered else 0)
    )


def _starts_item(line: str) -> bool:
    return bool(re.match(r"^(\u2022|-|\*|\d+[.)])\s", line))


def _reason(message: str) -> str:
    lowered = message.lower()
    if "password" in lowered:
        return "encrypted PDF (needs a password)"
    if "format" in lowered or "file" in lowered:
        return "damaged or truncated PDF"
    return f"unreadable PDF ({message})"
