"""The chat history's SQLite schema: an ordered list of migrations, and the full-text index.

A database records how many migrations it has had in ``PRAGMA user_version``. Migrations are only
ever appended to ``MIGRATIONS``: a released one is never edited, because users' files were built by
it. Each runs in its own transaction together with the version bump, so a failure leaves the file
exactly as it was before that step.
"""

from __future__ import annotations

import functools
import json
import sqlite3
from collections.abc import Callable
from typing import Any

from engine.store.types import ChatSettings, Conversation, Message

Migration = Callable[[sqlite3.Connection], None]

MESSAGE_COLUMNS = (
    "id, conversation_id, position, role, content, status, created_at, meta, parent_id"
)
CONVERSATION_COLUMNS = (
    "id, title, system_prompt, settings, model, created_at, updated_at, leaf_id, pinned, folder_id"
)

MESSAGES_FTS = "messages_fts"
TITLES_FTS = "conversations_fts"

# The search tables mirror rows of ``messages`` and ``conversations`` (external content), so the
# text is stored once and snippet() reads it back from the real tables. Triggers keep them in sync;
# ``UPDATE OF content`` / ``UPDATE OF title`` keep the frequent updated_at and status writes from
# re-indexing text that did not change.
_SEARCH_TABLES: dict[str, str] = {
    MESSAGES_FTS: f"""
        CREATE VIRTUAL TABLE {MESSAGES_FTS} USING fts5(
            content, content='messages', content_rowid='id',
            tokenize='unicode61 remove_diacritics 2'
        )""",
    TITLES_FTS: f"""
        CREATE VIRTUAL TABLE {TITLES_FTS} USING fts5(
            title, content='conversations', content_rowid='id',
            tokenize='unicode61 remove_diacritics 2'
        )""",
}

_SEARCH_TRIGGERS: dict[str, str] = {
    "messages_fts_insert": f"""
        CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
            INSERT INTO {MESSAGES_FTS}(rowid, content) VALUES (new.id, new.content);
        END""",
    "messages_fts_delete": f"""
        CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
            INSERT INTO {MESSAGES_FTS}({MESSAGES_FTS}, rowid, content)
                VALUES ('delete', old.id, old.content);
        END""",
    "messages_fts_update": f"""
        CREATE TRIGGER messages_fts_update AFTER UPDATE OF content ON messages BEGIN
            INSERT INTO {MESSAGES_FTS}({MESSAGES_FTS}, rowid, content)
                VALUES ('delete', old.id, old.content);
            INSERT INTO {MESSAGES_FTS}(rowid, content) VALUES (new.id, new.content);
        END""",
    "conversations_fts_insert": f"""
        CREATE TRIGGER conversations_fts_insert AFTER INSERT ON conversations BEGIN
            INSERT INTO {TITLES_FTS}(rowid, title) VALUES (new.id, new.title);
        END""",
    "conversations_fts_delete": f"""
        CREATE TRIGGER conversations_fts_delete AFTER DELETE ON conversations BEGIN
            INSERT INTO {TITLES_FTS}({TITLES_FTS}, rowid, title)
                VALUES ('delete', old.id, old.title);
        END""",
    "conversations_fts_update": f"""
        CREATE TRIGGER conversations_fts_update AFTER UPDATE OF title ON conversations BEGIN
            INSERT INTO {TITLES_FTS}({TITLES_FTS}, rowid, title)
                VALUES ('delete', old.id, old.title);
            INSERT INTO {TITLES_FTS}(rowid, title) VALUES (new.id, new.title);
        END""",
}


@functools.cache
def fts5_available() -> bool:
    """Whether this Python's SQLite has FTS5 (nearly all builds do; search falls back if not)."""
    probe = sqlite3.connect(":memory:")
    try:
        probe.execute("CREATE VIRTUAL TABLE probe USING fts5(x)")
    except sqlite3.OperationalError:
        return False
    finally:
        probe.close()
    return True


def _existing(conn: sqlite3.Connection, names: list[str]) -> set[str]:
    marks = ",".join("?" * len(names))
    rows = conn.execute(
        f"SELECT name FROM sqlite_master WHERE type IN ('table', 'trigger') AND name IN ({marks})",
        names,
    ).fetchall()
    return {str(row[0]) for row in rows}


