"""What the conversation list shows, row by row: pinned chats first, then the folders with the
chats filed in them, then every other chat under the day it was last used."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import TYPE_CHECKING, Literal

from app.common.i18n import tr

if TYPE_CHECKING:
    from engine.store import Conversation, Folder

WEEK_DAYS = 7

RowKind = Literal["heading", "folder", "chat", "empty"]


def when_heading(day: date, today: date) -> str:
    """Which heading of the list a conversation last used on ``day`` goes under."""
    age = (today - day).days
    if age <= 0:
        return tr("Sidebar", "Today")
    if age == 1:
        return tr("Sidebar", "Yesterday")
    if age <= WEEK_DAYS:
        return tr("Sidebar", "Previous 7 days")
    return tr("Sidebar", "Older")


@dataclass(frozen=True, slots=True)
class Row:
    """One row of the list. ``in_folder``: the folder a chat (or an empty folder's note) is shown
    in; ``count``: how many chats a folder holds."""

    kind: RowKind
    text: str
    conversation: Conversation | None = None
    folder: Folder | None = None
    in_folder: int | None = None
    count: int = 0


def _chat(conv: Conversation, in_folder: int | None = None) -> Row:
    return Row("chat", conv.title or tr("Sidebar", "Untitled"), conv, in_folder=in_folder)


def arrange(
    conversations: Sequence[Conversation], folders: Sequence[Folder], today: date
) -> list[Row]:
    """The rows for ``conversations`` (newest first) and ``folders`` (in their order). A pinned
    chat is shown once, under Pinned, wherever it is filed. A chat filed in a folder not among
    ``folders`` (one created since they were read) waits for them to be read again."""
    rows: list[Row] = []
    pinned = [c for c in conversations if c.pinned]
    if pinned:
        rows.append(Row("heading", tr("Sidebar", "Pinned")))
        rows.extend(_chat(c) for c in pinned)
    filed: dict[int, list[Conversation]] = {f.id: [] for f in folders}
    loose: list[Conversation] = []
    for conv in conversations:
        if conv.pinned:
            continue
        if conv.folder_id is None:
            loose.append(conv)
        elif conv.folder_id in filed:
            filed[conv.folder_id].append(conv)
    if folders:
        rows.append(Row("heading", tr("Sidebar", "Folders")))
    for folder in folders:
        inside = filed[folder.id]
        rows.append(Row("folder", folder.name, folder=folder, count=len(inside)))
        rows.extend(_chat(c, folder.id) for c in inside)
        if not inside:
            rows.append(
                Row("empty", tr("Sidebar", "No chats yet: drag one here"), in_folder=folder.id)
            )
    heading = None
    for conv in loose:
        when = when_heading(datetime.fromtimestamp(conv.updated_at).date(), today)
        if when != heading:
            heading = when
            rows.append(Row("heading", when))
        rows.append(_chat(conv))
    return rows


def new_folder_name(taken: Sequence[str]) -> str:
    """ "New folder", or "New folder 2" and on when that name is taken."""
    base = tr("Sidebar", "New folder")
    names = {name.casefold() for name in taken}
    if base.casefold() not in names:
        return base
    n = 2
    while tr("Sidebar", "{name} {n}").format(name=base, n=n).casefold() in names:
        n += 1
    return tr("Sidebar", "{name} {n}").format(name=base, n=n)
