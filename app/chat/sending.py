"""Starting a reply: a new question, a new version of a reply or of a question, or more of a reply
that stopped at its length limit. Each waits for a delete that can still be undone, so that the
model is sent what the chat shows, then asks the engine through a GenerationWorker."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from app.chat.attachments import Attachment
from app.chat.chat_state import ActiveReply, ChatState
from app.chat.generation import GenerationRequest, GenerationWorker, Mode, NewConversation
from app.chat.history import title_from
from app.chat.message.images import ImageRef
from app.chat.message.widget import MessageWidget
from app.chat.reply_events import ReplyEvents
from app.common.i18n import tr


def _ref(attachment: Attachment) -> ImageRef:
    width, height = attachment.image.original
    image = attachment.image
    return ImageRef(attachment.name, width, height, image.mime, data=image.encoded)


class Sending:
    def __init__(self, chat: ChatState, events: ReplyEvents) -> None:
        self.chat = chat
        self.events = events

    def send(self, text: str) -> bool:
        """Send what the composer holds (text, images or both). False (and the text and images
        stay) when it cannot go yet."""
        chat = self.chat
        text = text.strip()
        attached = list(chat.composer.attachments)
        if not text and not attached:
            return False
        if chat.store is None:
            chat.notice.emit(
                tr("Chat", "The chat history is still opening; try again in a moment.")
            )
            return False
        if chat.active is not None:
            chat.notice.emit(
                tr(
                    "Chat",
                    "Cove is still answering in this chat. Stop the reply (Esc), wait for it, or "
                    "start a new chat meanwhile.",
                )
            )
            return False
        blind = chat.notices.blind_model()
        if attached and blind:
            # Never sent without them, never dropped: they wait while the user picks a model.
            chat.notices.images_held(blind)
            return False
        chat.composer.take_text()
        chat.composer.take_images()

        def start() -> None:
            new = None
            if chat.current is None:
                title = title_from(text) if text else title_from(attached[0].name)
                new = NewConversation(
                    title, chat.draft_system_prompt, chat.draft_settings, chat.draft_model
                )
            widget = chat.view.add_message("user")
            widget.set_text(text)
            widget.set_images([_ref(a) for a in attached])
            images = tuple((a.name, a.image) for a in attached)
            self._start("send", text=text, new=new, images=images)

        self._after_delete(start)
        return True

    def regenerate(self, widget: MessageWidget, model: str | None = None) -> None:
        """A new version of a reply (by ``model``, else the chat's); the one it replaces, and
        what followed it, stay as the earlier version."""
        chat = self.chat
        if chat.active is not None or widget.message_id is None or chat.current is None:
            return
        message_id = widget.message_id

        def start() -> None:
            shown = chat.view.message_widget(message_id)
            if shown is None:
                return
            chat.view.remove(chat.view.widgets_from(shown))
            self._start("regenerate", message_id=message_id, model=model)

        self._after_delete(start)

    def edit_and_resend(self, widget: MessageWidget, text: str) -> None:
        """A new version of a question, answered anew; the original and what followed it stay."""
        chat = self.chat
        if chat.active is not None or widget.message_id is None or chat.current is None:
            return
        message_id = widget.message_id

        def start() -> None:
            shown = chat.view.message_widget(message_id)
            if shown is None:
                return
            shown.set_text(text)
            shown.set_versions(())
            shown.set_message_id(None)  # the new version's id comes when it is saved
            chat.view.remove(chat.view.widgets_from(shown)[1:])
            self._start("edit", text=text, message_id=message_id)

        self._after_delete(start)

    def continue_reply(self, widget: MessageWidget) -> None:
        """Write more of a reply that stopped at its length limit, into the same reply."""
        chat = self.chat
        if chat.active is not None or widget.message_id is None or chat.current is None:
            return
        message_id = widget.message_id

        def start() -> None:
            shown = chat.view.message_widget(message_id)
            if shown is not None:
                self._start("continue", message_id=message_id, into=shown)

        self._after_delete(start)

    def _after_delete(self, start: Callable[[], None]) -> None:
        """Start a reply once a delete waiting for its undo is done: the model is sent what the
        chat shows."""
        self.chat.commit_delete(then=start)

    def _resident(self, model: str) -> bool:
        status = self.chat.engine.status
        if status is None:
            return False
        if status.model == model:
            return True
        return any(r.model == model for r in status.residents)

    def _start(
        self,
        mode: Mode,
        *,
        text: str = "",
        message_id: int | None = None,
        new: NewConversation | None = None,
        images: tuple[tuple[str, Any], ...] = (),
        model: str | None = None,
        into: MessageWidget | None = None,
    ) -> None:
        chat = self.chat
        engine = chat.engine
        assert chat.store is not None
        status = engine.status
        # Another computer's engine answers with its own model (chosen in Settings › Engine).
        model = (model or chat.chat_model()) if engine.remote is None else None
        asked = model or engine.model or (status.model if status is not None else None)
        own = chat.chat_collection(chat.current.id if chat.current is not None else None)
        collection = chat.composer.collection or own
        documents = (
            chat.documents(collection) if collection and chat.documents is not None else None
        )
        cancel = threading.Event()
        # A continued reply goes on as plain text: tools are offered when a reply begins.
        offer = chat.tools is not None and documents is None and mode != "continue"
        tools = chat.tools(cancel) if offer and chat.tools is not None else None
        request = GenerationRequest(
            cancel=cancel,
            tools=tools,
            conversation_id=chat.current.id if chat.current is not None else None,
            mode=mode,
            params=chat.settings().to_params(),
            system_prompt=chat.system_prompt(),
            text=text,
            message_id=message_id,
            model_name=asked,
            model_label=chat.names.label(asked),
            new_conversation=new,
            documents=documents,
            images=images,
            see_images=not chat.notices.blind_model(),
        )
        active = ActiveReply(request, request.conversation_id, chat.opening)
        if into is not None:  # continued: the same reply, its text so far kept
            reply = into
            active.reply_id = into.message_id
            active.parts.append(into.text)
            reply.start_stream(into.text)
        else:
            reply = chat.view.add_message("assistant", label=chat.names.label(asked) or None)
            reply.start_stream()
        if into is not None:
            pass
        elif model is not None and model != engine.model and not self._resident(model):
            reply.set_waiting_text(
                tr("Chat", "Loading {model}…").format(model=chat.names.label(model) or model)
            )
        elif engine.loading:
            reply.set_waiting_text(tr("Chat", "Waiting for the model to finish loading…"))
        elif engine.engine is None:
            reply.set_waiting_text(tr("Chat", "Waiting for the engine to start…"))
        elif documents is not None:
            reply.set_waiting_text(
                tr("Chat", "Searching this chat's files…")
                if collection == own
                else tr("Chat", "Searching {name}…").format(name=collection)
            )
        else:
            reply.set_waiting_text(tr("Chat", "Thinking…"))
        chat.view.update_regenerate()
        chat.view.scroll_to_bottom()
        # The engine's own model is asked for as such; another by name, loaded on demand.
        chosen = model if model is not None and model != engine.model else None
        run = (lambda: engine.chat_fn(chosen)) if chosen is not None else engine.chat_fn
        worker = GenerationWorker(chat.store, run, request, chat.model_images, chat.unsaved.pending)
        active.worker = worker
        self.events.follow(active, worker.signals)
        worker.signals.engine_crashed.connect(engine.report_crash)
        chat.replies.append(active)
        chat.show_busy()
        engine.run(worker)
