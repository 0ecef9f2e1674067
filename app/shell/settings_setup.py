"""The Settings page's sections, built from the window's services when first shown.

The engine, MCP servers and saved state panels are the same widgets that stood alone as dialogs;
here they sit in the page (their own Close button hidden), so a setting is one place to look.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, Protocol

from PySide6.QtCore import QProcess, Qt
from PySide6.QtWidgets import QDialog, QWidget

from app.common import i18n
from app.common.i18n import tr
from app.settings.appearance import AppearanceSection
from app.settings.data import DataSection, HistoryHost
from app.settings.privacy import PrivacySection
from app.settings.view import SettingsView

if TYPE_CHECKING:
    from app.chat.state_dialog import SavedStateDialog
    from app.common.engine_service import EngineService
    from app.common.mcp_service import McpService
    from app.common.theme import ThemeManager
    from app.mcp.dialog import McpServersDialog
    from app.remote.engine_dialog import EngineDialog
    from app.remote.engine_mode import EngineMode


class SettingsHost(Protocol):
    """What the Settings page needs of the window."""

    theme: ThemeManager
    engine: EngineService
    engine_mode: EngineMode
    mcp: McpService
    state_limit: int

    @property
    def history_care(self) -> HistoryHost: ...

    def show_page(self, name: str) -> None: ...
    def show_shortcuts(self) -> Any: ...
    def set_theme(self, preference: str, *, save: bool = True) -> None: ...
    def save_mcp_enabled(self, on: bool) -> None: ...
    def save_state_limit(self, limit: int) -> None: ...
    def close(self) -> bool: ...


def _embedded(dialog: QDialog, close: QWidget | None) -> QDialog:
    """A dialog shown as a part of the page: no window of its own, no Close button."""
    dialog.setWindowFlags(Qt.WindowType.Widget)
    if close is not None:
        close.setVisible(False)
    return dialog


class SettingsSetup:
    def __init__(self, window: SettingsHost) -> None:
        self.window = window
        self.view = SettingsView()
        self.view.add_section("appearance", tr("Settings", "Appearance"), self._appearance)
        self.view.add_section("engine", tr("Settings", "Engine"), self._engine)
        self.view.add_section("mcp", tr("Settings", "MCP servers"), self._mcp)
        self.view.add_section("state", tr("Settings", "Saved state"), self._saved_state)
        self.view.add_section("privacy", tr("Settings", "Privacy"), PrivacySection)
        self.view.add_section("data", tr("Settings", "Data"), self._data)
        self.view.back_requested.connect(lambda: window.show_page("chat"))
        self.view.shortcuts_requested.connect(window.show_shortcuts)
        self.view.welcome_requested.connect(lambda: window.show_page("welcome"))
        self.view.section_shown.connect(self._shown)
        # Qt does not stop at a section built on first view; the first one is built now.
        self.view.show_section("appearance")

    # -- sections ------------------------------------------------------------------------------

    def _appearance(self) -> QWidget:
        section = AppearanceSection(self.window.theme, i18n.saved_language())
        section.theme_chosen.connect(self.window.set_theme)
        section.language_chosen.connect(i18n.save_language)
        section.restart_requested.connect(self.restart)
        return section

    def _engine(self) -> QWidget:
        from app.remote.engine_dialog import EngineDialog

        dialog = EngineDialog(self.window.engine_mode, self.view)
        return _embedded(dialog, dialog.close_button)

    def _mcp(self) -> QWidget:
        from app.mcp.dialog import McpServersDialog

        dialog = McpServersDialog(self.window.mcp, self.window.theme.colors, self.view)
        dialog.enabled.toggled.connect(self.window.save_mcp_enabled)
        return _embedded(dialog, dialog.close_button)

    def _saved_state(self) -> QWidget:
        from app.chat.state_dialog import SavedStateDialog

        dialog = SavedStateDialog(self.window.engine, self.window.state_limit, self.view)
        dialog.limit_changed.connect(self.window.save_state_limit)
        return _embedded(dialog, dialog.buttons)

    def _data(self) -> QWidget:
        return DataSection(self.window.history_care)

    def _shown(self, key: str) -> None:
        widget = self.view.section(key)
        if key == "data" and isinstance(widget, DataSection):
            widget.refresh()
        if key == "state" and widget is not None:
            from app.chat.state_dialog import SavedStateDialog

            assert isinstance(widget, SavedStateDialog)
            widget.refresh()

    # -- what the window asks for ----------------------------------------------------------------

    def appearance(self) -> AppearanceSection:
        widget = self.view.section("appearance")
        assert isinstance(widget, AppearanceSection)
        return widget

    def open(self, key: str) -> QWidget:
        self.window.show_page("settings")
        return self.view.show_section(key)

    def engine(self) -> EngineDialog:
        from app.remote.engine_dialog import EngineDialog

        widget = self.open("engine")
        assert isinstance(widget, EngineDialog)
        return widget

    def mcp(self) -> McpServersDialog:
        from app.mcp.dialog import McpServersDialog

        widget = self.open("mcp")
        assert isinstance(widget, McpServersDialog)
        return widget

    def saved_state(self) -> SavedStateDialog:
        from app.chat.state_dialog import SavedStateDialog

        widget = self.open("state")
        assert isinstance(widget, SavedStateDialog)
        return widget

    def restart(self) -> None:
        """Start Cove again with the same options, then close this window (its engine stops
        with it; the new one starts its own)."""
        if QProcess.startDetached(sys.executable, ["-m", "app", *sys.argv[1:]])[0]:
            self.window.close()
