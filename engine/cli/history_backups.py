"""``cove history backup | backups | restore | check``: the history's backups from the terminal.

Restoring or repairing replaces the file under a running window, so both refuse while Cove's
window is open on this data folder and say where to do it instead (Settings › Data).
"""

from __future__ import annotations

import argparse
from typing import Any

from engine.cli.output import EXIT_ERROR, print_json
from engine.errors import StoreError
from engine.paths import db_path, shown


def backups_command(args: argparse.Namespace) -> int:
    action = args.history_command
    if action == "check":
        return _check(args.repair, args.json)
    if action == "backups":
        return _list(args.json)
    from engine.store import Store

    if action == "restore":
        _refuse_beside_window("restore a backup")
    with Store(repair=action == "restore") as store:
        if action == "backup":
            taken = store.backup("manual")
            if args.json:
                print_json(taken.to_json())
            else:
                print(
                    f"Backed up {taken.conversations} chats ({taken.messages} messages) to "
                    f"{shown(taken.path)}."
                )
            return 0
        restored, before = store.restore(args.name)
    if args.json:
        print_json({"restored": restored.to_json(), "before": before.to_json() if before else None})
    else:
        print(f"Restored the backup of {_when(restored.taken_at)}: {restored.conversations} chats.")
        if before is not None:
            print(f"The history as it was is kept as the backup {before.name}.")
    return 0


def _list(as_json: bool) -> int:
    from engine.store.backups import Backups

    backups = Backups(db_path())
    found = backups.taken()
    if as_json:
        print_json(
            {
                "folder": str(backups.folder),
                "bytes": backups.total_bytes(),
                "backups": [b.to_json() for b in found],
            }
        )
        return 0
    if not found:
        print("No backups yet: Cove makes one a day while it runs; 'cove history backup' now.")
        return 0
    for backup in found:
        print(
            f"{backup.name}  {_when(backup.taken_at)}  {backup.reason:<16} "
            f"{backup.conversations:>5} chats  {backup.bytes / 2**20:8.1f} MB"
        )
    return 0


def _check(repair: bool, as_json: bool) -> int:
    from engine.store import repair as store_repair
    from engine.store.backups import Backups

    path = db_path()
    backups = Backups(path)
    problem = store_repair.diagnose(path, backups, full=True)
    repaired: store_repair.Repair | None = None
    if problem is not None and repair:
        _refuse_beside_window("repair the chat history")
        repaired = store_repair.repair(path, backups, problem)
    newest = backups.newest()
    report: dict[str, Any] = {
        "path": str(path),
        "ok": problem is None,
        "problem": problem,
        "repaired": repaired.to_json() if repaired else None,
        "backups": len(backups.taken()),
        "newest_backup": newest.to_json() if newest else None,
    }
    if as_json:
        print_json(report)
    elif problem is None:
        print(f"The chat history {shown(path)} is whole.")
    elif repaired is not None:
        print(f"The chat history was damaged: {problem}.")
        print(_repaired_words(repaired))
    else:
        print(f"The chat history {shown(path)} is damaged: {problem}.")
        print("'cove history check --repair' rebuilds it from its backup and what it still holds.")
    return 0 if problem is None or repaired is not None else EXIT_ERROR


def _repaired_words(repaired: Any) -> str:
    source = (
        f"the backup of {_when(repaired.backup_taken_at)}"
        if repaired.backup_taken_at is not None
        else "no backup (there was none)"
    )
    return (
        f"Rebuilt from {source} and {repaired.salvaged_rows} rows still readable: "
        f"{repaired.conversations} chats, {repaired.messages} messages. The damaged file is kept "
        f"in {shown(repaired.damaged_copy)}."
    )


def _when(at: float) -> str:
    import datetime

    return datetime.datetime.fromtimestamp(at).strftime("%Y-%m-%d %H:%M")


def _refuse_beside_window(doing: str) -> None:
    try:
        from engine.instance import running_window
    except ImportError:  # pragma: no cover - the module ships with this one
        return
    window = running_window()
    if window is not None:
        raise StoreError(
            f"Cove's window is open on this data folder (process {window.pid}), so the terminal "
            f"does not {doing} under it: use Settings › Data in the window, or close it first."
        )