def _install_search_index(conn: sqlite3.Connection) -> None:
    """Create whatever part of the search index is missing, then fill it from the real tables."""
    present = _existing(conn, [*_SEARCH_TABLES, *_SEARCH_TRIGGERS])
    missing_triggers = [name for name in _SEARCH_TRIGGERS if name not in present]
    if not missing_triggers and all(name in present for name in _SEARCH_TABLES):
        return
    for name, sql in _SEARCH_TABLES.items():
        if name not in present:
            conn.execute(sql)
    for name in missing_triggers:
        conn.execute(_SEARCH_TRIGGERS[name])
    # Rows written while the triggers were absent are not in the index: rebuild it from scratch.
    for name in _SEARCH_TABLES:
        conn.execute(f"INSERT INTO {name}({name}) VALUES ('rebuild')")


def _remove_search_triggers(conn: sqlite3.Connection) -> None:
    # Without FTS5, a trigger that writes to an fts5 table makes every message write fail. The index
    # is derived data: dropping its triggers loses nothing, and it is rebuilt once FTS5 is back.
    for name in _existing(conn, list(_SEARCH_TRIGGERS)):
        conn.execute(f"DROP TRIGGER {name}")


def sync_search_index(conn: sqlite3.Connection) -> bool:
    """Bring the search index in line with what this SQLite can do; return True if FTS5 is in use.

    Runs in its own transaction on every open; it costs one ``sqlite_master`` lookup when nothing
    needs doing.
    """
    available = fts5_available()
    conn.execute("BEGIN IMMEDIATE")
    try:
        if available:
            _install_search_index(conn)
        else:
            _remove_search_triggers(conn)
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    return available


def _m001_tables(conn: sqlite3.Connection) -> None:
    conn.execute(
        """
        CREATE TABLE conversations (
            id INTEGER PRIMARY KEY,
            title TEXT NOT NULL,
            system_prompt TEXT NOT NULL DEFAULT '',
            settings TEXT NOT NULL DEFAULT '{}',
            model TEXT,
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL
        )"""
    )
    conn.execute(
        "CREATE INDEX conversations_by_updated ON conversations (updated_at DESC, id DESC)"
    )
    conn.execute(
        """
        CREATE TABLE messages (
            id INTEGER PRIMARY KEY,
            conversation_id INTEGER NOT NULL
                REFERENCES conversations (id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            role TEXT NOT NULL CHECK (role IN ('system', 'user', 'assistant')),
            content TEXT NOT NULL,
            status TEXT NOT NULL
                CHECK (status IN ('complete', 'streaming', 'interrupted', 'error')),
            created_at REAL NOT NULL,
            meta TEXT NOT NULL DEFAULT '{}',
            UNIQUE (conversation_id, position)
        )"""
    )
    # Crash recovery looks for streaming replies at every start; this index holds only those rows.
    conn.execute("CREATE INDEX messages_streaming ON messages (status) WHERE status = 'streaming'")
    conn.execute("CREATE TABLE app_settings (key TEXT PRIMARY KEY, value TEXT NOT NULL)")


def _m002_search(conn: sqlite3.Connection) -> None:
    # Without FTS5 this step records nothing; sync_search_index() builds the index on a later open
    # by a SQLite that has it.
    if fts5_available():
        _install_search_index(conn)


def _m003_images(conn: sqlite3.Connection) -> None:
    # The files themselves are in the images folder beside the database, named by their SHA-256
    # (one file however many messages show it); these rows say which messages show which.
    conn.execute(
        """
        CREATE TABLE images (
            sha256 TEXT PRIMARY KEY,
            mime TEXT NOT NULL,
            width INTEGER NOT NULL,
            height INTEGER NOT NULL,
            size INTEGER NOT NULL
        )"""
    )
    conn.execute(
        """
        CREATE TABLE message_images (
            message_id INTEGER NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            sha256 TEXT NOT NULL REFERENCES images (sha256),
            name TEXT NOT NULL DEFAULT '',
            PRIMARY KEY (message_id, position)
        )"""
    )
    conn.execute("CREATE INDEX message_images_by_image ON message_images (sha256)")


