"""``cove history export PATH`` and ``cove history import PATH``: the whole history, its images,
settings and presets, the MCP server list (without its secrets) and the document collections'
definitions, in one archive to carry to another computer (engine/store/archive.py)."""

from __future__ import annotations

import argparse
from dataclasses import asdict

from engine.cli.output import print_json
from engine.documents.portable import CollectionsPart
from engine.mcp_servers.portable import ServerListPart
from engine.paths import shown
from engine.store import Store
from engine.store.archive import ExportSummary, ImportSummary, export_archive, import_archive


def archive_command(args: argparse.Namespace) -> int:
    with Store() as store:
        if args.history_command == "export":
            exported = export_archive(
                store, args.path, mcp_servers=ServerListPart(), collections=CollectionsPart()
            )
            _show_export(exported, args.json)
        else:
            if store.list_conversations():  # what the import adds can be undone by a restore
                store.backup("before-import")
            imported = import_archive(
                store, args.path, mcp_servers=ServerListPart(), collections=CollectionsPart()
            )
            _show_import(imported, args.json)
    return 0


def _plural(n: int, one: str, many: str | None = None) -> str:
    return f"1 {one}" if n == 1 else f"{n:,} {many or one + 's'}"


def _show_export(summary: ExportSummary, as_json: bool) -> None:
    if as_json:
        data = asdict(summary)
        data["path"] = str(summary.path)
        data["notes"] = list(summary.notes)
        print_json(data)
        return
    print(
        f"Exported {_plural(summary.conversations, 'chat')}, {_plural(summary.images, 'image')}, "
        f"{_plural(summary.presets, 'preset')} to {shown(summary.path)}."
    )
    if summary.notes:
        print(" ".join(summary.notes))


def _show_import(summary: ImportSummary, as_json: bool) -> None:
    if as_json:
        data = asdict(summary)
        data["missing_sources"] = list(summary.missing_sources)
        data["notes"] = list(summary.notes)
        print_json(data)
        return
    counts = [
        (summary.conversations_added, "new chat", None),
        (
            summary.conversations_merged,
            "chat you had with new messages",
            "chats you had with new messages",
        ),
        (summary.images_added, "image", None),
        (summary.presets_added, "preset", None),
        (summary.settings_added, "setting", None),
        (summary.mcp_servers_added, "MCP server", None),
        (summary.collections_added, "document collection", None),
    ]
    found = [_plural(n, one, many) for n, one, many in counts if n]
    if found:
        line = f"Imported {', '.join(found)}."
    else:
        line = "Nothing new to import: everything in the archive is here already."
    print(line)
    if summary.notes:
        print(" ".join(summary.notes))
