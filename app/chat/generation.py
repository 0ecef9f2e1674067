"""One reply, made off the UI thread: save the turn, stream the engine's answer, save as it goes.

The worker owns the whole turn so that the UI thread never waits on the disk or the engine: it
writes the user's message (or the edit), adds the reply as ``streaming``, reads the engine's
stream, emits the text coalesced about every 30 ms, saves what it has every half second, and
finishes the reply with its outcome. If the app dies mid-reply the saved text is there on restart
(``Store.recover_interrupted`` marks it interrupted); if the engine dies, the reply is finished as
interrupted and ``engine_crashed`` carries the host's last words.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from PySide6.QtCore import QObject, QRunnable, Signal

from app.common.i18n import tr
from engine.errors import EngineBusy, EngineCrashed, EngineError, EngineUnreachable
from engine.store import history_for
from engine.types import ChatMessage, Chunk, GenerationParams

if TYPE_CHECKING:
    from app.chat.model_images import ModelImages
    from app.common.mcp_service import ToolsRequest
    from engine.documents import Grounding
    from engine.mcp_servers import CallRecord
    from engine.store import ChatSettings, Message, PendingSaves, Store, StoredImage
    from engine.types import ImageInput

log = logging.getLogger(__name__)

EMIT_INTERVAL_S = 0.03
SAVE_INTERVAL_S = 0.5
BUSY_RETRY_S = 10.0
BUSY_RETRY_DELAY_S = 0.1

# send: a new question; regenerate: a new version of a reply; edit: a new version of a question,
# then its reply; continue: more of a reply that stopped at its length limit, in the same reply.
Mode = Literal["send", "regenerate", "edit", "continue"]
ChatFn = Callable[[Sequence[ChatMessage], GenerationParams, threading.Event], Iterator[Chunk]]
# Turns a question into a prompt grounded in a collection's passages; runs on the worker thread.
GroundFn = Callable[[str], "Grounding"]


@dataclass(frozen=True, slots=True)
class DocumentsRequest:
    """Answer from a collection: the reply's prompt is the question with the collection's best
    passages as numbered sources, and the reply keeps them to show under the answer."""

    collection: str
    ground: GroundFn


@dataclass(frozen=True, slots=True)
class GenerationRequest:
    conversation_id: int | None  # None: a new conversation, created with ``new_conversation``
    mode: Mode
    params: GenerationParams
    system_prompt: str = ""
    text: str = ""  # the new user message (send) or the edited text (edit)
    # edit: the question edited; regenerate: the reply written again; continue: the reply
    message_id: int | None = None
    model_name: str | None = None  # the model asked for, kept with the reply
    model_label: str | None = None  # its name as people read it, the reply's speaker label
    new_conversation: NewConversation | None = None
    documents: DocumentsRequest | None = None
    cancel: threading.Event = field(default_factory=threading.Event)
    tools: ToolsRequest | None = None  # MCP servers' tools, asked about call by call
    # The new message's images (send), each with its name, read and checked by the composer.
    images: tuple[tuple[str, ImageInput], ...] = ()
    # Whether the model can see images; when it cannot, the history's earlier images are left
    # out (the window says so) rather than refused by the engine turn after turn.
    see_images: bool = True


@dataclass(frozen=True, slots=True)
class NewConversation:
    title: str
    system_prompt: str
    settings: ChatSettings | None
    model: str | None = None


@dataclass(frozen=True, slots=True)
class ReplyOutcome:
    conversation_id: int | None
    message: Message | None  # the reply as stored (None if its conversation was deleted)
    final: Chunk | None  # the terminal chunk (None when the engine crashed or failed)
    error: str | None = None
    crashed: bool = False
    prompt_chars: int = 0
    code: str | None = None  # the engine's error code, when it refused or failed the reply


class GenerationSignals(QObject):
    conversation_created = Signal(object)  # Conversation
    # (user message or None, the reply being written)
    turn_saved = Signal(object, object)
    # (reply id, new text)
    chunk_received = Signal(int, str)
    # (reply id, the call as stored in the reply's meta) at each change of a tool call's state
    call_changed = Signal(int, object)
    # (reply id, more of a reasoning model's thinking)
    reasoning_received = Signal(int, str)
    reply_finished = Signal(object)  # ReplyOutcome
    engine_crashed = Signal(str)
    # The disk is full: the reply stays on screen and is saved once there is room (the words).
    save_delayed = Signal(str)


def call_record(record: CallRecord, offered: str) -> dict[str, Any]:
    """A tool call as a reply's meta keeps it (and the window shows it)."""
    return {
        "id": record.id,
        "server": record.server,
        "tool": record.tool,
        "offered": offered,
        "arguments": record.arguments,
        "state": record.state,
        "result": record.result,
    }


