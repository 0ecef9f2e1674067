"""What the chat's parts share: the conversation on screen, a new chat's draft, the replies being
written, the history's ordered pool, and the signals the window listens to.

``ChatController`` is this state with its jobs composed in (the history in ``history.py``, starting
a reply in ``sending.py``, a reply's progress on screen in ``reply_events.py``); each of those
parts is handed this object and reads and changes it on the UI thread.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal

from app.chat.composer import Composer
from app.chat.generation import DocumentsRequest, GenerationRequest, GenerationWorker
from app.chat.model_images import ModelImages
from app.chat.model_names import ModelNames
from app.chat.notices import ChatNotices
from app.chat.undo import UndoDelete
from app.chat.unsaved import UnsavedReplies
from app.chat.view import ChatView
from app.common.engine_service import EngineService
from app.common.i18n import tr
from app.common.workers import WorkerPool

if TYPE_CHECKING:
    from app.common.mcp_service import ToolsRequest
    from engine.mcp_servers import Decision
    from engine.store import ChatSettings, Conversation, Presets, Store


@dataclass(eq=False)
class ActiveReply:
    request: GenerationRequest
    conversation_id: int | None
    view_token: int  # which opening of the chat view the reply was started from
    reply_id: int | None = None
    parts: list[str] = field(default_factory=list)
    worker: GenerationWorker | None = None  # its signals object must outlive the run
    relay: QObject | None = None

    @property
    def text(self) -> str:
        return "".join(self.parts)


class ChatState(QObject):
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
        self.model_images = ModelImages()  # earlier images, prepared once for the next turns
        self.draft_model: str | None = None  # a new chat's model, before it is saved
        # The installed chat models and their labels (set by the window from the Models page).
        self.names = ModelNames()
        self.presets: Presets | None = None
        self.draft_preset: str | None = None
        # The context meter and the notice about images the model cannot see.
        self.notices = ChatNotices(view, composer, engine, self.system_prompt)
        # Deletes wait for their Undo; the history goes through the same ordered pool.
        self.undo = UndoDelete(
            view, self.use_store, lambda: self._opening, self.notices.update_context
        )

    @property
    def opening(self) -> int:
        """Which opening of the chat view is on screen: a reply or a read started for an
        earlier one no longer touches the view."""
        return self._opening

    def next_opening(self) -> int:
        self._opening += 1
        return self._opening

    def use_store(self, fn: Any, done: Any = None) -> None:
        """Run ``fn(store)`` off the UI thread; errors become a notice."""
        store = self.store
        if store is None:
            self.notice.emit(
                tr("Chat", "The chat history is still opening; try again in a moment.")
            )
            return
        self.io.submit(lambda: fn(store), done, lambda exc: self.notice.emit(str(exc)))

    def refresh_list(self) -> None:
        self.use_store(lambda s: s.list_conversations(), self.conversations_listed.emit)

    def settings(self) -> ChatSettings:
        from engine.store import ChatSettings

        if self.current is not None:
            return self.current.settings
        return self.draft_settings or ChatSettings()

    def system_prompt(self) -> str:
        return self.current.system_prompt if self.current is not None else self.draft_system_prompt

    def chat_model(self) -> str | None:
        """The model this chat asks for (None: whichever the engine has loaded)."""
        if self.current is not None:
            return self.names.known(self.current.model)
        return self.draft_model

    @property
    def active(self) -> ActiveReply | None:
        """The reply streaming into the chat on screen, if any."""
        for active in self.replies:
            if self.on_screen(active.conversation_id) or (
                active.conversation_id is None and active.view_token == self._opening
            ):
                return active
        return None

    @property
    def generating(self) -> bool:
        """Whether the chat on screen is being answered."""
        return self.active is not None

    def commit_delete(self, then: Callable[[], None] | None = None) -> None:
        self.undo.commit(then)

    def apply_default_preset(self) -> None:
        preset = self.presets.default() if self.presets is not None else None
        if preset is None:
            return
        self.draft_system_prompt = preset.system_prompt
        self.draft_settings = preset.settings
        self.draft_preset = preset.name
        if preset.model and preset.model in self.names.labels:
            self.draft_model = preset.model

    def on_screen(self, conversation_id: int | None) -> bool:
        if conversation_id is None:
            return False
        return self.current is not None and self.current.id == conversation_id

    def show_busy(self) -> None:
        """The view, the composer and the Stop action follow the chat on screen; the list marks
        every chat being answered."""
        busy = self.active is not None
        self.view.set_busy(busy)
        self.composer.set_generating(busy)
        self.generating_changed.emit(busy)
        self.answering_changed.emit(
            frozenset(a.conversation_id for a in self.replies if a.conversation_id is not None)
        )
