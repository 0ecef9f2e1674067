"""Where the window's models run, on the window's side: the engine the settings chose at start, the
person's choice from Settings › Engine (saved once it works), and a remote engine shown for what it
is: its name and protection in the status bar, its models under Models, and what only this
computer's engine does (loading, memory plans, the context size) disabled with the reason."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from app.common.engine_service import STARTER
from app.common.i18n import tr
from app.remote.choice import EngineChoice
from app.remote.lan_share import LanShare
from app.remote.models_tab import RemoteModelsTab
from engine.remote import short

if TYPE_CHECKING:
    from app.common.engine_service import EngineService
    from engine.client import EngineStatus
    from engine.remote import RemoteEngine


class EngineMode(QObject):
    """The engine the window uses, as chosen: it tells the window what to show through signals
    and saves the choice through the ``save`` it is handed; it never reaches into the window."""

    engine_text_changed = Signal(str)  # what the status bar says of the engine while it starts
    notified = Signal(str)  # a message for the person
    remote_shown = Signal(object)  # RemoteEngine | None: the engine in use is another computer's
    models_tab_shown = Signal(object, str)  # the tab of another computer's models and its title
    models_tab_hidden = Signal(object)

    def __init__(
        self,
        engine: EngineService,
        parent: QObject | None = None,
        *,
        save: Callable[[EngineChoice], None] | None = None,
    ) -> None:
        super().__init__(parent)
        self.engine = engine
        self._save_choice = save
        self.choice = EngineChoice()  # as saved
        self.local_model = STARTER  # what this computer's engine loads when it is chosen again
        self._pending: EngineChoice | None = None  # asked for, saved once connected
        self.share = LanShare(self)  # other computers using this computer's engine
        self.models_tab = RemoteModelsTab()
        self.models_tab.use_requested.connect(lambda model: self.engine.load(model))
        self.engine.remote_changed.connect(self._remote_changed)
        self.engine.remote_connected.connect(self._connected)
        self.engine.loaded.connect(self._loaded)

    def start(self) -> None:
        """At start: the engine the saved choice names."""
        choice = self.choice
        if choice.remote:
            from engine.remote import where

            self.engine_text_changed.emit(
                tr("Engine settings", "Connecting to {where}…").format(where=where(choice.url))
            )
            self._pending = choice
            self.engine.use_remote(choice.url, choice.api_key, choice.model, at_start=True)
        else:
            self.engine_text_changed.emit(tr("Engine settings", "Starting the engine…"))
            self.engine.start(model=self.local_model)

    # -- the person's choice ---------------------------------------------------------------------

    def connect_to(self, url: str, api_key: str, *, trust: str | None = None) -> None:
        """Use the engine at ``url`` (``remote_connected`` or ``remote_failed`` follows).
        ``trust``: the fingerprint of a changed certificate the person confirmed."""
        model = self.choice.model if url == self.choice.url else None
        self._pending = EngineChoice(True, url, api_key or None, model)
        self.engine.use_remote(url, api_key or None, model, trust_fingerprint=trust)

    def use_this_computer(self) -> None:
        self._pending = None
        self.choice = dataclasses.replace(self.choice, remote=False)
        self._save(self.choice)
        if self.engine.remote is not None or self.engine.engine is None:
            self.engine_text_changed.emit(tr("Engine settings", "Starting the engine…"))
            self.engine.use_local(self.local_model)

    def presented_fingerprint(
        self, url: str, done: Callable[[str], None], failed: Callable[[BaseException], None]
    ) -> None:
        """What the certificate at ``url`` shows now (off the UI thread: it connects)."""
        from engine.remote import presented_fingerprint

        self.engine.control_pool.submit(lambda: presented_fingerprint(url), done, failed)

    # -- what happened -----------------------------------------------------------------------------

    def _connected(self, remote: RemoteEngine) -> None:
        pending, self._pending = self._pending, None
        if pending is not None:
            self.choice = dataclasses.replace(pending, model=self.engine.model)
            self._save(self.choice)
        trusted = remote.trusted
        if trusted is not None and trusted.first_use:
            self.notified.emit(
                tr(
                    "Engine settings",
                    "First connection to {where}: its certificate {fingerprint}… is pinned. "
                    "Check the whole fingerprint (Settings › Engine) against that computer's.",
                ).format(where=remote.where, fingerprint=short(trusted.fingerprint))
            )

    def _loaded(self, status: EngineStatus) -> None:
        if self.engine.remote is None:
            return
        self.models_tab.set_current(status.model)
        if self.choice.remote and status.model != self.choice.model:
            self.choice = dataclasses.replace(self.choice, model=status.model)
            self._save(self.choice)

    def _remote_changed(self, remote: RemoteEngine | None) -> None:
        self.remote_shown.emit(remote)
        if remote is None:
            self.models_tab_hidden.emit(self.models_tab)
            return
        self.models_tab.show_models(remote.note, self.engine.remote_models, self.engine.model)
        self.models_tab_shown.emit(
            self.models_tab, tr("Engine settings", "On {where}").format(where=remote.where)
        )

    def _save(self, choice: EngineChoice) -> None:
        if self._save_choice is not None:
            self._save_choice(choice)