def _question(history: Sequence[Message]) -> str:
    """The question a documents reply answers: the last user message."""
    for m in reversed(history):
        if m.role == "user":
            return m.content
    return ""


class GenerationWorker(QRunnable):
    def __init__(
        self,
        store: Store,
        chat: Callable[[], ChatFn],
        request: GenerationRequest,
        images: ModelImages | None = None,
        unsaved: PendingSaves | None = None,
    ) -> None:
        super().__init__()
        self.images = images
        self.unsaved = unsaved  # where a reply the full disk refused waits
        self._told_full = False
        self.signals = GenerationSignals()
        self.store = store
        self.conversation_id = request.conversation_id
        self._chat = chat  # looked up when the job runs: the engine may restart in between
        self.request = request
        self.calls: dict[str, dict[str, Any]] = {}  # the reply's tool calls, by id
        self.reasoning: list[str] = []  # a reasoning model's thinking, kept apart from the reply

    def run(self) -> None:
        req = self.request
        reply: Message | None = None
        parts: list[str] = []
        prompt_chars = 0
        try:
            self.conversation_id = self._conversation()
            user, history, replaced = self._save_turn()
            messages, prompt_chars = history_for(history, req.system_prompt, self._image_loader())
            meta: dict[str, Any] = {"model": req.model_name} if req.model_name else {}
            if req.model_label:
                meta["model_name"] = req.model_label
            grounding = None
            if req.documents is not None and req.mode != "continue":
                grounding = req.documents.ground(_question(history))
                meta.update(grounding.meta(req.documents.collection))
                if grounding.messages is not None:
                    messages = grounding.messages
                    prompt_chars = sum(len(m.content) for m in messages)
            reply = self._reply(replaced, meta, parts)
            self.signals.turn_saved.emit(user, reply)
            if grounding is not None and grounding.messages is None:
                final = self._not_found(reply.id, parts)
            else:
                final = self._stream(reply.id, messages, parts)
        except EngineCrashed as exc:
            self._finish(reply, parts, None, str(exc), crashed=True, prompt_chars=prompt_chars)
            self.signals.engine_crashed.emit(str(exc))
            return
        except EngineError as exc:
            error = str(exc)
            if parts and isinstance(exc, EngineUnreachable):  # another computer's, mid-reply
                error = tr("Chat", "{error} The reply so far is kept.").format(error=error)
            self._finish(reply, parts, None, error, prompt_chars=prompt_chars, code=exc.code)
            return
        except Exception as exc:  # a worker boundary: the reply is saved and the error shown
            log.exception("generation failed")
            self._finish(reply, parts, None, f"{type(exc).__name__}: {exc}", prompt_chars=0)
            return
        self._finish(reply, parts, final, final.error, prompt_chars=prompt_chars, code=final.code)

    def _reply(self, replaced: Message | None, meta: dict[str, Any], parts: list[str]) -> Message:
        """The reply the stream goes into: a new one after the path shown, a new version of
        ``replaced`` (regenerate), or ``replaced`` itself, its text so far kept (continue)."""
        assert self.conversation_id is not None
        if self.request.mode == "continue":
            assert replaced is not None
            parts.append(replaced.content)
            reopened = self.store.reopen_message(replaced.id)
            if reopened is None:
                raise EngineError(tr("Chat", "The reply to continue was deleted."))
            return reopened
        if replaced is not None:
            return self.store.add_version(replaced.id, "", status="streaming", meta=meta)
        return self.store.add_message(
            self.conversation_id, "assistant", "", status="streaming", meta=meta
        )

    def _conversation(self) -> int:
        req = self.request
        if req.conversation_id is not None:
            return req.conversation_id
        new = req.new_conversation or NewConversation(tr("Chat", "New chat"), "", None)
        conversation = self.store.create_conversation(
            title=new.title,
            system_prompt=new.system_prompt,
            settings=new.settings,
            model=new.model or req.model_name,
        )
        self.signals.conversation_created.emit(conversation)
        return conversation.id

    def _save_turn(self) -> tuple[Message | None, list[Message], Message | None]:
        """Write the question (or its new version); return it, the path the model is sent, and
        the reply that is written again or continued."""
        req, store, conv_id = self.request, self.store, self.conversation_id
        assert conv_id is not None
        if req.mode == "send":
            from engine.store import NewImage

            sent = [NewImage.of(image, name) for name, image in req.images]
            if self.images is not None:
                for new, (_name, image) in zip(sent, req.images, strict=True):
                    self.images.remember(new.sha256, image)  # read once, by the composer
            user = store.add_message(conv_id, "user", req.text, images=sent)
            return user, store.messages(conv_id), None
        assert req.message_id is not None
        if req.mode == "edit":
            user = store.add_version(req.message_id, req.text)
            return user, store.messages(conv_id), None
        old = store.get_message(req.message_id)
        if old is None:
            raise EngineError(tr("Chat", "The reply was deleted meanwhile; nothing was written."))
        shown = store.show_version(old.id)
        ids = [m.id for m in shown]
        if req.mode == "continue":
            return None, shown[: ids.index(old.id) + 1], old
        return None, shown[: ids.index(old.id)], old

    def _image_loader(self) -> Callable[[StoredImage], ImageInput | None] | None:
        if not self.request.see_images:
            return None
        kept = self.images
        if kept is None:
            from app.chat.model_images import ModelImages

            kept = self.images = ModelImages()
        store = self.store
        return lambda stored: kept.load(store, stored)

    def _not_found(self, reply_id: int, parts: list[str]) -> Chunk:
        from engine.documents import NOT_FOUND

        parts.append(NOT_FOUND)
        self.signals.chunk_received.emit(reply_id, NOT_FOUND)
        return Chunk(finish_reason="stop")

    def _stream(self, reply_id: int, messages: list[ChatMessage], parts: list[str]) -> Chunk:
        deadline = time.monotonic() + BUSY_RETRY_S
        while True:
            final = self._stream_once(reply_id, messages, parts)
            # A reply stopped a moment ago may still be finishing in the engine (it stops within
            # a token of the disconnect); a request that arrives meanwhile is refused at once.
            # Ask again shortly rather than fail the user's message.
            busy = final.finish_reason == "error" and final.code == EngineBusy.code
            if not busy or parts or time.monotonic() > deadline or self.request.cancel.is_set():
                return final
            time.sleep(BUSY_RETRY_DELAY_S)

    def _stream_once(self, reply_id: int, messages: list[ChatMessage], parts: list[str]) -> Chunk:
        req = self.request
        if req.cancel.is_set():
            return Chunk(finish_reason="cancelled")
        pending: list[str] = []
        last_emit = last_save = time.monotonic()
        final: Chunk | None = None
        chunks = (
            self._chat()(messages, self._params(), req.cancel)
            if req.tools is None
            else self._tool_turn(reply_id, messages)
        )
        try:
            for chunk in chunks:
                if chunk.reasoning:
                    self.reasoning.append(chunk.reasoning)
                    self.signals.reasoning_received.emit(reply_id, chunk.reasoning)
                if chunk.is_terminal:
                    final = chunk
                    break
                if not chunk.text:
                    continue
                parts.append(chunk.text)
                pending.append(chunk.text)
                now = time.monotonic()
                if now - last_emit >= EMIT_INTERVAL_S:
                    self.signals.chunk_received.emit(reply_id, "".join(pending))
                    pending.clear()
                    last_emit = now
                if now - last_save >= SAVE_INTERVAL_S:
                    self._save_so_far(reply_id, parts)
                    last_save = now
        finally:
            # Also when the engine died mid-stream: the window shows every word that is saved.
            if pending:
                self.signals.chunk_received.emit(reply_id, "".join(pending))
        if final is None:
            final = Chunk(finish_reason="cancelled" if req.cancel.is_set() else "error")
        return final

    def _save_so_far(self, reply_id: int, parts: list[str]) -> None:
        from engine.errors import HistoryDiskFull

        try:
            self.store.update_message_content(reply_id, "".join(parts))
        except HistoryDiskFull:  # the reply goes on; what is not saved yet is saved at its end
            self._disk_full()

    def _disk_full(self) -> None:
        if not self._told_full:
            self._told_full = True
            self.signals.save_delayed.emit(
                tr(
                    "Chat",
                    "The disk is full, so this reply is not saved yet. It stays on screen, and "
                    "Cove saves it as soon as there is room: free some space on the disk.",
                )
            )

    def _params(self) -> GenerationParams:
        """The request's settings, naming the conversation: the engine keeps its saved state
        under that name, so that deleting the conversation deletes the state too."""
        params = self.request.params
        if self.request.mode == "continue":
            params = dataclasses.replace(params, continue_final_message=True)
        if self.conversation_id is None:
            return params
        return dataclasses.replace(params, conversation=str(self.conversation_id))

    def _tool_turn(self, reply_id: int, messages: list[ChatMessage]) -> Iterator[Chunk]:
        """The turn through engine.mcp_servers.turn, as a stream of its text: each call's
        states go out as ``call_changed`` and into the reply's meta."""
        import queue

        from engine.mcp_servers import run_turn

        req, chat = self.request, self._chat()
        assert req.tools is not None
        tools = req.tools
        offered = {(t.server, t.name): t.offered for t in tools.source.tools()}
        texts: queue.SimpleQueue[Chunk | BaseException] = queue.SimpleQueue()

        def on_call(record: CallRecord) -> None:
            stored = call_record(record, offered.get((record.server, record.tool), record.tool))
            self.calls[record.id] = stored
            self.signals.call_changed.emit(reply_id, stored)

        def turn() -> None:
            try:
                result = run_turn(
                    lambda m, p: chat(m, p, req.cancel),
                    messages,
                    self._params(),
                    tools.source,
                    tools.consent,
                    tools.ask,
                    on_text=lambda text: texts.put(Chunk(text=text)),
                    on_call=on_call,
                    on_reasoning=lambda text: texts.put(Chunk(reasoning=text)),
                    cancel=req.cancel,
                )
                texts.put(result.final)
            except BaseException as exc:  # raised again in the worker, which reports it
                texts.put(exc)

        runner = threading.Thread(target=turn, name="cove-tool-turn", daemon=True)
        runner.start()
        while True:
            item = texts.get()
            if isinstance(item, BaseException):
                runner.join()
                raise item
            yield item
            if item.is_terminal:
                runner.join()
                return

    def _finish(
        self,
        reply: Message | None,
        parts: list[str],
        final: Chunk | None,
        error: str | None,
        *,
        crashed: bool = False,
        prompt_chars: int,
        code: str | None = None,
    ) -> None:
        from engine.errors import HistoryDiskFull
        from engine.store import reply_meta, reply_status

        stored: Message | None = None
        text = "".join(parts)
        try:
            if reply is not None:
                meta: dict[str, Any] = dict(reply.meta)
                if self.request.model_name:
                    meta["model"] = self.request.model_name
                if self.request.model_label:
                    meta["model_name"] = self.request.model_label
                if self.calls:
                    meta["tool_calls"] = list(self.calls.values())
                if self.reasoning:
                    meta["reasoning"] = "".join(self.reasoning)
                if final is not None:
                    meta.update(reply_meta(final))
                    status = reply_status(final.finish_reason)
                else:
                    meta["error"] = error or tr("Chat", "unknown error")
                    meta["finish_reason"] = "crashed" if crashed else "error"
                    status = "interrupted" if crashed or text else "error"
                try:
                    stored = self.store.finish_message(reply.id, text, status, meta)
                except HistoryDiskFull:
                    if self.unsaved is None:
                        raise
                    self.unsaved.keep(reply.id, text, status, meta)
                    stored = dataclasses.replace(reply, content=text, status=status, meta=meta)
                    self._disk_full()
        except Exception as exc:  # the store failing must still end the turn in the UI
            log.exception("could not save the reply")
            error = error or tr("Chat", "Could not save the reply: {reason}").format(reason=exc)
        self.signals.reply_finished.emit(
            ReplyOutcome(
                conversation_id=self.conversation_id,
                message=stored,
                final=final,
                error=error,
                crashed=crashed,
                prompt_chars=prompt_chars,
                code=code,
            )
        )
