"""What the chat's header chooses, kept in step with the chat: its model (from the Models page's
list, with what fits and how fast), the Thinking switch for a model that can turn its thinking
off, its preset (and the presets' menu), and the Undo of a deleted message."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QFileDialog, QInputDialog, QWidget

from app.chat.model_picker import ModelChoice
from app.common.i18n import tr
from app.common.plain_words import quant_text

if TYPE_CHECKING:
    from app.chat.controller import ChatController
    from app.chat.page import ChatPage
    from app.common.engine_service import EngineService
    from app.models.view import ModelsView
    from engine.store import Conversation, Preset


def json_filter() -> str:
    """The presets' file dialogs' filter."""
    return ";;".join((tr("Chat header", "JSON files (*.json)"), tr("Chat header", "All files (*)")))


class ChatSetup(QObject):
    def __init__(
        self,
        window: QWidget,
        controller: ChatController,
        page: ChatPage,
        models: ModelsView,
        engine: EngineService,
        names_known: Callable[[], None] = lambda: None,
    ) -> None:
        super().__init__(window)
        self.names_known = names_known
        self.window = window
        self.controller = controller
        self.page = page
        self.models = models
        self.engine = engine
        picker = page.model_picker
        for signal in (models.models_listed, models.verdicts_ready, models.speeds_ready):
            signal.connect(self.list_models)
        picker.model_chosen.connect(controller.set_chat_model)
        page.thinking_switch.chosen.connect(controller.set_thinking)
        controller.chat_model_changed.connect(self.show_model)
        controller.conversation_opened.connect(self._opened)
        engine.loaded.connect(lambda _status: self.show_model(controller.chat_model()))
        engine.started.connect(self._engine_started)
        engine.remote_changed.connect(self._remote_changed)
        controller.presets_changed.connect(self.list_presets)
        page.preset_picker.preset_chosen.connect(self._preset_chosen)
        menu = page.preset_menu
        menu.save_requested.connect(self.save_preset)
        menu.default_requested.connect(lambda p: self._set_default(p.name))
        menu.clear_default_requested.connect(lambda: self._set_default(None))
        menu.delete_requested.connect(self._delete_preset)
        menu.import_requested.connect(self.import_presets)
        menu.export_requested.connect(self.export_presets)
        controller.undo.offered.connect(self._undo_offered)
        page.undo_button.clicked.connect(controller.undo_delete)
        choose = QShortcut(QKeySequence("Ctrl+L"), window)
        choose.setContext(Qt.ShortcutContext.WindowShortcut)
        choose.activated.connect(self.choose_model)
        undo = QShortcut(QKeySequence("Ctrl+Z"), window)
        undo.setContext(Qt.ShortcutContext.WindowShortcut)
        undo.activated.connect(controller.undo_delete)

    # -- the model -------------------------------------------------------------------------------

    def _engine_started(self) -> None:
        if not self.models.entries:
            self.models.refresh()

    def list_models(self) -> None:
        """The installed models with the Models page's verdicts and speeds, as they arrive."""
        choices = []
        for entry in self.models.entries:
            verdict = self.models.verdicts.get(entry.id)
            speed = self.models.speeds.get(entry.id)
            choices.append(
                ModelChoice(
                    entry.id,
                    entry.name,
                    verdict.text if verdict is not None else "",
                    speed.words if speed is not None else "",
                    quant_text(entry.quantization) if entry.quantization else "",
                )
            )
        self.page.model_picker.set_choices(choices)
        self.controller.names.labels = dict(self.page.model_picker.labels())
        # Chats written before kept the engine's name of their model: its file's.
        self.controller.names.aliases = {
            alias: entry.id
            for entry in self.models.entries
            for alias in (
                entry.path.stem,
                entry.path.name,
                str(entry.path),
                str(entry.path.resolve()),
            )
        }
        self.names_known()  # the status bar names the model as the list does
        self.show_model(self.controller.chat_model())

    def show_model(self, model: str | None) -> None:
        """The chat's own model, else the one the engine has loaded."""
        self.page.model_picker.select(model or self.engine.model)
        self.show_thinking()

    def show_thinking(self) -> None:
        """The Thinking switch, with the chat's choice, where the model that answers in this chat
        can turn its thinking off."""
        settings = self.controller.settings()
        self.page.thinking_switch.show_choice(self._switches_thinking(), settings.thinking)

    def _switches_thinking(self) -> bool:
        """Whether the chat's model (else the engine's) has a template that can turn thinking
        off: from the installed models' list, else from the engine's status of its model."""
        status = self.engine.status
        loaded = status is not None and status.thinking_switch
        if self.engine.remote is not None:
            return loaded  # another computer's engine answers with its own model
        asked = self.controller.chat_model() or self.engine.model
        if asked is None:
            return loaded
        model = self.controller.names.aliases.get(asked, asked)
        entry = next((e for e in self.models.entries if e.id == model), None)
        if entry is not None:
            return entry.thinking_switch
        return loaded and asked == self.engine.model

    def _remote_changed(self, remote: object) -> None:
        """Another computer's engine answers with the model chosen for it (Settings › Engine):
        this computer's models are not offered meanwhile."""
        self.show_thinking()
        picker = self.page.model_picker
        picker.setEnabled(remote is None)
        picker.setToolTip(
            tr("Chat header", "The model that writes this chat's replies (Ctrl+L)")
            if remote is None
            else tr(
                "Chat header",
                "Another computer's engine is in use: its model is chosen in Settings › Engine",
            )
        )

    def choose_model(self) -> None:
        picker = self.page.model_picker
        picker.setFocus(Qt.FocusReason.ShortcutFocusReason)
        picker.showPopup()

    def _opened(self, conversation: Conversation | None) -> None:
        self.show_model(self.controller.chat_model())
        self.page.preset_picker.select(
            self.controller.draft_preset if conversation is None else None
        )
        self._menu_state()

    # -- presets ---------------------------------------------------------------------------------

    def list_presets(self) -> None:
        presets = self.controller.presets
        if presets is None:
            return
        default = presets.default()
        self.page.preset_picker.set_presets(presets.all(), default.name if default else None)
        if self.controller.current is None:
            self.page.preset_picker.select(self.controller.draft_preset)
        self._menu_state()

    def _menu_state(self) -> None:
        picker = self.page.preset_picker
        self.page.preset_menu.set_current(picker.current_preset(), picker.default_name())

    def _preset_chosen(self, preset: Preset) -> None:
        self.controller.apply_preset(preset)
        self.page.preset_picker.select(preset.name)
        self._menu_state()

    def _presets_do(self, action: str, job: object) -> None:
        """Run a change to the presets; a refusal (ValueError, OSError) is said, not raised."""
        try:
            assert callable(job)
            job()
        except (ValueError, OSError) as exc:
            self.controller.notice.emit(
                tr("Chat header", "{action}: {reason}").format(action=action, reason=exc)
            )
            return
        self.list_presets()

    def save_preset(self) -> None:
        from engine.store import Preset

        presets = self.controller.presets
        if presets is None:
            return
        name, ok = QInputDialog.getText(
            self.window, tr("Chat header", "Save preset"), tr("Chat header", "Name of the preset:")
        )
        if not ok or not name.strip():
            return
        # The Thinking switch is the chat's own (set_thinking): a preset starts a chat with it on.
        settings = replace(self.controller.settings(), thinking=True)
        prompt, model = self.controller.system_prompt(), self.controller.chat_model()
        preset = Preset(name, prompt, settings, model)
        self._presets_do(
            tr("Chat header", "The preset was not saved"), lambda: presets.save(preset)
        )
        self.page.preset_picker.select(preset.name)
        self._menu_state()

    def _set_default(self, name: str | None) -> None:
        presets = self.controller.presets
        if presets is not None:
            self._presets_do(
                tr("Chat header", "No default was set"), lambda: presets.set_default(name)
            )

    def _delete_preset(self, preset: Preset) -> None:
        presets = self.controller.presets
        if presets is not None:
            self._presets_do(
                tr("Chat header", "The preset was not deleted"), lambda: presets.delete(preset.name)
            )

    def import_presets(self) -> None:
        presets = self.controller.presets
        if presets is None:
            return
        path, _ = QFileDialog.getOpenFileName(
            self.window, tr("Chat header", "Import presets"), str(Path.home()), json_filter()
        )
        if path:
            self._presets_do(
                tr("Chat header", "The presets were not imported"),
                lambda: presets.import_json(Path(path)),
            )

    def export_presets(self) -> None:
        presets = self.controller.presets
        if presets is None:
            return
        path, _ = QFileDialog.getSaveFileName(
            self.window,
            tr("Chat header", "Export presets"),
            str(Path.home() / "cove-presets.json"),
            json_filter(),
        )
        if path:
            self._presets_do(
                tr("Chat header", "The presets were not exported"),
                lambda: presets.export_json(None, Path(path)),
            )

    # -- undo ------------------------------------------------------------------------------------

    def _undo_offered(self, message: str) -> None:
        had_focus = self.page.view_has_focus()
        self.page.show_undo(message)
        if message and had_focus:
            self.page.undo_button.setFocus(Qt.FocusReason.OtherFocusReason)
