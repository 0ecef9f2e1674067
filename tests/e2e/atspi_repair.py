"""A damaged chat history, seen from outside as a person meets it: the window opened once on
thirty chats (Cove backs them up as it starts) and closed; then 8 KiB in the middle of
``cove.sqlite3`` overwritten, as a bad sector or a sync tool would; then Cove started again.

Run by the system's Python (it has ``pyatspi``) inside a D-Bus session, by
tests/e2e/test_history_repair.py:

    dbus-run-session -- python3 atspi_repair.py REPORT APP_PYTHON LAUNCHER

What the window says, how many chats the sidebar lists and what lies in the data folder go into
REPORT as JSON; the test judges it. Every wait polls for what it waits for, up to a deadline.
"""

from __future__ import annotations

import os
import random
import re
import sys
from typing import Any

from atspi_driver import Cove, drive_and_report, named, wait_for

DAMAGE = 8192


def backups(data: str) -> list[str]:
    folder = os.path.join(data, "backups")
    try:
        return sorted(n for n in os.listdir(folder) if n[0].isdigit())
    except OSError:
        return []


def damage(path: str) -> None:
    size = os.path.getsize(path)
    with open(path, "r+b") as out:
        out.seek(size // 2 - DAMAGE // 2)
        out.write(random.Random(3).randbytes(DAMAGE))


def chats_listed(cove: Cove) -> int:
    """The chats the sidebar lists (its rows, scrolled into view or not; headers left out)."""
    listing = named(cove.app, "list", "Conversations")
    if not listing:
        return -1
    return sum(1 for row in listing[0] if re.fullmatch(r"Chat \d+", row.name or ""))


def drive(report: dict[str, Any], python: str) -> None:
    env = dict(os.environ)
    env["QT_LINUX_ACCESSIBILITY_ALWAYS_ON"] = "1"
    env["QT_QPA_PLATFORM"] = "xcb"
    data = env["COVE_DATA_DIR"]
    history = os.path.join(data, "cove.sqlite3")
    first = Cove(python, env)
    try:
        wait_for("thirty chats in the sidebar", lambda: chats_listed(first) == 30)
        report["backups after the first start"] = wait_for(
            "the backup made at start", lambda: backups(data)
        )
    finally:
        first.stop()
    report["first exit"] = first.process.returncode
    damage(history)
    with open(history, "rb") as damaged:
        report["damaged size"] = len(damaged.read())
    second = Cove(python, env)
    try:
        title = second.one("label", "Your chat history was repaired")
        report["banner"] = title.name
        said = wait_for(
            "what was repaired, in words",
            lambda: named(second.app, "label", lambda name: "rebuilt" in name),
        )
        report["what was repaired"] = said[0].name
        report["chats listed"] = wait_for(
            "the chats in the sidebar", lambda: chats_listed(second) == 30 and 30
        )
        report["damaged folder"] = sorted(os.listdir(os.path.join(data, "damaged")))
    finally:
        second.stop()


def main() -> int:
    report_path, python, launcher = sys.argv[1:4]
    return int(drive_and_report(report_path, launcher, lambda report: drive(report, python)))


if __name__ == "__main__":
    sys.exit(main())
