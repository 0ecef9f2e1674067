"""Start Cove twice on one data folder, as a person double-clicking a file does while the window is
open, and look from outside: the accessibility tree (the one Orca reads) and the process list.

Run by the system's Python (it has ``pyatspi``) inside a D-Bus session, by
tests/e2e/test_second_start.py:

    dbus-run-session -- python3 atspi_second_start.py REPORT APP_PYTHON LAUNCHER IMAGE

The first Cove is started and found in the tree, with its engine host; then ``cove IMAGE`` runs
with the same data folder. What the second start said, how many applications named Cove the bus
shows, how many engine hosts serve the data folder, and whether the image reached the first
window's message box go into REPORT as JSON; the test judges it. Every wait polls for what it
waits for, up to a deadline.
"""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import pyatspi
from atspi_driver import Cove, DriveError, drive_and_report, named, wait_for

SECOND_START_S = 180


def engine_hosts(data: str) -> list[int]:
    """The engine host processes serving ``data`` (whoever started them)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                command = f.read().split(b"\0")
            with open(f"/proc/{entry}/environ", "rb") as f:
                environment = f.read().split(b"\0")
        except OSError:  # gone meanwhile, or another user's
            continue
        if b"engine.host" in command and f"COVE_DATA_DIR={data}".encode() in environment:
            found.append(int(entry))
    return found


def coves() -> list[Any]:
    desktop = pyatspi.Registry.getDesktop(0)
    return [a for a in desktop if a is not None and (a.name or "").lower() == "cove"]


def drive(report: dict[str, Any], python: str, image: str) -> None:
    env = dict(os.environ)
    env["QT_LINUX_ACCESSIBILITY_ALWAYS_ON"] = "1"
    env["QT_QPA_PLATFORM"] = "xcb"
    data = env["COVE_DATA_DIR"]
    first = Cove(python, env)
    try:
        wait_for("the first window's engine host", lambda: engine_hosts(data))
        second = subprocess.run(
            [python, "-m", "app", image, "--language", "en"],
            env=env,
            capture_output=True,
            text=True,
            timeout=SECOND_START_S,
            check=False,
        )
        report["second start"] = {"code": second.returncode, "said": second.stderr.strip()}
        name = os.path.basename(image)
        wait_for(
            "the image in the first window's message box",
            lambda: named(first.app, "push button", f"Remove {name}"),
        )
        report["attached"] = name
        report["applications named Cove"] = len(coves())
        report["engine hosts"] = len(engine_hosts(data))
    except subprocess.TimeoutExpired as exc:
        raise DriveError(f"the second start did not end: {exc}") from exc
    finally:
        first.stop()


def main() -> int:
    report_path, python, launcher, image = sys.argv[1:5]
    return int(drive_and_report(report_path, launcher, lambda report: drive(report, python, image)))


if __name__ == "__main__":
    sys.exit(main())
