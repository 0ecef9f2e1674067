"""Appearance: the colour scheme, the text size and the window's language."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from app.common import i18n
from app.common.accessible_combo import name_by_purpose
from app.common.i18n import tr
from app.common.theme import FONT_SCALE_MAX, FONT_SCALE_MIN, FONT_SCALE_STEP, ThemeManager


def theme_choices() -> list[tuple[str, str]]:
    return [
        ("system", tr("Settings", "Follow the system")),
        ("light", tr("Settings", "Light")),
        ("dark", tr("Settings", "Dark")),
    ]


class AppearanceSection(QWidget):
    theme_chosen = Signal(str)  # "system" | "light" | "dark"
    language_chosen = Signal(str)  # a language code or "system"
    restart_requested = Signal()

    def __init__(self, theme: ThemeManager, language: str) -> None:
        super().__init__()
        self.theme = theme
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(QLabel("<b>{}</b>".format(tr("Settings", "Appearance"))))
        form = QFormLayout()
        self.theme_box = QComboBox()
        name_by_purpose(self.theme_box, tr("Settings", "Theme"))
        for key, label in theme_choices():
            self.theme_box.addItem(label, key)
        self.theme_box.setCurrentIndex(max(0, self.theme_box.findData(theme.preference)))
        # currentIndexChanged, not activated: a screen reader chooses by selecting in the list.
        self.theme_box.currentIndexChanged.connect(self._theme_activated)
        form.addRow(tr("Settings", "Theme"), self.theme_box)

        self.text_size = QSpinBox()
        self.text_size.setAccessibleName(tr("Settings", "Text size"))
        self.text_size.setRange(round(FONT_SCALE_MIN * 100), round(FONT_SCALE_MAX * 100))
        self.text_size.setSingleStep(round(FONT_SCALE_STEP * 100))
        self.text_size.setSuffix(" %")
        self.text_size.setValue(round(theme.font_scale * 100))
        self.text_size.valueChanged.connect(self._size_changed)
        theme.font_scale_changed.connect(self._scale_shown)
        form.addRow(tr("Settings", "Text size"), self.text_size)

        self.language_box = QComboBox()
        name_by_purpose(self.language_box, tr("Settings", "Language"))
        self.language_box.addItem(tr("Settings", "The system's language"), i18n.SYSTEM)
        for shipped in i18n.LANGUAGES:
            self.language_box.addItem(shipped.name, shipped.code)
        self.language_box.setCurrentIndex(max(0, self.language_box.findData(language)))
        self.language_box.currentIndexChanged.connect(self._language_activated)
        form.addRow(tr("Settings", "Language"), self.language_box)
        layout.addLayout(form)
        about = QLabel(
            tr(
                "Settings",
                "The language of Cove's window. Replies come in the language you write in.",
            )
        )
        about.setWordWrap(True)
        about.setProperty("muted", True)
        layout.addWidget(about)

        # Shown once the language is changed: the window's words change when Cove restarts.
        self.restart_notice = QFrame()
        self.restart_notice.setObjectName("Notice")
        notice = QHBoxLayout(self.restart_notice)
        self.restart_text = QLabel(
            tr("Settings", "The new language is used when Cove starts again.")
        )
        self.restart_text.setWordWrap(True)
        self.restart_button = QPushButton(tr("Settings", "Restart Cove now"))
        self.restart_button.clicked.connect(self.restart_requested)
        notice.addWidget(self.restart_text, 1)
        notice.addWidget(self.restart_button)
        self.restart_notice.setVisible(False)
        layout.addWidget(self.restart_notice)
        layout.addStretch(1)

    def show_theme(self, preference: str) -> None:
        self.theme_box.blockSignals(True)
        self.theme_box.setCurrentIndex(max(0, self.theme_box.findData(preference)))
        self.theme_box.blockSignals(False)

    def _theme_activated(self, index: int) -> None:
        self.theme_chosen.emit(str(self.theme_box.itemData(index)))

    def _size_changed(self, percent: int) -> None:
        self.theme.set_font_scale(percent / 100)

    def _scale_shown(self, scale: float) -> None:
        self.text_size.blockSignals(True)
        self.text_size.setValue(round(scale * 100))
        self.text_size.blockSignals(False)

    def _language_activated(self, index: int) -> None:
        code = str(self.language_box.itemData(index))
        self.language_chosen.emit(code)
        self.restart_notice.setVisible(i18n.resolve(code) != i18n.current())
