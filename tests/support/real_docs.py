"""The real-document evaluation sets: public documents nobody on the project wrote, taken from
Debian's documentation packages and checked by SHA-256, with questions labelled by file and page.

- ``tuning`` (``MEMBERS``, bench/real_questions.json): R's manuals, gnuplot's and Octave's
  reference manuals, Git's and Node.js's documentation; 2,203 PDF pages plus Markdown, HTML and
  plain text. Retrieval is tuned on this set only.
- ``heldout`` (``HELDOUT_MEMBERS``, bench/heldout_questions.json): documents of other kinds,
  never tuned on: the TikZ & PGF manual (1,321 pages), the beamer user guide, two standards (the
  Debian Policy Manual and the Filesystem Hierarchy Standard 3.0), a scientific paper (lme4's
  "Fitting Linear Mixed-Effects Models using lme4") and a long HTML manual (Bash's reference);
  1,849 PDF pages. A change that helps only the tuning set is not kept.

    python bench/real_docs.py fetch [--set tuning|heldout]   # download, extract, verify
    python bench/real_docs.py check [--set tuning|heldout]   # every key phrase is on its page

The folders are ``$COVE_REAL_DOCS`` (tuning) and ``$COVE_HELDOUT_DOCS``, else
``~/.cache/cove-bench/real-docs`` and ``heldout-docs``. Page numbers are PDF page indexes
counted from 1 (what a viewer shows in its page box), as Cove cites them.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
QUESTIONS = Path(os.environ.get("COVE_REAL_QUESTIONS") or ROOT / "bench" / "real_questions.json")
HELDOUT_QUESTIONS = ROOT / "bench" / "heldout_questions.json"


@dataclass(frozen=True, slots=True)
class Member:
    name: str  # file name in the corpus folder
    package: str  # Debian package
    path: str  # inside the package
    sha256: str  # of the file as stored (after gunzip)


MEMBERS = (
    Member(
        "R-exts.pdf",
        "r-doc-pdf",
        "usr/share/R/doc/manual/R-exts.pdf",
        "792220b273d40e8629664d5dd0d6ae4151419d14f613a949aebe85b8c2a1f85c",
    ),
    Member(
        "R-intro.pdf",
        "r-doc-pdf",
        "usr/share/R/doc/manual/R-intro.pdf",
        "337ccd0b490b1e66f7e783b45f4588d0599730b4206c0c051edfe1419c568c51",
    ),
    Member(
        "R-admin.pdf",
        "r-doc-pdf",
        "usr/share/R/doc/manual/R-admin.pdf",
        "50e256b5f873bbee4c8482df3754fa8654f02ef693409fe5e30b2f114e3efe9f",
    ),
    Member(
        "R-lang.pdf",
        "r-doc-pdf",
        "usr/share/R/doc/manual/R-lang.pdf",
        "4a6120ba505021d7c208078b575fe3f5d5dc91636dcf17de8a4208adda90d7dc",
    ),
    Member(
        "R-data.pdf",
        "r-doc-pdf",
        "usr/share/R/doc/manual/R-data.pdf",
        "9381a39ffeb8545a745c2618ba955b4ae4e10b9c8373cd5bc1984fff8318f8ca",
    ),
    Member(
        "R-FAQ.pdf",
        "r-doc-pdf",
        "usr/share/R/doc/manual/R-FAQ.pdf",
        "de8768520d4fb90dad64c28483ffb92dca7dd9d8dc8556905b35c2e62a939255",
    ),
    Member(
        "R-ints.pdf",
        "r-doc-pdf",
        "usr/share/R/doc/manual/R-ints.pdf",
        "cdcca722b4de6682a9100550b4361dcd3dd41b5b274d97b9a6230572be63901f",
    ),
    Member(
        "gnuplot.pdf",
        "gnuplot-doc",
        "usr/share/doc/gnuplot/gnuplot.pdf",
        "df68dd0613f043141512fc4436d17aaf96727d5a758d85233915ac5056a97206",
    ),
    Member(
        "octave.pdf",
        "octave-doc",
        "usr/share/doc/octave/octave.pdf",
        "ddd24489f87b46fbf99c15cc34aa865ae66775fb7c21927f7f2d6be9470becb8",
    ),
    Member(
        "liboctave.pdf",
        "octave-doc",
        "usr/share/doc/octave/liboctave.pdf",
        "af9cc69f2056163420e94f6569eb79c8f6849c1dfc054b632675c78116b49c81",
    ),
    Member(
        "gitattributes.html",
        "git-doc",
        "usr/share/doc/git-doc/gitattributes.html",
        "01f0e81e601af207f039951c3bd0118674ea70a542dd9ecc56f0f1a05848edf3",
    ),
    Member(
        "githooks.html",
        "git-doc",
        "usr/share/doc/git-doc/githooks.html",
        "2a6eb2a575c49f971cd9e7bd5e08feea6404a81fcdfca5ff6e47ce582b7ce384",
    ),
    Member(
        "user-manual.txt",
        "git-doc",
        "usr/share/doc/git-doc/user-manual.txt",
        "27e2dee864870cddd8e00b08bc0eb8af5c222db30d7b830bdbc0ca4c98c5840b",
    ),
    Member(
        "node-path.md",
        "nodejs-doc",
        "usr/share/doc/nodejs/api/path.md.gz",
        "809cadfc509b2f055af6afa33260dfe8748bbc0feea40006c81eab898575ae97",
    ),
    Member(
        "node-readline.md",
        "nodejs-doc",
        "usr/share/doc/nodejs/api/readline.md.gz",
        "6307a49c30df26a0c9db3086ca441823d2cb2c5fbcacb06110cb84ef552edcbd",
    ),
    Member(
        "node-dns.md",
        "nodejs-doc",
        "usr/share/doc/nodejs/api/dns.md.gz",
        "c394c3a278c18f440fba59c7d1f443d9a536fd68e90453691aa32bf573c97dbf",
    ),
)


HELDOUT_MEMBERS = (
    Member(
        "pgfmanual.pdf",
        "texlive-pictures-doc",
        "usr/share/doc/texlive-doc/generic/pgf/pgfmanual.pdf",
        "ac16c575526ff7038733ef7cbe86a0570b0ee9cc077af9d4ae468b7a6eaf0fc7",
    ),
    Member(
        "beameruserguide.pdf",
        "texlive-latex-recommended-doc",
        "usr/share/doc/texlive-doc/latex/beamer/beameruserguide.pdf",
        "9a1f87ab1036dec58ac19b59a27607d5ed51d115103cec41f8fd4d963ef9eb68",
    ),
    Member(
        "debian-policy.pdf",
        "debian-policy",
        "usr/share/doc/debian-policy/policy.pdf.gz",
        "220f9366d6deb3984e84236f02f04bdd6275d6fe7b5587acd6c689dfeb99020f",
    ),
    Member(
        "fhs-3.0.pdf",
        "debian-policy",
        "usr/share/doc/debian-policy/fhs/fhs-3.0.pdf.gz",
        "53d239e569a2d7b31a74fa09d585368c0f5a164e4624723fa2894660dd10fd23",
    ),
    Member(
        "lme4-lmer.pdf",
        "r-cran-lme4",
        "usr/lib/R/site-library/lme4/doc/lmer.pdf",
        "d13d6caf549b44c3543d01a7445c327ac472d266a8aee24f68a8d31d45d02ec9",
    ),
    Member(
        "bashref.html",
        "bash-doc",
        "usr/share/doc/bash/bashref.html",
        "572c0a2b543bc0cb57ae5bd32345c3c8f477672b1180ad01a5eece45abf414e0",
    ),
)


@dataclass(frozen=True, slots=True)
class Corpus:
    name: str
    members: tuple[Member, ...]
    questions: Path
    env: str  # the variable that names its folder
    folder_name: str  # under ~/.cache/cove-bench otherwise


TUNING = Corpus("tuning", MEMBERS, QUESTIONS, "COVE_REAL_DOCS", "real-docs")
HELDOUT = Corpus("heldout", HELDOUT_MEMBERS, HELDOUT_QUESTIONS, "COVE_HELDOUT_DOCS", "heldout-docs")
SETS = {c.name: c for c in (TUNING, HELDOUT)}


class CorpusError(RuntimeError):
    pass


def corpus_dir(corpus: Corpus = TUNING) -> Path:
    override = os.environ.get(corpus.env)
    return (
        Path(override) if override else Path.home() / ".cache" / "cove-bench" / corpus.folder_name
    )


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def is_complete(folder: Path | None = None, corpus: Corpus = TUNING) -> bool:
    folder = folder or corpus_dir(corpus)
    return all((folder / m.name).is_file() for m in corpus.members)


def fetch(folder: Path | None = None, corpus: Corpus = TUNING) -> Path:
    """Download the packages with apt-get, extract the members, verify each; idempotent."""
    folder = folder or corpus_dir(corpus)
    missing = [m for m in corpus.members if not (folder / m.name).is_file()]
    if not missing:
        return folder
    if shutil.which("apt-get") is None or shutil.which("dpkg-deb") is None:
        raise CorpusError("fetching the real documents needs apt-get and dpkg-deb (Debian)")
    folder.mkdir(parents=True, exist_ok=True)
    packages = sorted({m.package for m in missing})
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        done = subprocess.run(
            ["apt-get", "download", *packages],
            cwd=work,
            capture_output=True,
            text=True,
            timeout=600,
        )
        if done.returncode != 0:
            raise CorpusError(f"apt-get download {' '.join(packages)} failed: {done.stderr[-500:]}")
        tree = work / "tree"
        for deb in work.glob("*.deb"):
            subprocess.run(["dpkg-deb", "-x", str(deb), str(tree)], check=True, timeout=600)
        for m in missing:
            source = tree / m.path
            if not source.is_file():
                raise CorpusError(f"{m.package} has no {m.path}")
            data = gzip.decompress(source.read_bytes()) if m.path.endswith(".gz") else None
            partial = folder / (m.name + ".part")
            if data is not None:
                partial.write_bytes(data)
            else:
                shutil.copyfile(source, partial)
            got = _sha256(partial)
            if got != m.sha256:
                partial.unlink()
                raise CorpusError(
                    f"{m.name} from {m.package} has SHA-256 {got}, not {m.sha256}: the package "
                    "changed, so its pages no longer match the questions' labels"
                )
            partial.replace(folder / m.name)
    return folder


def load_questions(corpus: Corpus = TUNING) -> list[dict[str, Any]]:
    data = json.loads(corpus.questions.read_text(encoding="utf-8"))
    assert isinstance(data, list)
    return data


def normalise(text: str) -> str:
    """Text for matching a key phrase: NFKC (ligatures apart), quotes and dashes plain,
    hyphenation at line ends undone, whitespace collapsed, lower case."""
    text = unicodedata.normalize("NFKC", text)
    text = text.replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", '"')
    text = text.replace("\u201d", '"').replace("\u2013", "-").replace("\u2014", "-")
    text = text.replace("\ufffe", "").replace("\u00ad", "").replace("\x02", "")
    text = re.sub(r"-\s*\n\s*", "-", text)
    return re.sub(r"\s+", " ", text).strip().lower()


def page_texts(path: Path) -> list[str]:
    """Each page's text (PDF) or the whole file as one page (other formats)."""
    if path.suffix.lower() != ".pdf":
        return [path.read_text(encoding="utf-8", errors="replace")]
    import pypdfium2 as pdfium

    document = pdfium.PdfDocument(str(path))
    try:
        texts = []
        for page in document:
            textpage = page.get_textpage()
            texts.append(textpage.get_text_range())
            textpage.close()
            page.close()
        return texts
    finally:
        document.close()


