"""Light and dark themes that follow the OS, with an override, and a scalable font.

Colours live in one small table per scheme; widgets ask for them by role through ``colors()`` or
use the QPalette (which is set from the same table), so nothing hard-codes a colour that only works
on one background.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QColor, QFont, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

Scheme = Literal["light", "dark"]
Preference = Literal["system", "light", "dark"]

FONT_SCALE_MIN = 0.7
FONT_SCALE_MAX = 2.0
FONT_SCALE_STEP = 0.1


@dataclass(frozen=True, slots=True)
class Colors:
    window: str
    base: str
    sidebar: str
    text: str
    muted: str
    border: str
    accent: str
    accent_text: str
    user_bubble: str
    code_bg: str
    code_border: str
    inline_code_bg: str
    warning_bg: str
    warning_text: str
    error_bg: str
    error_text: str
    ok: str
    pygments_style: str


LIGHT = Colors(
    window="#f6f7f9",
    base="#ffffff",
    sidebar="#eef0f3",
    text="#1d2025",
    muted="#5f6670",
    border="#d6d9de",
    accent="#2563eb",
    accent_text="#ffffff",
    user_bubble="#e8effc",
    code_bg="#f6f8fa",
    code_border="#d8dee4",
    inline_code_bg="#eceff3",
    warning_bg="#fff4d6",
    warning_text="#5c4300",
    error_bg="#fde2e1",
    error_text="#7a1712",
    ok="#1a7f37",
    pygments_style="default",
)

DARK = Colors(
    window="#1c1d20",
    base="#232428",
    sidebar="#18191c",
    text="#e4e6ea",
    muted="#9aa1ab",
    border="#3a3d44",
    accent="#5b93ff",
    accent_text="#0d1117",
    user_bubble="#2b3446",
    code_bg="#16171a",
    code_border="#34373d",
    inline_code_bg="#2f3137",
    warning_bg="#4a3b10",
    warning_text="#ffe7a3",
    error_bg="#4d1f1d",
    error_text="#ffd3cf",
    ok="#4ac26b",
    pygments_style="github-dark",
)


def colors_for(scheme: Scheme) -> Colors:
    return DARK if scheme == "dark" else LIGHT


def palette_for(c: Colors) -> QPalette:
    p = QPalette()
    roles = {
        QPalette.ColorRole.Window: c.window,
        QPalette.ColorRole.WindowText: c.text,
        QPalette.ColorRole.Base: c.base,
        QPalette.ColorRole.AlternateBase: c.sidebar,
        QPalette.ColorRole.Text: c.text,
        QPalette.ColorRole.Button: c.base,
        QPalette.ColorRole.ButtonText: c.text,
        QPalette.ColorRole.ToolTipBase: c.base,
        QPalette.ColorRole.ToolTipText: c.text,
        QPalette.ColorRole.PlaceholderText: c.muted,
        QPalette.ColorRole.Highlight: c.accent,
        QPalette.ColorRole.HighlightedText: c.accent_text,
        QPalette.ColorRole.Link: c.accent,
        QPalette.ColorRole.LinkVisited: c.accent,
        QPalette.ColorRole.Mid: c.border,
        QPalette.ColorRole.Midlight: c.border,
        QPalette.ColorRole.Dark: c.border,
        QPalette.ColorRole.Light: c.base,
        QPalette.ColorRole.Shadow: c.border,
        QPalette.ColorRole.BrightText: c.error_text,
    }
    for role, value in roles.items():
        p.setColor(role, QColor(value))
    muted = QColor(c.muted)
    for role in (
        QPalette.ColorRole.Text,
        QPalette.ColorRole.WindowText,
        QPalette.ColorRole.ButtonText,
    ):
        p.setColor(QPalette.ColorGroup.Disabled, role, muted)
    return p


def system_scheme() -> Scheme:
    hints = QGuiApplication.styleHints()
    return "dark" if hints.colorScheme() == Qt.ColorScheme.Dark else "light"


def stylesheet(c: Colors) -> str:
    """Only what the palette cannot say: surfaces with their own background, and button shapes."""
    return f"""
    QWidget#Sidebar {{ background: {c.sidebar}; border-right: 1px solid {c.border}; }}
    QWidget#ChatSurface, QScrollArea#ChatScroll, QWidget#ChatContents {{ background: {c.base}; }}
    QFrame#UserBubble {{ background: {c.user_bubble}; border-radius: 12px; }}
    QFrame#Composer {{
        background: {c.base}; border: 1px solid {c.border}; border-radius: 12px;
    }}
    QFrame#Composer[focused="true"] {{ border: 1px solid {c.accent}; }}
    QFrame#Banner {{ background: {c.error_bg}; border-bottom: 1px solid {c.border}; }}
    QFrame#Banner QLabel {{ color: {c.error_text}; }}
    QFrame#Notice {{ background: {c.warning_bg}; border-radius: 8px; }}
    QFrame#SourcesPanel {{
        background: {c.sidebar}; border: 1px solid {c.border}; border-radius: 8px;
    }}
    QFrame#ToolCall {{
        background: {c.sidebar}; border: 1px solid {c.border}; border-radius: 8px;
    }}
    QFrame#ToolCall[asking="true"] {{
        background: {c.warning_bg}; border: 1px solid {c.warning_text};
    }}
    QFrame#ToolCall QLabel#ToolTitle {{ font-weight: 600; }}
    QFrame#ToolCall QLabel#ToolDetail {{
        font-family: monospace; background: {c.base}; border: 1px solid {c.border};
        border-radius: 4px; padding: 4px;
    }}
    QFrame#Notice QLabel {{ color: {c.warning_text}; }}
    QLabel#ImageError {{ color: {c.error_text}; }}
    QFrame#ImageChip {{ border: 1px solid {c.border}; border-radius: 8px; background: {c.base}; }}
    QToolButton#ChipRemove {{
        background: {c.text}; color: {c.base}; border: none; border-radius: 9px;
        font-weight: 700; padding: 0px;
    }}
    QToolButton#FileChipRemove {{
        background: transparent; color: {c.muted}; border: none; border-radius: 8px;
        font-weight: 700; padding: 0px 4px;
    }}
    QToolButton#FileChipRemove:hover {{ background: {c.inline_code_bg}; color: {c.text}; }}
    QToolButton#AttachButton {{
        border: 1px solid {c.border}; border-radius: 8px; color: {c.muted};
        font-size: 15pt; padding: 0px 8px 2px 8px;
    }}
    QToolButton#AttachButton:hover {{ background: {c.inline_code_bg}; color: {c.text}; }}
    QLabel#MessageImage {{ background: {c.border}; border-radius: 6px; }}
    QLabel[muted="true"] {{ color: {c.muted}; }}
    QLabel#RoleLabel {{ font-weight: 600; }}
    QLabel#Badge {{
        color: {c.warning_text}; background: {c.warning_bg}; border-radius: 6px;
        padding: 1px 6px;
    }}
    QLabel#ErrorBadge {{
        color: {c.error_text}; background: {c.error_bg}; border-radius: 6px; padding: 1px 6px;
    }}
    QToolButton#MessageAction {{
        border: none; color: {c.muted}; padding: 2px 6px; border-radius: 6px;
    }}
    QToolButton#MessageAction:hover {{ background: {c.inline_code_bg}; color: {c.text}; }}
    QToolButton#MessageAction::menu-indicator {{ image: none; width: 0px; }}
    QPushButton#Primary {{
        background: {c.accent}; color: {c.accent_text}; border: none; border-radius: 8px;
        padding: 6px 14px; font-weight: 600;
    }}
    QPushButton#Primary:disabled {{ background: {c.border}; color: {c.muted}; }}
    QPushButton#Secondary {{
        background: transparent; color: {c.text}; border: 1px solid {c.border};
        border-radius: 8px; padding: 6px 14px;
    }}
    QPushButton#Secondary:hover {{ background: {c.inline_code_bg}; }}
    QPushButton#Secondary:disabled {{ color: {c.muted}; }}
    QListView#ConversationList {{ background: transparent; border: none; outline: none; }}
    QListView#SettingsNav {{ background: transparent; border: none; outline: none; }}
    QListView#SettingsNav::item {{ padding: 7px 10px; border-radius: 8px; margin: 1px 0; }}
    QListView#SettingsNav::item:selected {{ background: {c.user_bubble}; color: {c.text}; }}
    QListView#SettingsNav::item:hover:!selected {{ background: {c.inline_code_bg}; }}
    QScrollArea#SettingsSection, QWidget#SettingsBody {{ background: transparent; }}
    QFrame#FileChip {{ border: 1px solid {c.border}; border-radius: 8px; background: {c.base}; }}
    QListView#ConversationList::item {{ padding: 7px 8px; border-radius: 8px; margin: 1px 6px; }}
    QListView#ConversationList::item:selected {{ background: {c.user_bubble}; color: {c.text}; }}
    QListView#ConversationList::item:hover:!selected {{ background: {c.inline_code_bg}; }}
    QLineEdit#Search {{
        border: 1px solid {c.border}; border-radius: 8px; padding: 5px 8px;
        background: {c.base};
    }}
    QProgressBar#ContextMeter {{
        border: 1px solid {c.border}; border-radius: 4px; background: {c.base};
        max-height: 8px; min-width: 80px;
    }}
    QProgressBar#ContextMeter::chunk {{ background: {c.accent}; border-radius: 3px; }}
    QProgressBar#ContextMeter[warn="true"]::chunk {{ background: #d97706; }}
    QProgressBar#ContextMeter[full="true"]::chunk {{ background: #dc2626; }}
    QTabBar::tab {{ padding: 6px 14px; }}
    QFrame#DownloadRow {{ border: 1px solid {c.border}; border-radius: 8px; background: {c.base}; }}
    QLabel#DownloadError {{ color: {c.error_text}; }}
    QFrame#ModelCard {{ border: 1px solid {c.border}; border-radius: 8px; background: {c.base}; }}
    QLabel#FitOk {{ color: {c.ok}; }}
    QLabel#FitWarn {{ color: {c.warning_text}; }}
    QLabel#FitBad {{ color: {c.error_text}; }}
    QLabel#Muted {{ color: {c.muted}; }}
    QFrame#EngineConnection {{
        background: {c.sidebar}; border: 1px solid {c.border}; border-radius: 8px;
    }}
    QLabel#Fingerprint {{ font-family: monospace; }}
    QToolButton#BuildsButton {{
        border: 1px solid {c.border}; border-radius: 6px; padding: 4px 10px;
    }}
    QProgressBar#DownloadBar {{
        border: 1px solid {c.border}; border-radius: 4px; background: {c.base}; max-height: 8px;
    }}
    QProgressBar#DownloadBar::chunk {{ background: {c.accent}; border-radius: 3px; }}
    QToolButton#MenuButton {{
        border: 1px solid {c.border}; border-radius: 8px; padding: 4px 10px; font-weight: 600;
    }}
    QToolButton#MenuButton::menu-indicator {{ image: none; width: 0px; }}
    QToolButton#MenuButton:hover {{ background: {c.inline_code_bg}; }}
    QStatusBar {{ border-top: 1px solid {c.border}; }}
    QStatusBar::item {{ border: none; }}
    QStatusBar QPushButton {{ text-align: left; padding: 2px 6px; border: none; }}
    QStatusBar QPushButton:hover {{ background: {c.inline_code_bg}; border-radius: 6px; }}
    """


class ThemeManager(QObject):
    """Owns the scheme and font scale; re-applies both when the OS or the user changes them."""

    theme_changed = Signal(str)
    font_scale_changed = Signal(float)

    def __init__(self, app: QApplication, preference: Preference = "system") -> None:
        super().__init__(app)
        self._app = app
        self._preference: Preference = preference
        self._base_point_size = app.font().pointSizeF() if app.font().pointSizeF() > 0 else 10.0
        self._scale = 1.0
        self.scheme: Scheme = "light"
        app.setStyle("Fusion")
        app.styleHints().colorSchemeChanged.connect(self._os_scheme_changed)
        self.apply()

    @property
    def preference(self) -> Preference:
        return self._preference

    @property
    def colors(self) -> Colors:
        return colors_for(self.scheme)

    @property
    def font_scale(self) -> float:
        return self._scale

    def set_preference(self, preference: Preference) -> None:
        self._preference = preference
        self.apply()

    def apply(self) -> None:
        scheme = system_scheme() if self._preference == "system" else self._preference
        self.scheme = scheme
        c = colors_for(scheme)
        self._app.setPalette(palette_for(c))
        self._app.setStyleSheet(stylesheet(c))
        self.theme_changed.emit(scheme)

    def set_font_scale(self, scale: float) -> None:
        scale = round(min(FONT_SCALE_MAX, max(FONT_SCALE_MIN, scale)), 2)
        if scale == self._scale:
            return
        self._scale = scale
        font = QFont(self._app.font())
        font.setPointSizeF(self._base_point_size * scale)
        self._app.setFont(font)
        self.font_scale_changed.emit(scale)

    def zoom_in(self) -> None:
        self.set_font_scale(self._scale + FONT_SCALE_STEP)

    def zoom_out(self) -> None:
        self.set_font_scale(self._scale - FONT_SCALE_STEP)

    def zoom_reset(self) -> None:
        self.set_font_scale(1.0)

    def _os_scheme_changed(self, _scheme: Qt.ColorScheme) -> None:
        if self._preference == "system":
            self.apply()
