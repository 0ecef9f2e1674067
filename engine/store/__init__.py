"""Cove's chat history: conversations, messages and settings per chat in one SQLite file.

``database`` holds the ``Store``, the one door to the history; behind it ``history_file`` holds the
connection, its lock and its repair, ``conversations`` the list of chats, ``messages`` what they
say, ``copies`` branches, imports and exports of one chat. ``schema`` holds the ordered migrations
and row mapping; ``search`` the full-text search; ``folders`` the list's pins and folders;
``export`` JSON and Markdown exports; ``image_files`` the images sent with messages, kept whole
beside the database; ``types`` the values it hands out. ``connection`` opens the file (checked,
backed up before a migration); ``backups`` makes and keeps the backups; ``repair`` notices a
damaged file and rebuilds it.
"""

from engine.errors import HistoryDamaged, HistoryDiskFull, StoreError
from engine.paths import db_path as default_db_path

# What the window uses, from the modules that hold it.
from engine.store.archive import export_archive, import_archive
from engine.store.backups import Backup
from engine.store.database import Store
from engine.store.model_messages import history_for
from engine.store.pending import PendingSaves
from engine.store.presets import Preset, Presets
from engine.store.repair import Repair, repairs_log
from engine.store.types import (
    ChatSettings,
    Conversation,
    Folder,
    Message,
    MessageStatus,
    NewImage,
    ReplyMeta,
    SearchHit,
    StoredImage,
    reply_meta,
    reply_status,
)

__all__ = [
    "Backup",
    "ChatSettings",
    "Conversation",
    "Folder",
    "HistoryDamaged",
    "HistoryDiskFull",
    "Message",
    "MessageStatus",
    "NewImage",
    "PendingSaves",
    "Preset",
    "Presets",
    "Repair",
    "ReplyMeta",
    "SearchHit",
    "Store",
    "StoreError",
    "StoredImage",
    "default_db_path",
    "export_archive",
    "history_for",
    "import_archive",
    "repairs_log",
    "reply_meta",
    "reply_status",
]
