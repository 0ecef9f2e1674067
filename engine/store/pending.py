"""Replies the disk had no room for: kept in memory, on screen, and saved once there is room.

SQLite writes a transaction whole or not at all, so a full disk leaves no half-written row: the
reply's row holds the text saved before the disk filled (status ``streaming``, which the next
start marks interrupted should Cove be closed first). What came after waits here, the newest
text of each reply only, and ``save`` tries again.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from engine.errors import HistoryDiskFull
from engine.store.database import Store
from engine.store.types import MessageStatus


@dataclass(frozen=True, slots=True)
class Unsaved:
    message_id: int
    text: str
    status: MessageStatus
    meta: dict[str, Any]


class PendingSaves:
    """Finished replies waiting for room on the disk; shared by the threads that save."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._items: dict[int, Unsaved] = {}

    def keep(self, message_id: int, text: str, status: MessageStatus, meta: dict[str, Any]) -> None:
        with self._lock:
            self._items[message_id] = Unsaved(message_id, text, status, dict(meta))

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)

    def __contains__(self, message_id: object) -> bool:
        with self._lock:
            return message_id in self._items

    def save(self, store: Store) -> list[int]:
        """Try to save every reply waiting; returns the ids of those saved. A disk still full
        keeps them waiting; a reply deleted meanwhile is dropped."""
        with self._lock:
            waiting = list(self._items.values())
        saved: list[int] = []
        for item in waiting:
            try:
                store.finish_message(item.message_id, item.text, item.status, item.meta)
            except HistoryDiskFull:
                break
            with self._lock:
                if self._items.get(item.message_id) == item:
                    del self._items[item.message_id]
            saved.append(item.message_id)
        return saved
