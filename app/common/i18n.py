"""The window's language: every string a person reads goes through ``tr`` (Qt's translation
machinery), and the translations Cove ships live in ``assets/i18n`` as Qt Linguist files.

``tr(context, text)`` is ``QCoreApplication.translate``; ``pyside6-lupdate`` finds its calls with
``-tr-function-alias translate+=tr`` (``make translations``). Text with values in it is written
with ``{name}`` fields and filled after translation, so a translator sees whole sentences.

The language is the one chosen in Settings, else the system's, else English. It applies when the
window starts; Settings offers to restart Cove when it is changed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QTranslator

I18N_DIR = Path(__file__).resolve().parents[2] / "assets" / "i18n"
SYSTEM = "system"


@dataclass(frozen=True, slots=True)
class Language:
    code: str  # "de", as in the file name cove_de.qm
    name: str  # in its own language, as a person looks for it: "Deutsch"


# English is the source language; the others are shipped complete (tests/app/common/test_i18n.py).
LANGUAGES: tuple[Language, ...] = (
    Language("en", "English"),
    Language("de", "Deutsch"),
    Language("fr", "Français"),
)

_installed: list[QTranslator] = []
_current = "en"


def tr(context: str, text: str, disambiguation: str | None = None, n: int = -1) -> str:
    """``text`` in the window's language (``context`` groups it for translators)."""
    return QCoreApplication.translate(context, text, disambiguation, n)


def codes() -> list[str]:
    return [language.code for language in LANGUAGES]


def resolve(preference: str | None) -> str:
    """The language to use for a setting: a shipped code, or the system's when it is shipped."""
    if preference and preference != SYSTEM and preference in codes():
        return preference
    for name in QLocale.system().uiLanguages():
        code = name.replace("_", "-").split("-", 1)[0].lower()
        if code in codes():
            return code
    return "en"


def current() -> str:
    return _current


def install(preference: str | None) -> str:
    """Load the translations for ``preference`` (a code or "system") into the application.
    Returns the language now in use."""
    global _current
    app = QCoreApplication.instance()
    for translator in _installed:
        if app is not None:
            QCoreApplication.removeTranslator(translator)
    _installed.clear()
    code = resolve(preference)
    _current = code
    if code == "en" or app is None:
        return code
    ours = QTranslator(app)
    if ours.load(str(I18N_DIR / f"cove_{code}.qm")):
        QCoreApplication.installTranslator(ours)
        _installed.append(ours)
    # Qt's own words (the file dialog's buttons, a text field's context menu).
    qt = QTranslator(app)
    qt_dir = QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)
    if qt.load(f"qtbase_{code}", qt_dir):
        QCoreApplication.installTranslator(qt)
        _installed.append(qt)
    return code


def _language_file() -> Path:
    from engine.paths import data_dir

    return data_dir() / "language"


def saved_language() -> str:
    """The language chosen in Settings ("system" when none was): read before any window is
    built, so it is kept in a file of its own rather than in the chat store."""
    try:
        value = _language_file().read_text(encoding="utf-8").strip()
    except OSError:
        return SYSTEM
    return value if value in (*codes(), SYSTEM) else SYSTEM


def save_language(code: str) -> None:
    path = _language_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(code + "\n", encoding="utf-8")
    tmp.replace(path)