def check(
    folder: Path | None = None, *, verbose: bool = False, corpus: Corpus = TUNING
) -> list[str]:
    """Problems with the labels: a key phrase not on a labelled page, a file not in the set,
    a label on a question meant to be unanswerable. Also says on how many other pages of the
    same file the key phrase is found (a label should name every such page)."""
    folder = folder or corpus_dir(corpus)
    names = {m.name for m in corpus.members}
    cache: dict[str, list[str]] = {}
    problems: list[str] = []
    ids: set[str] = set()
    for q in load_questions(corpus):
        qid = q["id"]
        if qid in ids:
            problems.append(f"{qid}: id used twice")
        ids.add(qid)
        if not q["answers"]:
            if q.get("kind") != "unanswerable":
                problems.append(f"{qid}: no answers but kind is {q.get('kind')}")
            continue
        phrase = normalise(q["key"])
        for answer in q["answers"]:
            name = answer["file"]
            if name not in names:
                problems.append(f"{qid}: {name} is not in the set")
                continue
            if name not in cache:
                cache[name] = [normalise(t) for t in page_texts(folder / name)]
            pages = cache[name]
            page = answer.get("page")
            text = pages[page - 1] if page is not None and 0 < page <= len(pages) else None
            if page is None:
                text = pages[0]
            if text is None or phrase not in text:
                problems.append(f"{qid}: key {q['key']!r} is not on {name} page {page}")
        if verbose:
            labelled = {(a["file"], a.get("page")) for a in q["answers"]}
            for name in {a["file"] for a in q["answers"]}:
                if name not in cache or len(cache[name]) == 1:
                    continue
                other = [
                    i + 1
                    for i, t in enumerate(cache[name])
                    if phrase in t and (name, i + 1) not in labelled
                ]
                if other:
                    print(f"  {qid}: key also on {name} pages {other[:10]}")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("action", choices=("fetch", "check"))
    parser.add_argument("--set", choices=sorted(SETS), default="tuning")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    corpus = SETS[args.set]
    try:
        folder = fetch(corpus=corpus)
    except CorpusError as exc:
        print(f"real documents: {exc}", file=sys.stderr)
        return 2
    if args.action == "fetch":
        print(folder)
        return 0
    problems = check(folder, verbose=args.verbose, corpus=corpus)
    for line in problems:
        print(line)
    questions = load_questions(corpus)
    kinds: dict[str, int] = {}
    for q in questions:
        kinds[q["kind"]] = kinds.get(q["kind"], 0) + 1
    print(f"{len(questions)} questions {kinds}; {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
