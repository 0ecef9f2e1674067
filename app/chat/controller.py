"""What happens when the user sends, stops, regenerates, edits, deletes and switches chats.

The controller holds the conversation on screen and the replies being written (at most one per
conversation), with its jobs composed in: the history (``history.py``), starting a reply
(``sending.py``) and showing its progress (``reply_events.py``). The chat history is read and
written off the UI thread: UI-initiated reads and writes go through one single-thread pool (so
they apply in order), and a reply's turn is written by its GenerationWorker.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from app.chat.chat_state import ChatState
from app.chat.composer import Composer
from app.chat.history import ChatHistory
from app.chat.message.widget import MessageWidget
from app.chat.reply_events import ReplyEvents
from app.chat.sending import Sending
from app.chat.view import ChatView
from app.common.engine_service import EngineService

if TYPE_CHECKING:
    from engine.store import ChatSettings, Conversation, Preset


class ChatController(ChatState):
    def __init__(self, view: ChatView, composer: Composer, engine: EngineService) -> None:
        super().__init__(view, composer, engine)
        self.history = ChatHistory(self)
        self.reply_events = ReplyEvents(self)
        self.sending = Sending(self, self.reply_events)
        self.unsaved.saved.connect(self.notice)
        self.unsaved.saved_ids.connect(self.history.saved_at_last)
        view.edit_submitted.connect(self.edit_and_resend)
        view.regenerate_requested.connect(self.regenerate)
        view.delete_requested.connect(self.delete_message)
        view.version_requested.connect(self.show_version)
        view.branch_requested.connect(self.branch)
        view.continue_requested.connect(self.continue_reply)
        view.models = self.names.choices
        composer.send_requested.connect(self.send)
        composer.stop_requested.connect(self.stop)

    # -- the chat history (history.py) -----------------------------------------------------------

    def open_store(self) -> None:
        self.history.open_store()

    def close(self) -> None:
        self.history.close()

    def history_replaced(self) -> None:
        self.history.history_replaced()

    def search(self, query: str) -> None:
        self.history.search(query)

    def new_chat(self) -> None:
        self.history.new_chat()

    def ensure_conversation(self, title: str, done: Callable[[Conversation], None]) -> None:
        self.history.ensure_conversation(title, done)

    def open_conversation(self, conv_id: int, message_id: int | None = None) -> None:
        self.history.open_conversation(conv_id, message_id)

    def rename(self, conv_id: int, title: str) -> None:
        self.history.rename(conv_id, title)

    def delete_conversation(self, conv_id: int) -> None:
        self.history.delete_conversation(conv_id)

    def export(self, conv_id: int, fmt: str, path: Path) -> None:
        self.history.export(conv_id, fmt, path)

    def import_file(self, path: Path) -> None:
        self.history.import_file(path)

    def show_version(self, widget: MessageWidget, step: int) -> None:
        self.history.show_version(widget, step)

    def branch(self, widget: MessageWidget) -> None:
        self.history.branch(widget)

    # -- the chat's prompt, settings, model and preset -------------------------------------------

    def set_system_prompt(self, text: str) -> None:
        if self.current is None:
            self.draft_system_prompt = text
            return
        conv_id = self.current.id
        self.current = replace(self.current, system_prompt=text)
        self.use_store(lambda s: s.set_system_prompt(conv_id, text))

    def set_settings(self, settings: ChatSettings) -> None:
        self._keep_settings(replace(settings, thinking=self.settings().thinking))

    def set_thinking(self, on: bool) -> None:
        """Whether the chat's model thinks before it answers (the header's Thinking switch, for
        a model whose template can turn it off); kept with the chat's settings, which the
        settings panel and presets leave as it is."""
        self._keep_settings(replace(self.settings(), thinking=on))

    def _keep_settings(self, settings: ChatSettings) -> None:
        """The chat's settings: the draft of a new chat, or saved with the open one."""
        if self.current is None:
            self.draft_settings = settings
            return
        conv_id = self.current.id
        self.current = replace(self.current, settings=settings)
        self.use_store(lambda s: s.set_settings(conv_id, settings))

    def set_chat_model(self, model: str | None) -> None:
        """Choose the model that answers in this chat from its next reply on; it is kept with
        the chat and comes back when the chat is opened again."""
        if self.current is None:
            self.draft_model = model
        elif self.current.model != model:
            conv_id = self.current.id
            self.current = replace(self.current, model=model)
            self.use_store(lambda s: s.set_model(conv_id, model))
        if model is not None:
            self.engine.warm(model)
        self.chat_model_changed.emit(model)

    def apply_preset(self, preset: Preset) -> None:
        """Use a preset's system prompt, settings and model (when it names one installed)."""
        self.set_system_prompt(preset.system_prompt)
        self.set_settings(preset.settings)
        if self.current is None:
            self.draft_preset = preset.name
        if preset.model and preset.model in self.names.labels:
            self.set_chat_model(preset.model)
        self.conversation_opened.emit(self.current)

    # -- replies (sending.py, reply_events.py) ---------------------------------------------------

    def send(self, text: str) -> bool:
        return self.sending.send(text)

    def regenerate(self, widget: MessageWidget, model: str | None = None) -> None:
        self.sending.regenerate(widget, model)

    def edit_and_resend(self, widget: MessageWidget, text: str) -> None:
        self.sending.edit_and_resend(widget, text)

    def continue_reply(self, widget: MessageWidget) -> None:
        self.sending.continue_reply(widget)

    def stop(self) -> None:
        if self.active is not None:
            self.active.request.cancel.set()

    def delete_message(self, widget: MessageWidget) -> None:
        """Hide the message at once; it leaves the disk only when the chance to undo it is over
        (app/chat/undo.py)."""
        if self.active is None:
            self.undo.delete(widget)

    def undo_delete(self) -> bool:
        return self.undo.undo()
