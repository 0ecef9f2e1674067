"""The conversation list's order: pinned conversations, and folders that conversations are filed
in. Each function runs inside the caller's transaction (``Store`` holds the lock and the
transaction); none of them changes a conversation's ``updated_at``, so pinning or filing a chat
never moves it among the days it was last used."""

from __future__ import annotations

import sqlite3

from engine.store.types import Folder

FOLDER_COLUMNS = "id, name, position, created_at"


def folder_name(name: str) -> str:
    """``name`` as it is kept: without surrounding spaces, and never empty (``ValueError``)."""
    cleaned = " ".join(name.split())
    if not cleaned:
        raise ValueError("A folder needs a name.")
    return cleaned


def folder_from_row(row: sqlite3.Row) -> Folder:
    return Folder(
        id=row["id"], name=row["name"], position=row["position"], created_at=row["created_at"]
    )


def list_folders(conn: sqlite3.Connection) -> list[Folder]:
    rows = conn.execute(f"SELECT {FOLDER_COLUMNS} FROM folders ORDER BY position, id").fetchall()
    return [folder_from_row(row) for row in rows]


def fetch_folder(conn: sqlite3.Connection, folder_id: int) -> Folder | None:
    row = conn.execute(
        f"SELECT {FOLDER_COLUMNS} FROM folders WHERE id = ?", (folder_id,)
    ).fetchone()
    return folder_from_row(row) if row is not None else None


def insert_folder(conn: sqlite3.Connection, name: str, now: float) -> int:
    """A new folder after the others; returns its id."""
    (position,) = conn.execute("SELECT COALESCE(MAX(position), -1) + 1 FROM folders").fetchone()
    cursor = conn.execute(
        "INSERT INTO folders (name, position, created_at) VALUES (?, ?, ?)",
        (folder_name(name), position, now),
    )
    assert cursor.lastrowid is not None
    return cursor.lastrowid


def rename(conn: sqlite3.Connection, folder_id: int, name: str) -> bool:
    """False if the folder is gone."""
    cursor = conn.execute(
        "UPDATE folders SET name = ? WHERE id = ?", (folder_name(name), folder_id)
    )
    return cursor.rowcount > 0


def remove(conn: sqlite3.Connection, folder_id: int) -> None:
    """Delete a folder; its conversations stay, back at the list's top level. The foreign key
    would do the same, but only on connections that enforce foreign keys."""
    conn.execute("UPDATE conversations SET folder_id = NULL WHERE folder_id = ?", (folder_id,))
    conn.execute("DELETE FROM folders WHERE id = ?", (folder_id,))


def file_in(conn: sqlite3.Connection, conv_id: int, folder_id: int | None) -> None:
    conn.execute("UPDATE conversations SET folder_id = ? WHERE id = ?", (folder_id, conv_id))


def set_pinned(conn: sqlite3.Connection, conv_id: int, on: bool) -> None:
    conn.execute("UPDATE conversations SET pinned = ? WHERE id = ?", (int(on), conv_id))
