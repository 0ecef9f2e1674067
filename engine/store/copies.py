"""Chats copied in and out of the history: a branch (a new chat holding a path of another), an
import of a chat's JSON, and the exports to JSON and Markdown (engine/store/export.py writes
them). Each reads or writes in one hold of the history's lock, so a delete never lands between
the reads of one copy."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from engine.store import export as store_export
from engine.store import folders as store_folders
from engine.store import tree as store_tree
from engine.store.conversations import new_conversation, require_conversation
from engine.store.history_file import HistoryFile, gone
from engine.store.importing import read_conversation
from engine.store.messages import fetch_message, insert_message, message_rows, shown_messages
from engine.store.types import Conversation, Message


def branch_title(title: str) -> str:
    return title if title.endswith(" (branch)") else f"{title} (branch)"


class Copies:
    """Branches, imports and exports of single chats."""

    def __init__(self, file: HistoryFile) -> None:
        self._file = file
        self._images = file.images

    def _snapshot(self, conv_id: int) -> tuple[Conversation, list[Message]]:
        with self._file.reading() as conn:  # one lock hold: a delete cannot land between the reads
            return require_conversation(conn, conv_id), shown_messages(conn, self._images, conv_id)

    def export_markdown(self, conv_id: int, images_folder: Path | None = None) -> str:
        """The chat as Markdown: the path shown. Its images are copied into ``images_folder`` and
        linked by a path relative to the folder the Markdown file is saved in (the folder's
        parent); without one they are embedded as data: URLs, so the text stands alone."""
        conversation, messages = self._snapshot(conv_id)
        read = self._images.read
        if images_folder is None:
            return store_export.to_markdown(
                conversation, messages, lambda image: store_export.data_url(image, read)
            )
        links = store_export.copy_images(messages, images_folder, read)
        return store_export.to_markdown(conversation, messages, lambda i: links.get(i.sha256))

    def export_json(self, conv_id: int) -> dict[str, Any]:
        """The chat as JSON types: every version of every turn, which path shows, each image
        embedded as a data: URL. ``import_json`` brings it back whole."""
        with self._file.reading() as conn:
            conversation = require_conversation(conn, conv_id)
            _tree, path = store_tree.shown_path(conn, conv_id)
            messages = message_rows(conn, self._images, "conversation_id = ?", conv_id)
            folder = (
                store_folders.fetch_folder(conn, conversation.folder_id)
                if conversation.folder_id is not None
                else None
            )
        current = path[-1] if path else None
        data = store_export.to_json(conversation, messages, self._images.read, current)
        data["folder"] = folder.name if folder is not None else None
        return data

    def branch(self, msg_id: int) -> Conversation:
        """A new conversation holding the path shown up to ``msg_id`` (copies: the two go their
        own ways), with the same system prompt, settings and model."""
        clock = self._file.clock
        with self._file.writing() as conn:
            message = fetch_message(conn, self._images, msg_id)
            if message is None:
                raise gone("Message", msg_id)
            source = require_conversation(conn, message.conversation_id)
            tree = store_tree.read_tree(conn, source.id)
            path = tree.path(msg_id)
            copy = new_conversation(
                conn,
                clock(),
                branch_title(source.title),
                source.system_prompt,
                source.settings,
                source.model,
            )
            parent: int | None = None
            olds = message_rows(conn, self._images, "id IN (SELECT value FROM json_each(?))", path)
            for old in olds:
                new = insert_message(
                    conn,
                    clock(),
                    copy.id,
                    old.role,
                    old.content,
                    old.status,
                    old.meta,
                    parent,
                    old.created_at,
                )
                self._images.share(conn, new.id, old.id)
                parent = new.id
            return require_conversation(conn, copy.id)

    def import_json(self, data: object, fallback_title: str = "Imported chat") -> Conversation:
        """A conversation from parsed JSON (Cove's export, or an OpenAI-style ``messages``
        list), added whole as a new chat. ``ValueError`` says what is wrong with anything else;
        nothing is written then."""
        incoming = read_conversation(data, fallback_title)
        clock = self._file.clock
        with self._file.writing() as conn:
            conversation = new_conversation(
                conn,
                clock(),
                incoming.title,
                incoming.system_prompt,
                incoming.settings,
                incoming.model,
            )
            ids: dict[str, int] = {}
            for item in incoming.messages:
                parent = ids[item.parent] if item.parent is not None else None
                message = insert_message(
                    conn,
                    clock(),
                    conversation.id,
                    item.role,  # type: ignore[arg-type]  # checked by read_conversation
                    item.content,
                    item.status,
                    item.meta,
                    parent,
                    item.created_at,
                )
                self._images.add(conn, message.id, item.images)
                ids[item.key] = message.id
            leaf = ids.get(incoming.leaf) if incoming.leaf is not None else None
            store_tree.set_leaf(conn, conversation.id, leaf)
            return require_conversation(conn, conversation.id)
