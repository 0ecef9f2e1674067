"""``cove history``: the chat history's backups, its check and repair, and moving it whole.

``backup`` makes a backup now; ``backups`` lists them; ``restore [NAME]`` puts one back (the
newest without NAME); ``check`` runs SQLite's integrity check (``--repair`` repairs a damaged
file); ``export PATH`` writes everything to one archive and ``import PATH`` merges one in.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from engine.cli.output import print_json


def add_history_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    history = sub.add_parser(
        "history", help="back up, check, restore, export or import the chat history"
    )
    actions = history.add_subparsers(dest="history_command", metavar="ACTION", required=True)
    backup = actions.add_parser("backup", help="back up the chat history now")
    backup.add_argument("--json", action="store_true", help="print JSON")
    backups = actions.add_parser("backups", help="list the backups, newest first")
    backups.add_argument("--json", action="store_true", help="print JSON")
    restore = actions.add_parser(
        "restore",
        help="put a backup back (the newest without NAME); the history is backed up first",
    )
    restore.add_argument(
        "name", nargs="?", metavar="NAME", help="a name 'cove history backups' shows"
    )
    restore.add_argument("--json", action="store_true", help="print JSON")
    check = actions.add_parser("check", help="check that the chat history file is whole")
    check.add_argument(
        "--repair",
        action="store_true",
        help="repair a damaged file from its backup and what it still holds",
    )
    check.add_argument("--json", action="store_true", help="print JSON")
    export = actions.add_parser(
        "export", help="write every chat, preset and setting to one archive"
    )
    export.add_argument("path", type=Path, metavar="PATH", help="the archive to write (.zip)")
    export.add_argument("--json", action="store_true", help="print JSON")
    imported = actions.add_parser(
        "import", help="merge an archive 'cove history export' wrote into this history"
    )
    imported.add_argument("path", type=Path, metavar="PATH", help="the archive to read")
    imported.add_argument("--json", action="store_true", help="print JSON")


def history_command(args: argparse.Namespace) -> int:
    action = args.history_command
    if action in ("export", "import"):
        from engine.cli.history_archive import archive_command

        return archive_command(args)
    from engine.cli.history_backups import backups_command

    return backups_command(args)


__all__ = ["add_history_parser", "history_command", "print_json"]
