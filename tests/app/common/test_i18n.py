"""The window's languages: every string in app/ that goes through ``tr`` is in each shipped
language's file, translated, with the same ``{fields}``; the files Qt loads are built from them;
and a window started in another language shows it."""

from __future__ import annotations

import importlib.util
import re
import string
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from app.common import i18n

if TYPE_CHECKING:
    from pytestqt.qtbot import QtBot

ROOT = Path(__file__).resolve().parents[3]


def _load_tool() -> Any:
    spec = importlib.util.spec_from_file_location(
        "translations", ROOT / "packaging" / "translations.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


translations = _load_tool()

SHIPPED = [language.code for language in i18n.LANGUAGES if language.code != "en"]


def fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


def test_every_language_cove_lists_is_shipped() -> None:
    assert sorted(SHIPPED) == sorted(translations.LANGUAGES)
    assert len(SHIPPED) >= 2


@pytest.mark.parametrize("language", SHIPPED)
def test_each_language_has_every_string_of_the_window(tmp_path: Path, language: str) -> None:
    fresh = tmp_path / f"cove_{language}.ts"
    translations.extract(fresh, language)
    wanted = {(c, s) for c, s, _ in translations.messages(fresh)}
    shipped = {(c, s) for c, s, _ in translations.messages(translations.ts_path(language))}
    assert len(wanted) > 300
    assert sorted(wanted - shipped) == [], "run: python packaging/translations.py extract"
    assert sorted(shipped - wanted) == []


@pytest.mark.parametrize("language", SHIPPED)
def test_each_string_is_translated_with_the_same_fields(language: str) -> None:
    assert translations.todo(language) == {}
    for context, source, message in translations.messages(translations.ts_path(language)):
        translated = message.findtext("translation") or ""
        assert fields(translated) == fields(source), (context, source, translated)
        # Qt's own markers stay (a plural's count, an accelerator's ampersand).
        assert ("%n" in translated) == ("%n" in source), (context, source)
        assert bool(re.search(r"<\w", translated)) == bool(re.search(r"<\w", source)), source


@pytest.mark.parametrize("language", SHIPPED)
def test_what_the_window_loads_is_built_from_the_translations(
    tmp_path: Path, language: str
) -> None:
    built = tmp_path / f"cove_{language}.qm"
    translations.compile_qm(translations.ts_path(language), built)
    assert built.read_bytes() == (translations.I18N / f"cove_{language}.qm").read_bytes(), (
        "run: python packaging/translations.py compile"
    )


def test_a_window_in_german_says_so_and_english_comes_back(qtbot: QtBot) -> None:
    from app.chat.composer import Composer

    try:
        assert i18n.install("de") == "de"
        composer = Composer()
        qtbot.addWidget(composer)
        assert composer.button.text() == "Senden"
        assert composer.attach_button.accessibleName() == "Dateien anhängen"
        assert i18n.install("fr") == "fr"
        french = Composer()
        qtbot.addWidget(french)
        assert french.button.text() == "Envoyer"
    finally:
        i18n.install("en")
    english = Composer()
    qtbot.addWidget(english)
    assert english.button.text() == "Send"


def test_the_language_follows_the_system_unless_one_is_chosen(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from PySide6.QtCore import QLocale

    monkeypatch.setattr(QLocale, "system", lambda: QLocale("fr_CA"))
    assert i18n.resolve("system") == "fr"
    assert i18n.resolve("de") == "de"
    monkeypatch.setattr(QLocale, "system", lambda: QLocale("ja_JP"))
    assert i18n.resolve("system") == "en"
    assert i18n.resolve("xx") == "en"
