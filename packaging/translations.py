"""The window's translations: find the strings, hand them to translators, build what Qt loads.

    python packaging/translations.py extract        # app/ -> assets/i18n/cove_<lang>.ts
    python packaging/translations.py todo LANG      # the strings LANG lacks, as JSON, on stdout
    python packaging/translations.py fill LANG FILE # write a JSON of translations into the .ts
    python packaging/translations.py compile        # .ts -> .qm (what the window loads)

``extract`` runs Qt's ``lupdate`` over every module of app/ (``tr`` is an alias of Qt's
``translate``), keeping the translations already made and dropping strings no longer used.
The JSON handed to translators is ``{"context": {"source text": "translation"}}``.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
I18N = ROOT / "assets" / "i18n"
LANGUAGES = ("de", "fr")  # besides English, the source language (app/common/i18n.py)


def tool(name: str) -> str:
    """A Qt tool that PySide6 installs beside the interpreter (pyside6-lupdate, -lrelease)."""
    here = Path(sys.executable).parent / name
    found = str(here) if here.exists() else shutil.which(name)
    if found is None:
        raise SystemExit(f"{name} not found: it comes with PySide6")
    return found


def sources() -> list[Path]:
    return sorted(p for p in (ROOT / "app").rglob("*.py") if "__pycache__" not in p.parts)


def ts_path(language: str) -> Path:
    return I18N / f"cove_{language}.ts"


def extract(target: Path | None = None, language: str | None = None) -> None:
    """Update the .ts files from app/ (or write one fresh file at ``target``)."""
    outputs = [target] if target is not None else [ts_path(lang) for lang in LANGUAGES]
    for output in outputs:
        lang = language or output.stem.split("_", 1)[-1]
        subprocess.run(
            [
                tool("pyside6-lupdate"),
                "-tr-function-alias",
                "translate+=tr",
                "-no-obsolete",
                "-locations",
                "none",
                "-target-language",
                lang,
                *[str(p.relative_to(ROOT)) for p in sources()],
                "-ts",
                str(output),
            ],
            cwd=ROOT,
            check=True,
            capture_output=True,
        )


def messages(path: Path) -> list[tuple[str, str, ET.Element]]:
    """(context, source, the <message> element) for every string in a .ts file."""
    found = []
    for context in ET.parse(path).getroot().iter("context"):
        name = context.findtext("name") or ""
        for message in context.iter("message"):
            found.append((name, message.findtext("source") or "", message))
    return found


def todo(language: str) -> dict[str, dict[str, str]]:
    missing: dict[str, dict[str, str]] = {}
    for context, source, message in messages(ts_path(language)):
        translation = message.find("translation")
        if translation is None or translation.get("type") == "unfinished" or not translation.text:
            missing.setdefault(context, {})[source] = ""
    return missing


def fill(language: str, given: dict[str, dict[str, str]]) -> int:
    """Write the translations ``given`` into LANG's .ts file; returns how many were written."""
    path = ts_path(language)
    tree = ET.parse(path)
    written = 0
    for context in tree.getroot().iter("context"):
        name = context.findtext("name") or ""
        for message in context.iter("message"):
            text = given.get(name, {}).get(message.findtext("source") or "")
            if not text:
                continue
            translation = message.find("translation")
            if translation is None:
                translation = ET.SubElement(message, "translation")
            forms = translation.findall("numerusform")
            if message.get("numerus") == "yes" and forms:  # a %n string: each plural form
                for form in forms:
                    form.text = text
            else:
                translation.text = text
            translation.attrib.pop("type", None)
            written += 1
    ET.indent(tree, space="    ")
    body = ET.tostring(tree.getroot(), encoding="unicode")
    path.write_text(
        '<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE TS>\n' + body + "\n", encoding="utf-8"
    )
    return written


def compile_qm(source: Path, output: Path) -> None:
    subprocess.run(
        [tool("pyside6-lrelease"), "-silent", str(source), "-qm", str(output)],
        check=True,
        capture_output=True,
    )


def main(argv: list[str]) -> int:
    command = argv[0] if argv else ""
    if command == "extract":
        extract()
    elif command == "todo" and len(argv) == 2:
        print(json.dumps(todo(argv[1]), indent=2, ensure_ascii=False))
    elif command == "fill" and len(argv) == 3:
        given = json.loads(Path(argv[2]).read_text(encoding="utf-8"))
        print(f"{fill(argv[1], given)} translations written")
    elif command == "compile":
        for language in LANGUAGES:
            compile_qm(ts_path(language), I18N / f"cove_{language}.qm")
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
