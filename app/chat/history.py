"""The chat history as the chat reads and changes it: opening it, listing and searching the
conversations, opening, creating, renaming, deleting, exporting and importing one, and moving
between a turn's versions or branching from one. Every read and write goes through the chat's one
ordered pool, off the UI thread."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from app.chat.chat_state import ChatState
from app.chat.generation import NewConversation
from app.chat.message.widget import MessageWidget
from app.common.i18n import tr

if TYPE_CHECKING:
    from engine.store import Conversation, Message, SearchHit, Store

log = logging.getLogger(__name__)

TITLE_CHARS = 48


def title_from(text: str) -> str:
    line = " ".join(text.strip().split())
    return line if len(line) <= TITLE_CHARS else line[: TITLE_CHARS - 1].rstrip() + "…"


def images_folder(markdown: Path) -> Path:
    """Where a Markdown export's images go: a folder beside it, named after it."""
    return markdown.with_name(f"{markdown.stem}_images")


class ChatHistory:
    def __init__(self, chat: ChatState) -> None:
        self.chat = chat

    def open_store(self) -> None:
        chat = self.chat

        def job() -> tuple[Store, list[Conversation], int | None]:
            from engine.store import Store

            store = Store()
            recovered = store.recover_interrupted()
            if recovered:
                log.info("marked %d reply(ies) interrupted after an unclean exit", recovered)
            last = store.get_setting("last_conversation")
            return store, store.list_conversations(), last if isinstance(last, int) else None

        def done(result: tuple[Store, list[Conversation], int | None]) -> None:
            from engine.store import Presets

            chat.store, conversations, last = result
            chat.presets = Presets(chat.store)
            chat.presets_changed.emit()
            if chat.current is None:
                chat.apply_default_preset()
            chat.store_opened.emit()
            chat.conversations_listed.emit(conversations)
            ids = {c.id for c in conversations}
            if last in ids:
                self.open_conversation(last)
            elif conversations:
                self.open_conversation(conversations[0].id)

        chat.io.submit(job, done, lambda exc: chat.store_failed.emit(str(exc)))

    def close(self) -> None:
        """At exit: stop the replies (their text so far is saved) and close the history. A
        delete not undone by then is done."""
        chat = self.chat
        chat.commit_delete()
        for active in chat.replies:
            active.request.cancel.set()
        chat.engine.wait_for_replies(10_000)
        chat.io.wait(5_000)
        chat.unsaved.save_now()
        if chat.store is not None:
            chat.store.close()

    def saved_at_last(self, ids: list[int]) -> None:
        for message_id in ids:
            widget = self.chat.view.message_widget(message_id)
            if widget is not None:
                widget.set_unsaved(False)

    def history_replaced(self) -> None:
        """A restore or an import changed the history under the window: read it again, and
        keep the open chat where it still exists."""
        chat = self.chat
        current = chat.current.id if chat.current is not None else None
        chat.history_reloaded.emit()

        def done(conversations: list[Conversation]) -> None:
            chat.conversations_listed.emit(conversations)
            ids = [c.id for c in conversations]
            if current in ids:
                self.open_conversation(current)
            elif ids:
                self.open_conversation(ids[0])

        chat.use_store(lambda s: s.list_conversations(), done)

    def search(self, query: str) -> None:
        chat = self.chat
        if not query:
            chat.refresh_list()
            return

        def found(hits: list[SearchHit]) -> None:
            chat.search_found.emit(hits)

        chat.use_store(lambda s: s.search(query), found)

    # -- conversations ---------------------------------------------------------------------------

    def new_chat(self) -> None:
        chat = self.chat
        chat.commit_delete()
        chat.next_opening()
        chat.current = None
        chat.draft_system_prompt = ""
        chat.draft_settings = None
        chat.draft_model = None
        chat.draft_preset = None
        chat.apply_default_preset()
        chat.view.clear()
        chat.show_busy()
        chat.conversation_opened.emit(None)
        chat.notices.refresh()
        chat.composer.focus()

    def ensure_conversation(self, title: str, done: Callable[[Conversation], None]) -> None:
        """The open chat, saved first if it is a new one (files given to a chat need it)."""
        chat = self.chat
        if chat.current is not None:
            done(chat.current)
            return
        token = chat.opening
        new = NewConversation(
            title_from(title), chat.draft_system_prompt, chat.draft_settings, chat.draft_model
        )

        def create(store: Store) -> Conversation:
            return store.create_conversation(
                title=new.title,
                system_prompt=new.system_prompt,
                settings=new.settings,
                model=new.model,
            )

        def created(conversation: Conversation) -> None:
            if chat.current is None and token == chat.opening:
                chat.current = conversation
                chat.conversation_opened.emit(conversation)
            chat.refresh_list()
            done(conversation)

        chat.use_store(create, created)

    def open_conversation(self, conv_id: int, message_id: int | None = None) -> None:
        chat = self.chat
        if chat.current is not None and chat.current.id == conv_id and message_id is None:
            return
        chat.commit_delete()
        token = chat.next_opening()

        def job(store: Store) -> tuple[Conversation | None, list[Message]]:
            store.set_setting("last_conversation", conv_id)
            messages = store.messages(conv_id)
            if message_id is not None and message_id not in {m.id for m in messages}:
                found = store.get_message(message_id)  # a search hit in a version not shown
                if found is not None and found.conversation_id == conv_id:
                    messages = store.show_version(message_id)
            return store.get_conversation(conv_id), messages

        def done(result: tuple[Conversation | None, list[Message]]) -> None:
            if token != chat.opening:
                return  # the user opened another one meanwhile
            conversation, messages = result
            if conversation is None:
                chat.notice.emit(tr("Chat", "That conversation was deleted."))
                chat.refresh_list()
                return
            chat.current = conversation
            chat.view.set_messages(messages, self._live_text, focus=message_id)
            chat.show_busy()
            chat.conversation_opened.emit(conversation)
            chat.chat_model_changed.emit(chat.chat_model())
            chat.notices.refresh()

        chat.use_store(job, done)

    def _live_text(self, message_id: int) -> str | None:
        for active in self.chat.replies:
            if active.reply_id == message_id:
                return active.text
        return None

    def rename(self, conv_id: int, title: str) -> None:
        chat = self.chat

        def done(conversation: Conversation) -> None:
            if chat.current is not None and chat.current.id == conv_id:
                chat.current = conversation
            chat.refresh_list()

        chat.use_store(lambda s: s.rename_conversation(conv_id, title), done)

    def delete_conversation(self, conv_id: int) -> None:
        chat = self.chat
        for active in chat.replies:
            if active.conversation_id == conv_id:
                active.request.cancel.set()
        if chat.current is not None and chat.current.id == conv_id:
            self.new_chat()
        chat.use_store(lambda s: s.delete_conversation(conv_id), lambda _r: chat.refresh_list())
        chat.conversation_deleted.emit(conv_id)
        # The model's state of the conversation, kept on disk to reopen it fast, goes with it.
        chat.engine.forget_state(str(conv_id))

    def export(self, conv_id: int, fmt: str, path: Path) -> None:
        """JSON embeds the chat's images; Markdown links copies of them in a folder beside it."""

        def job(store: Store) -> Path:
            if fmt == "json":
                text = json.dumps(store.export_json(conv_id), indent=2, ensure_ascii=False)
            else:
                text = store.export_markdown(conv_id, images_folder(path))
            path.write_text(text, encoding="utf-8")
            return path

        def done(written: Path) -> None:
            self.chat.notice.emit(tr("Chat", "Exported to {path}").format(path=written))

        self.chat.use_store(job, done)

    def import_file(self, path: Path) -> None:
        """Bring a chat back from a JSON file (Cove's export or an OpenAI messages list)."""
        chat = self.chat

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
            chat.refresh_list()
            self.open_conversation(conversation.id)
            chat.notice.emit(tr("Chat", "Imported {title}").format(title=conversation.title))

        chat.use_store(job, done)

    # -- versions and branches -------------------------------------------------------------------

    def show_version(self, widget: MessageWidget, step: int) -> None:
        """Show the previous or next version of a turn, and the newest path beneath it."""
        chat = self.chat
        if chat.active is not None or widget.message_id not in widget.versions:
            return
        at = widget.versions.index(widget.message_id) + step
        if not 0 <= at < len(widget.versions):
            return
        target = widget.versions[at]
        chat.commit_delete()
        token = chat.opening

        def shown(path: list[Message]) -> None:
            if token == chat.opening:
                chat.view.replace_tail(path)
                chat.notices.update_context()
                focused = chat.view.message_widget(target)
                if focused is not None:
                    focused.version_switch.setFocus()

        chat.use_store(lambda s: s.show_version(target), shown)

    def branch(self, widget: MessageWidget) -> None:
        """A new chat with the turns up to this message; it opens at once."""
        chat = self.chat
        if widget.message_id is None:
            return
        message_id = widget.message_id
        chat.commit_delete()

        def opened(conversation: Conversation) -> None:
            chat.refresh_list()
            self.open_conversation(conversation.id)
            chat.notice.emit(
                tr("Chat", "Branched into a new chat: {title}").format(title=conversation.title)
            )

        chat.use_store(lambda s: s.branch(message_id), opened)
