"""What happens when the user sends, stops, regenerates, edits, deletes and switches chats.

The controller holds the conversation on screen and the one reply being written (there is at most
one: replies are serialised). The chat history is read and written off the UI thread: UI-initiated
reads and writes go through one single-thread pool (so they apply in order), and a reply's turn is
written by its GenerationWorker.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal

from app.chat.attachments import Attachment
from app.chat.composer import Composer
from app.chat.generation import (
    DocumentsRequest,
    GenerationRequest,
    GenerationSignals,
    GenerationWorker,
    Mode,
    NewConversation,
    ReplyOutcome,
)
from app.chat.message.images import ImageRef
from app.chat.message.widget import MessageWidget
from app.chat.model_images import ModelImages
from app.chat.model_names import ModelNames
from app.chat.notices import ChatNotices
from app.chat.undo import UndoDelete
from app.chat.unsaved import UnsavedReplies
from app.chat.view import ChatView
from app.common.engine_service import EngineService
from app.common.i18n import tr
from app.common.workers import WorkerPool
from engine.types import GenerationParams

if TYPE_CHECKING:
    from app.common.mcp_service import ToolsRequest
    from engine.mcp_servers.consent import Decision
    from engine.store import ChatSettings, Conversation, Message, SearchHit, Store
    from engine.store.presets import Preset, Presets

log = logging.getLogger(__name__)

TITLE_CHARS = 48


@dataclass(eq=False)
class ActiveReply:
    request: GenerationRequest
    conversation_id: int | None
    view_token: int  # which opening of the chat view the reply was started from
    reply_id: int | None = None
    parts: list[str] = field(default_factory=list)
    worker: GenerationWorker | None = None  # its signals object must outlive the run
    relay: _Relay | None = None

    @property
    def text(self) -> str:
        return "".join(self.parts)


class _Relay(QObject):
    """Hands one reply's worker signals to the controller with the reply they belong to: a
    QObject of the window's thread, so that they arrive there, in order."""

    def __init__(self, controller: ChatController, active: ActiveReply) -> None:
        super().__init__(controller)
        self._c = controller
        self._a = active

    def wire(self, signals: GenerationSignals) -> None:
        signals.conversation_created.connect(self.conversation_created)
        signals.turn_saved.connect(self.turn_saved)
        signals.chunk_received.connect(self.chunk_received)
        signals.call_changed.connect(self.call_changed)
        signals.reasoning_received.connect(self.reasoning_received)
        signals.reply_finished.connect(self.reply_finished)
        signals.save_delayed.connect(self._c.notice)

    def conversation_created(self, conversation: Conversation) -> None:
        self._c._conversation_created(self._a, conversation)

    def turn_saved(self, user: Message | None, reply: Message) -> None:
        self._c._turn_saved(self._a, user, reply)

    def chunk_received(self, reply_id: int, text: str) -> None:
        self._c._chunk_received(self._a, reply_id, text)

    def call_changed(self, reply_id: int, call: dict[str, Any]) -> None:
        self._c._call_changed(self._a, reply_id, call)

    def reasoning_received(self, reply_id: int, text: str) -> None:
        self._c._reasoning_received(self._a, reply_id, text)

    def reply_finished(self, outcome: ReplyOutcome) -> None:
        self._c._reply_finished(self._a, outcome)


def title_from(text: str) -> str:
    line = " ".join(text.strip().split())
    return line if len(line) <= TITLE_CHARS else line[: TITLE_CHARS - 1].rstrip() + "…"


