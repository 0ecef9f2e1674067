"""What the engine says, shown across the window: a model loading (its progress, its end or
failure), the engine's status (the models in memory, the context, the speed probe's wait), a crash
and a restart. The status bar, the Models page, the composer's hint and the chat's speaker label
follow it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject

from app.chat.composer import Composer
from app.chat.controller import ChatController
from app.chat.settings import SettingsPanel
from app.chat.view import ChatView
from app.common.engine_service import STARTER, EngineService
from app.common.i18n import tr
from app.hardware.view import HardwareProbe, HardwareView
from app.models.view import ModelsView
from app.shell.banner import EngineBanner
from app.shell.status_bar import StatusBar
from engine.client import SPEED_WORK

if TYPE_CHECKING:
    from engine.client import EngineStatus


class EngineEvents(QObject):
    def __init__(
        self,
        engine: EngineService,
        controller: ChatController,
        status: StatusBar,
        banner: EngineBanner,
        models_view: ModelsView,
        composer: Composer,
        view: ChatView,
        settings_panel: SettingsPanel,
        hardware: tuple[HardwareView, HardwareProbe],
        save_setting: Callable[[str, Any], None],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.engine, self.controller, self.status, self.banner = engine, controller, status, banner
        self.models_view, self.composer, self.view = models_view, composer, view
        self.settings_panel = settings_panel
        self.hardware_view, self.probe = hardware
        self.save_setting = save_setting
        self._speed_waited = False  # the engine's speed probe was waiting at the last status
        e = engine
        e.load_started.connect(self._load_started)
        e.load_progressed.connect(self._load_progressed)
        e.loaded.connect(self._loaded)
        e.load_failed.connect(self._load_failed)
        e.status_changed.connect(self._status_changed)
        e.crashed.connect(self._crashed)
        e.restarted.connect(self._restarted)
        e.start_failed.connect(
            lambda msg: self.banner.show_crash(msg, [], tr("Window", "Cove's engine"))
        )
        banner.restart_requested.connect(e.restart)
        status.cancel_load_requested.connect(e.cancel_load)
        models_view.cancel_button.clicked.connect(e.cancel_load)
        models_view.load_requested.connect(lambda model: e.load(model))
        models_view.unload_requested.connect(e.unload)

    def restate_model(self) -> None:
        """The status bar again, with the models' names now known (no engine round trip)."""
        if self.engine.status is not None:
            self.status.set_status(self.engine.status)
            self.view.assistant_label = self._speaker(self.engine.status)

    def _speaker(self, status: EngineStatus) -> str:
        """What a reply without a model of its own on record is labelled: the model's name."""
        names = self.controller.names
        return names.display_name(status.model_path, status.model) or status.model or "Cove"

    def _load_started(self, model: str) -> None:
        name = self.controller.names.display_name(model) or (
            tr("Window", "the starter model") if model == STARTER else Path(model).name
        )
        self.status.show_loading(name)
        self.models_view.show_loading(True)
        self.composer.set_hint(
            tr(
                "Window",
                "The model is loading. You can write now; the reply starts once it is ready.",
            )
        )

    def _load_progressed(self, fraction: float) -> None:
        self.status.set_load_progress(fraction)
        self.models_view.set_progress(fraction)

    def _loaded(self, status: EngineStatus) -> None:
        self.status.hide_loading()
        self.models_view.show_loading(False)
        self.models_view.set_loaded(self.engine.model)
        self.composer.set_hint("")
        self.view.assistant_label = self._speaker(status)
        if self.engine.model and self.engine.remote is None:  # another computer's: EngineMode
            self.save_setting("model", self.engine.model)

    def _load_failed(self, message: str, cancelled: bool) -> None:
        self.status.hide_loading()
        self.models_view.show_loading(False)
        self.composer.set_hint("")
        self.status.notify(tr("Window", "Loading cancelled.") if cancelled else message)
        if not cancelled:
            self.models_view.details.setText(message)
        self.engine.refresh_status()

    def _status_changed(self, status: EngineStatus) -> None:
        self.status.set_status(status)
        self.models_view.set_residents(status.residents if self.engine.remote is None else ())
        self.settings_panel.set_loaded_context(status.n_ctx)
        # What runs on another computer is not this computer's hardware's doing.
        self.hardware_view.set_status(status if self.engine.remote is None else None)
        self.controller.notices.refresh()
        # The engine probes this computer's speed when it is idle: once done, the report (and
        # the recommendations' predicted speeds) is asked for again.
        waits = self.engine.remote is None and any(w.work == SPEED_WORK for w in status.background)
        if self._speed_waited and not waits:
            self.probe.refresh()
        self._speed_waited = waits

    def _crashed(self, message: str, log_lines: list[str]) -> None:
        self.banner.show_crash(message, log_lines)
        self.status.set_engine_text(tr("Window", "Engine stopped"))
        self.status.hide_loading()

    def _restarted(self) -> None:
        self.banner.setVisible(False)
        self.status.notify(tr("Window", "The engine was restarted."))
