"""A reply's progress on screen: what its worker says (the conversation it created, the turn
saved, text, thinking, tool calls, the end) reaches the window's thread in order and is shown in
the chat it belongs to, when that chat is the one on screen."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject

from app.chat.chat_state import ActiveReply, ChatState
from app.chat.generation import GenerationSignals, ReplyOutcome
from app.common.i18n import tr

if TYPE_CHECKING:
    from engine.store import Conversation, Message


def refused_images(outcome: ReplyOutcome) -> bool:
    """Whether the engine refused the reply because its model cannot see images: a refused
    request (engine.images.require_vision), known by its code."""
    from engine.errors import VisionUnavailable

    return outcome.code == VisionUnavailable.code


class _Relay(QObject):
    """Hands one reply's worker signals to the chat with the reply they belong to: a QObject of
    the window's thread, so that they arrive there, in order."""

    def __init__(self, events: ReplyEvents, active: ActiveReply) -> None:
        super().__init__(events.chat)
        self._e = events
        self._a = active

    def wire(self, signals: GenerationSignals) -> None:
        signals.conversation_created.connect(self.conversation_created)
        signals.turn_saved.connect(self.turn_saved)
        signals.chunk_received.connect(self.chunk_received)
        signals.call_changed.connect(self.call_changed)
        signals.reasoning_received.connect(self.reasoning_received)
        signals.reply_finished.connect(self.reply_finished)
        signals.save_delayed.connect(self._e.chat.notice)

    def conversation_created(self, conversation: Conversation) -> None:
        self._e.conversation_created(self._a, conversation)

    def turn_saved(self, user: Message | None, reply: Message) -> None:
        self._e.turn_saved(self._a, user, reply)

    def chunk_received(self, reply_id: int, text: str) -> None:
        self._e.chunk_received(self._a, reply_id, text)

    def call_changed(self, reply_id: int, call: dict[str, Any]) -> None:
        self._e.call_changed(self._a, reply_id, call)

    def reasoning_received(self, reply_id: int, text: str) -> None:
        self._e.reasoning_received(self._a, reply_id, text)

    def reply_finished(self, outcome: ReplyOutcome) -> None:
        self._e.reply_finished(self._a, outcome)


class ReplyEvents:
    def __init__(self, chat: ChatState) -> None:
        self.chat = chat
        self._consent_wired: set[int] = set()

    def follow(self, active: ActiveReply, signals: GenerationSignals) -> None:
        """Show what this reply's worker says from now on."""
        relay = _Relay(self, active)
        active.relay = relay
        relay.wire(signals)

    def refresh_versions(self) -> None:
        """Each message's ‹ n/m ›, from the history (after a new version was written)."""
        chat = self.chat
        if chat.current is None:
            return
        conv_id = chat.current.id

        def shown(path: list[Message]) -> None:
            if chat.on_screen(conv_id):
                for message in path:
                    widget = chat.view.message_widget(message.id)
                    if widget is not None:
                        widget.set_versions(message.versions)

        chat.use_store(lambda s: s.messages(conv_id), shown)

    def conversation_created(self, active: ActiveReply, conversation: Conversation) -> None:
        chat = self.chat
        active.conversation_id = conversation.id
        chat.show_busy()
        if chat.current is None and active.view_token == chat.opening:
            chat.current = conversation
            chat.conversation_opened.emit(conversation)
        chat.refresh_list()

    def turn_saved(self, active: ActiveReply, user: Message | None, reply: Message) -> None:
        chat = self.chat
        active.reply_id = reply.id
        if not chat.on_screen(reply.conversation_id):
            return
        pending = [w for w in chat.view.messages if w.message_id is None]
        for widget in pending:
            if widget.role == "assistant":
                widget.set_message_id(reply.id)
            elif user is not None:
                widget.set_message_id(user.id)
                widget.set_image_paths([image.path for image in user.images])
        if chat.view.message_widget(reply.id) is None:
            return
        chat.reply_started.emit()

    def chunk_received(self, active: ActiveReply, reply_id: int, text: str) -> None:
        if active.reply_id is None:
            active.reply_id = reply_id
        active.parts.append(text)
        if self.chat.on_screen(active.conversation_id):
            widget = self.chat.view.message_widget(reply_id)
            if widget is not None:
                widget.append(text)

    def reasoning_received(self, active: ActiveReply, reply_id: int, text: str) -> None:
        if not self.chat.on_screen(active.conversation_id):
            return
        widget = self.chat.view.message_widget(reply_id)
        if widget is not None:
            widget.append_reasoning(text)

    def call_changed(self, active: ActiveReply, reply_id: int, call: dict[str, Any]) -> None:
        if not self.chat.on_screen(active.conversation_id):
            return
        widget = self.chat.view.message_widget(reply_id)
        if widget is None:
            return
        if reply_id not in self._consent_wired:
            self._consent_wired.add(reply_id)
            widget.call_decided.connect(self._call_decided)
        widget.show_call(call)
        if call.get("state") == "asking":
            self.chat.view.scroll_to_bottom()

    def _call_decided(self, call_id: str, decision: str) -> None:
        answer = self.chat.answer_call
        if answer is None or decision not in ("once", "always", "deny"):
            return
        if not answer(call_id, decision):  # type: ignore[arg-type]
            self.chat.notice.emit(tr("Chat", "That tool call is no longer waiting for an answer."))

    def reply_finished(self, active: ActiveReply, outcome: ReplyOutcome) -> None:
        chat = self.chat
        if active in chat.replies:
            chat.replies.remove(active)
        if active.relay is not None:
            active.relay.deleteLater()
        chat.show_busy()
        chat.unsaved.watch()
        message = outcome.message
        if chat.on_screen(outcome.conversation_id):
            widget = chat.view.message_widget(message.id) if message is not None else None
            if widget is None:
                pending = [w for w in chat.view.messages if w.status == "streaming"]
                widget = pending[-1] if pending else None
            if widget is not None:
                if message is not None:
                    if widget.message_id is None:
                        widget.set_message_id(message.id)
                    if message.content != widget.text:  # the history is the reference
                        if message.content.startswith(widget.text):
                            widget.append(message.content[len(widget.text) :])
                        else:
                            widget.set_text(message.content)
                    widget.finish(message.status, message.meta)
                    if message.id in chat.unsaved.pending:
                        widget.set_unsaved(True)
                else:
                    error = outcome.error or tr("Chat", "The reply failed.")
                    widget.finish("error", {"error": error})
            chat.view.update_regenerate()
            chat.notices.update_context()
            self.refresh_versions()
        final = outcome.final
        stats = final.stats if final is not None else None
        if stats is not None:
            chat.notices.counted(stats.prompt_tokens, outcome.prompt_chars)
        if outcome.error and not outcome.crashed:
            chat.notice.emit(outcome.error)
            if refused_images(outcome):  # the engine knew better than the status
                chat.notices.images_refused(outcome.error)
        chat.engine.refresh_status()
        chat.refresh_list()
        chat.reply_finished.emit(outcome)
