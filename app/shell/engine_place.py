"""Which computer's engine the window uses, shown: the status bar's words and security, the
Models page and chat settings told that nothing is planned or loaded here meanwhile, another
computer's models in a tab of their own, and the origins allowed to use this one's when shared."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QWidget

from app.chat.settings import SettingsPanel
from app.chat.view import ChatView
from app.common.document_encoder import DocumentEncoder
from app.models.view import ModelsView
from app.remote.engine_mode import EngineMode
from app.remote.lan_share import SHARED_ORIGINS_SETTING
from app.shell.status_bar import StatusBar

if TYPE_CHECKING:
    from engine.remote import RemoteEngine


class EnginePlace:
    def __init__(
        self,
        mode: EngineMode,
        status: StatusBar,
        models_view: ModelsView,
        settings_panel: SettingsPanel,
        view: ChatView,
        encoder: DocumentEncoder,
        save_setting: Callable[[str, object], None],
    ) -> None:
        self.status, self.models_view, self.settings_panel = status, models_view, settings_panel
        self.view, self.encoder, self.save_setting = view, encoder, save_setting
        mode.engine_text_changed.connect(status.set_engine_text)
        mode.notified.connect(status.notify)
        mode.remote_shown.connect(self._show_remote)
        mode.models_tab_shown.connect(self._show_remote_models)
        mode.models_tab_hidden.connect(self._hide_remote_models)
        mode.share.origins_changed.connect(self._save_shared_origins)

    def _save_shared_origins(self, patterns: list[str]) -> None:
        self.save_setting(SHARED_ORIGINS_SETTING, patterns)

    def _show_remote(self, remote: RemoteEngine | None) -> None:
        note = remote.note if remote is not None else None
        self.status.set_remote(remote.where if remote else None, remote.security if remote else "")
        self.models_view.set_remote(note)
        self.settings_panel.set_remote(note)
        self.view.set_engine_place(remote.where if remote is not None else None)
        self.encoder.forget()

    def _show_remote_models(self, tab: QWidget, title: str) -> None:
        tabs = self.models_view.tabs
        index = tabs.indexOf(tab)
        if index < 0:
            tabs.insertTab(0, tab, title)
        else:
            tabs.setTabText(index, title)
        tabs.setCurrentWidget(tab)

    def _hide_remote_models(self, tab: QWidget) -> None:
        index = self.models_view.tabs.indexOf(tab)
        if index >= 0:
            self.models_view.tabs.removeTab(index)