class ChatController(QObject):
    store_opened = Signal()
    store_failed = Signal(str)
    history_reloaded = Signal()  # a restore or an import replaced what the history holds
    conversations_listed = Signal(list)
    search_found = Signal(list)
    conversation_opened = Signal(object)  # Conversation | None (a new, unsaved chat)
    conversation_deleted = Signal(int)
    generating_changed = Signal(bool)
    # The conversations whose replies are streaming now (frozenset of ids).
    answering_changed = Signal(object)
    reply_started = Signal()
    reply_finished = Signal(object)  # ReplyOutcome
    notice = Signal(str)
    # The chat's model changed (its name to ask for, or None: the engine's own).
    chat_model_changed = Signal(object)
    presets_changed = Signal()

    def __init__(self, view: ChatView, composer: Composer, engine: EngineService) -> None:
        super().__init__()
        self.view = view
        self.composer = composer
        self.engine = engine
        self.io = WorkerPool("store", 1)
        self.store: Store | None = None
        # Replies a full disk refused, saved again once there is room (app/chat/unsaved.py).
        self.unsaved = UnsavedReplies(self.io, lambda: self.store, self)
        self.unsaved.saved.connect(self.notice)
        self.unsaved.saved_ids.connect(self._saved_at_last)
        self.current: Conversation | None = None
        self.draft_system_prompt = ""
        self.draft_settings: ChatSettings | None = None
        # The replies streaming, each into its own conversation: one per conversation, and any
        # number of conversations at once (a document answer in one, a chat in another).
        self.replies: list[ActiveReply] = []
        self._opening = 0
        # Makes the request that answers from a collection (set by the window).
        self.documents: Callable[[str], DocumentsRequest] | None = None
        # The chat's own files' collection, or "" (set by the window: app/chat/chat_files.py).
        self.chat_collection: Callable[[int | None], str] = lambda _conversation: ""
        # The MCP servers' tools for a reply, and where the consent prompt's answers go (set by
        # the window).
        self.tools: Callable[[threading.Event], ToolsRequest | None] | None = None
        self.answer_call: Callable[[str, Decision], bool] | None = None
        self._consent_wired: set[int] = set()
        self.model_images = ModelImages()  # earlier images, prepared once for the next turns
        self.draft_model: str | None = None  # a new chat's model, before it is saved
        # The installed chat models and their labels (set by the window from the Models page).
        self.names = ModelNames()
        self.presets: Presets | None = None
        self.draft_preset: str | None = None
        # Deletes wait for their Undo; the history goes through the same ordered pool.
        # The context meter and the notice about images the model cannot see.
        self.notices = ChatNotices(view, composer, engine, self.system_prompt)
        self.undo = UndoDelete(view, self._io, lambda: self._opening, self.notices.update_context)
        view.edit_submitted.connect(self.edit_and_resend)
        view.regenerate_requested.connect(self.regenerate)
        view.delete_requested.connect(self.delete_message)
        view.version_requested.connect(self.show_version)
        view.branch_requested.connect(self.branch)
        view.continue_requested.connect(self.continue_reply)
        view.models = self.names.choices
        composer.send_requested.connect(self.send)
        composer.stop_requested.connect(self.stop)

    # -- the chat history ------------------------------------------------------------------------

    def open_store(self) -> None:
        def job() -> tuple[Store, list[Conversation], int | None]:
            from engine.store import Store

            store = Store()
            recovered = store.recover_interrupted()
            if recovered:
                log.info("marked %d reply(ies) interrupted after an unclean exit", recovered)
            last = store.get_setting("last_conversation")
            return store, store.list_conversations(), last if isinstance(last, int) else None

        def done(result: tuple[Store, list[Conversation], int | None]) -> None:
            from engine.store.presets import Presets

            self.store, conversations, last = result
            self.presets = Presets(self.store)
            self.presets_changed.emit()
            if self.current is None:
                self._apply_default_preset()
            self.store_opened.emit()
            self.conversations_listed.emit(conversations)
            ids = {c.id for c in conversations}
            if last in ids:
                self.open_conversation(last)
            elif conversations:
                self.open_conversation(conversations[0].id)

        self.io.submit(job, done, lambda exc: self.store_failed.emit(str(exc)))

    def close(self) -> None:
        """At exit: stop the replies (their text so far is saved) and close the history. A
        delete not undone by then is done."""
        self.commit_delete()
        for active in self.replies:
            active.request.cancel.set()
        self.engine.wait_for_replies(10_000)
        self.io.wait(5_000)
        self.unsaved.save_now()
        if self.store is not None:
            self.store.close()

    def _saved_at_last(self, ids: list[int]) -> None:
        for message_id in ids:
            widget = self.view.message_widget(message_id)
            if widget is not None:
                widget.set_unsaved(False)

    def history_replaced(self) -> None:
        """A restore or an import changed the history under the window: read it again, and
        keep the open chat where it still exists."""
        current = self.current.id if self.current is not None else None
        self.history_reloaded.emit()

        def done(conversations: list[Conversation]) -> None:
            self.conversations_listed.emit(conversations)
            ids = [c.id for c in conversations]
            if current in ids:
                self.open_conversation(current)
            elif ids:
                self.open_conversation(ids[0])

        self._io(lambda s: s.list_conversations(), done)

    def _io(self, fn: Any, done: Any = None) -> None:
        """Run ``fn(store)`` off the UI thread; errors become a notice."""
        store = self.store
        if store is None:
            self.notice.emit(
                tr("Chat", "The chat history is still opening; try again in a moment.")
            )
            return
        self.io.submit(lambda: fn(store), done, lambda exc: self.notice.emit(str(exc)))

    def refresh_list(self) -> None:
        self._io(lambda s: s.list_conversations(), self.conversations_listed.emit)

    def search(self, query: str) -> None:
        if not query:
            self.refresh_list()
            return

        def found(hits: list[SearchHit]) -> None:
            self.search_found.emit(hits)

        self._io(lambda s: s.search(query), found)

    # -- conversations ---------------------------------------------------------------------------

    def new_chat(self) -> None:
        self.commit_delete()
        self._opening += 1
        self.current = None
        self.draft_system_prompt = ""
        self.draft_settings = None
        self.draft_model = None
        self.draft_preset = None
        self._apply_default_preset()
        self.view.clear()
        self._show_busy()
        self.conversation_opened.emit(None)
        self.notices.refresh()
        self.composer.focus()

    def ensure_conversation(self, title: str, done: Callable[[Conversation], None]) -> None:
        """The open chat, saved first if it is a new one (files given to a chat need it)."""
        if self.current is not None:
            done(self.current)
            return
        token = self._opening
        new = NewConversation(
            title_from(title), self.draft_system_prompt, self.draft_settings, self.draft_model
        )

        def create(store: Store) -> Conversation:
            return store.create_conversation(
                title=new.title,
                system_prompt=new.system_prompt,
                settings=new.settings,
                model=new.model,
            )

        def created(conversation: Conversation) -> None:
            if self.current is None and token == self._opening:
                self.current = conversation
                self.conversation_opened.emit(conversation)
            self.refresh_list()
            done(conversation)

        self._io(create, created)

    def open_conversation(self, conv_id: int, message_id: int | None = None) -> None:
        if self.current is not None and self.current.id == conv_id and message_id is None:
            return
        self.commit_delete()
        self._opening += 1
        token = self._opening

        def job(store: Store) -> tuple[Conversation | None, list[Message]]:
            store.set_setting("last_conversation", conv_id)
            messages = store.messages(conv_id)
            if message_id is not None and message_id not in {m.id for m in messages}:
                found = store.get_message(message_id)  # a search hit in a version not shown
                if found is not None and found.conversation_id == conv_id:
                    messages = store.show_version(message_id)
            return store.get_conversation(conv_id), messages

        def done(result: tuple[Conversation | None, list[Message]]) -> None:
            if token != self._opening:
                return  # the user opened another one meanwhile
            conversation, messages = result
            if conversation is None:
                self.notice.emit(tr("Chat", "That conversation was deleted."))
                self.refresh_list()
                return
            self.current = conversation
            self.view.set_messages(messages, self._live_text, focus=message_id)
            self._show_busy()
            self.conversation_opened.emit(conversation)
            self.chat_model_changed.emit(self.chat_model())
            self.notices.refresh()

        self._io(job, done)

    def _live_text(self, message_id: int) -> str | None:
        for active in self.replies:
            if active.reply_id == message_id:
                return active.text
        return None

    def rename(self, conv_id: int, title: str) -> None:
        def done(conversation: Conversation) -> None:
            if self.current is not None and self.current.id == conv_id:
                self.current = conversation
            self.refresh_list()

        self._io(lambda s: s.rename_conversation(conv_id, title), done)

    def delete_conversation(self, conv_id: int) -> None:
        for active in self.replies:
            if active.conversation_id == conv_id:
                active.request.cancel.set()
        if self.current is not None and self.current.id == conv_id:
            self.new_chat()
        self._io(lambda s: s.delete_conversation(conv_id), lambda _r: self.refresh_list())
        self.conversation_deleted.emit(conv_id)
        # The model's state of the conversation, kept on disk to reopen it fast, goes with it.
        self.engine.forget_state(str(conv_id))

    def export(self, conv_id: int, fmt: str, path: Path) -> None:
        """JSON embeds the chat's images; Markdown links copies of them in a folder beside it."""

        def job(store: Store) -> Path:
            if fmt == "json":
                text = json.dumps(store.export_json(conv_id), indent=2, ensure_ascii=False)
            else:
                text = store.export_markdown(conv_id, images_folder(path))
            path.write_text(text, encoding="utf-8")
            return path

        self._io(job, lambda p: self.notice.emit(tr("Chat", "Exported to {path}").format(path=p)))

    def set_system_prompt(self, text: str) -> None:
        if self.current is None:
            self.draft_system_prompt = text
            return
        conv_id = self.current.id
        self.current = replace(self.current, system_prompt=text)
        self._io(lambda s: s.set_system_prompt(conv_id, text))

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
        self._io(lambda s: s.set_settings(conv_id, settings))

    def settings(self) -> ChatSettings:
        from engine.store import ChatSettings

        if self.current is not None:
            return self.current.settings
        return self.draft_settings or ChatSettings()

    def system_prompt(self) -> str:
        return self.current.system_prompt if self.current is not None else self.draft_system_prompt

    # -- the chat's model ------------------------------------------------------------------------

    def chat_model(self) -> str | None:
        """The model this chat asks for (None: whichever the engine has loaded)."""
        if self.current is not None:
            return self.names.known(self.current.model)
        return self.draft_model

    def _resident(self, model: str) -> bool:
        status = self.engine.status
        if status is None:
            return False
        if status.model == model:
            return True
        return status is not None and any(r.model == model for r in status.residents)

    def set_chat_model(self, model: str | None) -> None:
        """Choose the model that answers in this chat from its next reply on; it is kept with
        the chat and comes back when the chat is opened again."""
        if self.current is None:
            self.draft_model = model
        elif self.current.model != model:
            conv_id = self.current.id
            self.current = replace(self.current, model=model)
            self._io(lambda s: s.set_model(conv_id, model))
        if model is not None:
            self.engine.warm(model)
        self.chat_model_changed.emit(model)

    # -- presets ---------------------------------------------------------------------------------

    def apply_preset(self, preset: Preset) -> None:
        """Use a preset's system prompt, settings and model (when it names one installed)."""
        self.set_system_prompt(preset.system_prompt)
        self.set_settings(preset.settings)
        if self.current is None:
            self.draft_preset = preset.name
        if preset.model and preset.model in self.names.labels:
            self.set_chat_model(preset.model)
        self.conversation_opened.emit(self.current)

    def _apply_default_preset(self) -> None:
        preset = self.presets.default() if self.presets is not None else None
        if preset is None:
            return
        self.draft_system_prompt = preset.system_prompt
        self.draft_settings = preset.settings
        self.draft_preset = preset.name
        if preset.model and preset.model in self.names.labels:
            self.draft_model = preset.model

    def import_file(self, path: Path) -> None:
        """Bring a chat back from a JSON file (Cove's export or an OpenAI messages list)."""

        def job(store: Store) -> Conversation:
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, ValueError) as exc:
                raise ValueError(
                    tr("Chat", "{file} could not be read as JSON: {reason}").format(
                        file=path.name, reason=exc
                    )
                ) from None
            try:
                return store.import_json(data, path.stem)
            except ValueError as exc:
                raise ValueError(
                    tr("Chat", "{file} was not imported: {reason}").format(
                        file=path.name, reason=exc
                    )
                ) from None

        def done(conversation: Conversation) -> None:
            self.refresh_list()
            self.open_conversation(conversation.id)
            self.notice.emit(tr("Chat", "Imported {title}").format(title=conversation.title))

        self._io(job, done)

    # -- replies ---------------------------------------------------------------------------------

    @property
    def active(self) -> ActiveReply | None:
        """The reply streaming into the chat on screen, if any."""
        for active in self.replies:
            if self._on_screen(active.conversation_id) or (
                active.conversation_id is None and active.view_token == self._opening
            ):
                return active
        return None

    @property
    def generating(self) -> bool:
        """Whether the chat on screen is being answered."""
        return self.active is not None

    def _show_busy(self) -> None:
        """The view, the composer and the Stop action follow the chat on screen; the list marks
        every chat being answered."""
        busy = self.active is not None
        self.view.set_busy(busy)
        self.composer.set_generating(busy)
        self.generating_changed.emit(busy)
        self.answering_changed.emit(
            frozenset(a.conversation_id for a in self.replies if a.conversation_id is not None)
        )

    def send(self, text: str) -> bool:
        """Send what the composer holds (text, images or both). False (and the text and images
        stay) when it cannot go yet."""
        text = text.strip()
        attached = list(self.composer.attachments)
        if not text and not attached:
            return False
        if self.store is None:
            self.notice.emit(
                tr("Chat", "The chat history is still opening; try again in a moment.")
            )
            return False
        if self.active is not None:
            self.notice.emit(
                tr(
                    "Chat",
                    "Cove is still answering in this chat. Stop the reply (Esc), wait for it, or "
                    "start a new chat meanwhile.",
                )
            )
            return False
        blind = self.notices.blind_model()
        if attached and blind:
            # Never sent without them, never dropped: they wait while the user picks a model.
            self.notices.images_held(blind)
            return False
        self.composer.take_text()
        self.composer.take_images()

        def start() -> None:
            new = None
            if self.current is None:
                title = title_from(text) if text else title_from(attached[0].name)
                new = NewConversation(
                    title, self.draft_system_prompt, self.draft_settings, self.draft_model
                )
            widget = self.view.add_message("user")
            widget.set_text(text)
            widget.set_images([_ref(a) for a in attached])
            images = tuple((a.name, a.image) for a in attached)
            self._start("send", text=text, new=new, images=images)

        self._after_delete(start)
        return True

    def regenerate(self, widget: MessageWidget, model: str | None = None) -> None:
        """A new version of a reply (by ``model``, else the chat's); the one it replaces, and
        what followed it, stay as the earlier version."""
        if self.active is not None or widget.message_id is None or self.current is None:
            return
        message_id = widget.message_id

        def start() -> None:
            shown = self.view.message_widget(message_id)
            if shown is None:
                return
            self.view.remove(self.view.widgets_from(shown))
            self._start("regenerate", message_id=message_id, model=model)

        self._after_delete(start)

    def edit_and_resend(self, widget: MessageWidget, text: str) -> None:
        """A new version of a question, answered anew; the original and what followed it stay."""
        if self.active is not None or widget.message_id is None or self.current is None:
            return
        message_id = widget.message_id

        def start() -> None:
            shown = self.view.message_widget(message_id)
            if shown is None:
                return
            shown.set_text(text)
            shown.set_versions(())
            shown.set_message_id(None)  # the new version's id comes when it is saved
            self.view.remove(self.view.widgets_from(shown)[1:])
            self._start("edit", text=text, message_id=message_id)

        self._after_delete(start)

    def continue_reply(self, widget: MessageWidget) -> None:
        """Write more of a reply that stopped at its length limit, into the same reply."""
        if self.active is not None or widget.message_id is None or self.current is None:
            return
        message_id = widget.message_id

        def start() -> None:
            shown = self.view.message_widget(message_id)
            if shown is not None:
                self._start("continue", message_id=message_id, into=shown)

        self._after_delete(start)

    def show_version(self, widget: MessageWidget, step: int) -> None:
        """Show the previous or next version of a turn, and the newest path beneath it."""
        if self.active is not None or widget.message_id not in widget.versions:
            return
        at = widget.versions.index(widget.message_id) + step
        if not 0 <= at < len(widget.versions):
            return
        target = widget.versions[at]
        self.commit_delete()
        token = self._opening

        def shown(path: list[Message]) -> None:
            if token == self._opening:
                self.view.replace_tail(path)
                self.notices.update_context()
                focused = self.view.message_widget(target)
                if focused is not None:
                    focused.version_switch.setFocus()

        self._io(lambda s: s.show_version(target), shown)

    def branch(self, widget: MessageWidget) -> None:
        """A new chat with the turns up to this message; it opens at once."""
        if widget.message_id is None:
            return
        message_id = widget.message_id
        self.commit_delete()

        def opened(conversation: Conversation) -> None:
            self.refresh_list()
            self.open_conversation(conversation.id)
            self.notice.emit(
                tr("Chat", "Branched into a new chat: {title}").format(title=conversation.title)
            )

        self._io(lambda s: s.branch(message_id), opened)

    def delete_message(self, widget: MessageWidget) -> None:
        """Hide the message at once; it leaves the disk only when the chance to undo it is over
        (app/chat/undo.py)."""
        if self.active is None:
            self.undo.delete(widget)

    def undo_delete(self) -> bool:
        return self.undo.undo()

    def commit_delete(self, then: Callable[[], None] | None = None) -> None:
        self.undo.commit(then)

    def _after_delete(self, start: Callable[[], None]) -> None:
        """Start a reply once a delete waiting for its undo is done: the model is sent what the
        chat shows."""
        self.commit_delete(then=start)

    def stop(self) -> None:
        if self.active is not None:
            self.active.request.cancel.set()

    def _params(self) -> GenerationParams:
        return self.settings().to_params()

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
        assert self.store is not None
        status = self.engine.status
        # Another computer's engine answers with its own model (chosen in Settings › Engine).
        model = (model or self.chat_model()) if self.engine.remote is None else None
        asked = model or self.engine.model or (status.model if status is not None else None)
        own = self.chat_collection(self.current.id if self.current is not None else None)
        collection = self.composer.collection or own
        documents = (
            self.documents(collection) if collection and self.documents is not None else None
        )
        cancel = threading.Event()
        # A continued reply goes on as plain text: tools are offered when a reply begins.
        offer = self.tools is not None and documents is None and mode != "continue"
        tools = self.tools(cancel) if offer and self.tools is not None else None
        request = GenerationRequest(
            cancel=cancel,
            tools=tools,
            conversation_id=self.current.id if self.current is not None else None,
            mode=mode,
            params=self._params(),
            system_prompt=self.system_prompt(),
            text=text,
            message_id=message_id,
            model_name=asked,
            model_label=self.names.label(asked),
            new_conversation=new,
            documents=documents,
            images=images,
            see_images=not self.notices.blind_model(),
        )
        active = ActiveReply(request, request.conversation_id, self._opening)
        if into is not None:  # continued: the same reply, its text so far kept
            reply = into
            active.reply_id = into.message_id
            active.parts.append(into.text)
            reply.start_stream(into.text)
        else:
            reply = self.view.add_message("assistant", label=self.names.label(asked) or None)
            reply.start_stream()
        if into is not None:
            pass
        elif model is not None and model != self.engine.model and not self._resident(model):
            reply.set_waiting_text(
                tr("Chat", "Loading {model}…").format(model=self.names.label(model) or model)
            )
        elif self.engine.loading:
            reply.set_waiting_text(tr("Chat", "Waiting for the model to finish loading…"))
        elif self.engine.engine is None:
            reply.set_waiting_text(tr("Chat", "Waiting for the engine to start…"))
        elif documents is not None:
            reply.set_waiting_text(
                tr("Chat", "Searching this chat's files…")
                if collection == own
                else tr("Chat", "Searching {name}…").format(name=collection)
            )
        else:
            reply.set_waiting_text(tr("Chat", "Thinking…"))
        self.view.update_regenerate()
        self.view.scroll_to_bottom()
        # The engine's own model is asked for as such; another by name, loaded on demand.
        chosen = model if model is not None and model != self.engine.model else None
        chat = (lambda: self.engine.chat_fn(chosen)) if chosen is not None else self.engine.chat_fn
        worker = GenerationWorker(
            self.store, chat, request, self.model_images, self.unsaved.pending
        )
        active.worker, active.relay = worker, _Relay(self, active)
        active.relay.wire(worker.signals)
        worker.signals.engine_crashed.connect(self.engine.report_crash)
        self.replies.append(active)
        self._show_busy()
        self.engine.run(worker)

    def _on_screen(self, conversation_id: int | None) -> bool:
        if conversation_id is None:
            return False
        return self.current is not None and self.current.id == conversation_id

    def _refresh_versions(self) -> None:
        """Each message's ‹ n/m ›, from the history (after a new version was written)."""
        if self.current is None:
            return
        conv_id = self.current.id

        def shown(path: list[Message]) -> None:
            if self._on_screen(conv_id):
                for message in path:
                    widget = self.view.message_widget(message.id)
                    if widget is not None:
                        widget.set_versions(message.versions)

        self._io(lambda s: s.messages(conv_id), shown)

    def _conversation_created(self, active: ActiveReply, conversation: Conversation) -> None:
        active.conversation_id = conversation.id
        self._show_busy()
        if self.current is None and active.view_token == self._opening:
            self.current = conversation
            self.conversation_opened.emit(conversation)
        self.refresh_list()

    def _turn_saved(self, active: ActiveReply, user: Message | None, reply: Message) -> None:
        active.reply_id = reply.id
        if not self._on_screen(reply.conversation_id):
            return
        pending = [w for w in self.view.messages if w.message_id is None]
        for widget in pending:
            if widget.role == "assistant":
                widget.set_message_id(reply.id)
            elif user is not None:
                widget.set_message_id(user.id)
                widget.set_image_paths([image.path for image in user.images])
        if self.view.message_widget(reply.id) is None:
            return
        self.reply_started.emit()

    def _chunk_received(self, active: ActiveReply, reply_id: int, text: str) -> None:
        if active.reply_id is None:
            active.reply_id = reply_id
        active.parts.append(text)
        if self._on_screen(active.conversation_id):
            widget = self.view.message_widget(reply_id)
            if widget is not None:
                widget.append(text)

    def _reasoning_received(self, active: ActiveReply, reply_id: int, text: str) -> None:
        if not self._on_screen(active.conversation_id):
            return
        widget = self.view.message_widget(reply_id)
        if widget is not None:
            widget.append_reasoning(text)

    def _call_changed(self, active: ActiveReply, reply_id: int, call: dict[str, Any]) -> None:
        if not self._on_screen(active.conversation_id):
            return
        widget = self.view.message_widget(reply_id)
        if widget is None:
            return
        if reply_id not in self._consent_wired:
            self._consent_wired.add(reply_id)
            widget.call_decided.connect(self._call_decided)
        widget.show_call(call)
        if call.get("state") == "asking":
            self.view.scroll_to_bottom()

    def _call_decided(self, call_id: str, decision: str) -> None:
        if self.answer_call is None or decision not in ("once", "always", "deny"):
            return
        if not self.answer_call(call_id, decision):  # type: ignore[arg-type]
            self.notice.emit(tr("Chat", "That tool call is no longer waiting for an answer."))

    def _reply_finished(self, active: ActiveReply, outcome: ReplyOutcome) -> None:
        if active in self.replies:
            self.replies.remove(active)
        if active.relay is not None:
            active.relay.deleteLater()
        self._show_busy()
        self.unsaved.watch()
        message = outcome.message
        if self._on_screen(outcome.conversation_id):
            widget = self.view.message_widget(message.id) if message is not None else None
            if widget is None:
                pending = [w for w in self.view.messages if w.status == "streaming"]
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
                    if message.id in self.unsaved.pending:
                        widget.set_unsaved(True)
                else:
                    error = outcome.error or tr("Chat", "The reply failed.")
                    widget.finish("error", {"error": error})
            self.view.update_regenerate()
            self.notices.update_context()
            self._refresh_versions()
        final = outcome.final
        stats = final.stats if final is not None else None
        if stats is not None:
            self.notices.counted(stats.prompt_tokens, outcome.prompt_chars)
        if outcome.error and not outcome.crashed:
            self.notice.emit(outcome.error)
            if refused_images(outcome):  # the engine knew better than the status
                self.notices.images_refused(outcome.error)
        self.engine.refresh_status()
        self.refresh_list()
        self.reply_finished.emit(outcome)


def refused_images(outcome: ReplyOutcome) -> bool:
    """Whether the engine refused the reply because its model cannot see images: a refused
    request (engine.images.require_vision), known by its code."""
    from engine.errors import VisionUnavailable

    return outcome.code == VisionUnavailable.code


def images_folder(markdown: Path) -> Path:
    """Where a Markdown export's images go: a folder beside it, named after it."""
    return markdown.with_name(f"{markdown.stem}_images")


def _ref(attachment: Attachment) -> ImageRef:
    width, height = attachment.image.original
    image = attachment.image
    return ImageRef(attachment.name, width, height, image.mime, data=image.encoded)