def _m004_tree(conn: sqlite3.Connection) -> None:
    # Versions and branches: each message knows the one it follows (NULL: the first turn), and a
    # conversation knows the last message of the path it shows. ``position`` stays a per-chat
    # order of writing, so a message always comes after the one it follows. Every conversation
    # written before is one line: each message follows the one before it, and the newest shows.
    conn.execute("ALTER TABLE messages ADD COLUMN parent_id INTEGER")
    conn.execute("ALTER TABLE conversations ADD COLUMN leaf_id INTEGER")
    conn.execute(
        """
        UPDATE messages SET parent_id = (
            SELECT before.id FROM messages AS before
            WHERE before.conversation_id = messages.conversation_id
              AND before.position < messages.position
            ORDER BY before.position DESC LIMIT 1
        )"""
    )
    conn.execute(
        """
        UPDATE conversations SET leaf_id = (
            SELECT m.id FROM messages AS m WHERE m.conversation_id = conversations.id
            ORDER BY m.position DESC LIMIT 1
        )"""
    )
    conn.execute("CREATE INDEX messages_by_parent ON messages (conversation_id, parent_id)")


def _m005_folders(conn: sqlite3.Connection) -> None:
    # Pins and folders of the conversation list. A conversation in no folder has folder_id NULL;
    # every conversation written before is unpinned and in no folder.
    conn.execute(
        """
        CREATE TABLE folders (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL,
            position INTEGER NOT NULL DEFAULT 0,
            created_at REAL NOT NULL
        )"""
    )
    conn.execute("ALTER TABLE conversations ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0")
    conn.execute(
        "ALTER TABLE conversations ADD COLUMN folder_id INTEGER "
        "REFERENCES folders (id) ON DELETE SET NULL"
    )
    conn.execute("CREATE INDEX conversations_by_folder ON conversations (folder_id)")


def _m006_uids(conn: sqlite3.Connection) -> None:
    # A stable identity for chats and messages, the same on every computer a history is moved to,
    # so importing an archive twice (or one holding a chat continued elsewhere) adds only what is
    # new. Row ids cannot serve: two computers hand out the same ones. The triggers give every row
    # written without one a uid, so the code that inserts rows need not know about them.
    for table in ("conversations", "messages"):
        conn.execute(f"ALTER TABLE {table} ADD COLUMN uid TEXT")
        conn.execute(f"UPDATE {table} SET uid = lower(hex(randomblob(16))) WHERE uid IS NULL")
        conn.execute(f"CREATE UNIQUE INDEX {table}_by_uid ON {table} (uid)")
        conn.execute(
            f"""
            CREATE TRIGGER {table}_uid AFTER INSERT ON {table} WHEN new.uid IS NULL BEGIN
                UPDATE {table} SET uid = lower(hex(randomblob(16))) WHERE id = new.id;
            END"""
        )


MIGRATIONS: tuple[Migration, ...] = (
    _m001_tables,
    _m002_search,
    _m003_images,
    _m004_tree,
    _m005_folders,
    _m006_uids,
)


def latest_version() -> int:
    """The schema version this code writes: the number of migrations it knows."""
    return len(MIGRATIONS)


def schema_version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def migrate(conn: sqlite3.Connection) -> int:
    """Apply the migrations this database has not had yet, each in its own transaction.

    ``conn`` must be in autocommit mode (``isolation_level=None``). The version is re-read inside
    each write transaction, so two processes opening the same old file cannot both upgrade it.
    Returns the version the file is at afterwards; a file newer than this code is left untouched.
    """
    migrations = MIGRATIONS
    while True:
        conn.execute("BEGIN IMMEDIATE")
        try:
            version = schema_version(conn)
            if version >= len(migrations):
                conn.execute("ROLLBACK")
                return version
            migrations[version](conn)
            conn.execute(f"PRAGMA user_version = {version + 1}")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")


# Rows to values. Stored JSON is read leniently: a hand-edited or damaged field reads as empty
# rather than making a whole conversation unopenable.


def dump_json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=False)


def load_json_object(text: str | None) -> dict[str, Any]:
    try:
        value = json.loads(text) if text else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def conversation_from_row(row: sqlite3.Row) -> Conversation:
    return Conversation(
        id=row["id"],
        title=row["title"],
        system_prompt=row["system_prompt"],
        settings=ChatSettings.from_json(load_json_object(row["settings"])),
        model=row["model"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        leaf_id=row["leaf_id"],
        pinned=bool(row["pinned"]),
        folder_id=row["folder_id"],
    )


def message_from_row(row: sqlite3.Row) -> Message:
    return Message(
        id=row["id"],
        conversation_id=row["conversation_id"],
        position=row["position"],
        role=row["role"],
        content=row["content"],
        status=row["status"],
        created_at=row["created_at"],
        meta=load_json_object(row["meta"]),
        parent_id=row["parent_id"],
    )
