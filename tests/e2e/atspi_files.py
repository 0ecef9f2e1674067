"""Drive Cove's real window from outside through the AT-SPI tree, as a screen reader user does:
open Settings and read every section, attach a PDF to a chat with the file dialog, ask about it
and hear the page its answer comes from, then switch the window's language and restart.

Run by the system's Python (it has ``pyatspi``) inside a D-Bus session, by
tests/e2e/test_accessibility.py:

    dbus-run-session -- python3 atspi_files.py REPORT APP_PYTHON LAUNCHER PDF

What it saw goes into REPORT as JSON; the test judges it. Every wait polls the tree.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from typing import Any

import pyatspi
from atspi_driver import (
    KEY_DOWN,
    TRIES,
    WAIT_S,
    Cove,
    DriveError,
    audit,
    drive_and_report,
    key,
    named,
    press,
    wait_for,
    walk,
)

# Each section, and a control that shows once it is open.
SECTIONS = {
    "Appearance": ("combo box", "Theme"),
    "Engine": ("radio button", "This computer"),
    "MCP servers": ("check box", "Offer these tools in chats"),
    "Saved state": ("push button", "Clear saved state"),
    "Privacy": ("push button", "Open the data folder"),
    "Data": ("push button", "Back up now"),
}


def texts(app: Any) -> list[str]:
    """Every name and text showing in the window."""
    found = []
    for node in walk(app):
        with contextlib.suppress(Exception):
            found.append(node.name or "")
            found.append(node.queryText().getText(0, -1))
    return [t for t in found if t]


def current_choice(combo: Any) -> str:
    """What a combo box shows: its list's selected item."""
    for node in combo:
        if node.getRoleName() == "list":
            selection = node.querySelection()
            if selection.nSelectedChildren:
                return str(selection.getSelectedChild(0).name)
    return ""


def focused(node: Any) -> bool:
    return bool(node.getState().contains(pyatspi.STATE_FOCUSED))


def choose(listing: Any, name: str) -> None:
    """Select a list's item by its name, as a screen reader's list navigation does."""
    for node in listing:
        if node.name == name:
            listing.querySelection().selectChild(node.getIndexInParent())
            return
    raise DriveError(f"no {name!r} in the list")


def settings_pages(cove: Cove, report: dict[str, Any]) -> None:
    press(cove.one("push button", "Settings"))
    sections = cove.one("list", "Settings sections")
    report["settings sections"] = [node.name for node in sections]
    for section, (role, name) in SECTIONS.items():
        choose(sections, section)
        cove.one(role, name)
        audit(cove.app, f"Settings › {section}", report)


def attach(cove: Cove, pdf: str, report: dict[str, Any]) -> None:
    press(cove.one("push button", "Back to chat"))
    press(cove.one("push button", "Attach files"))
    dialog_name = wait_for(
        "the file dialog",
        lambda: next(
            (
                node
                for node in cove.app
                if node.getRoleName() in ("dialog", "file chooser")
                or (node.name or "") == "Attach files"
            ),
            None,
        ),
    )
    field = wait_for(
        "the file name field",
        lambda: next(
            (
                node
                for node in walk(dialog_name)
                if node.getRoleName() == "text" and "name" in (node.name or "").lower()
            ),
            None,
        ),
    )
    field.queryEditableText().setTextContents(pdf)
    opened = wait_for(
        "the dialog's Open button",
        lambda: next(
            (
                node
                for node in walk(dialog_name)
                if node.getRoleName() == "push button" and node.name in ("Open", "&Open")
            ),
            None,
        ),
    )
    press(opened)
    chip = wait_for(
        "the PDF to be read into the chat",
        lambda: [t for t in texts(cove.app) if "harbour_guide.pdf" in t and "pages" in t],
    )
    report["file shown"] = chip[0]
    cove.send("When does the ferry to Gull Island leave?")
    cited = wait_for(
        "the reply's sources",
        lambda: [t for t in texts(cove.app) if "harbour_guide.pdf · page" in t],
    )
    report["cited"] = cited[0]


def switch_language(cove: Cove, report: dict[str, Any], python: str, env: dict[str, str]) -> int:
    """Settings › Appearance › Language: Deutsch, then "Restart Cove now"; returns the new
    window's process id."""
    press(cove.one("push button", "Settings"))
    choose(cove.one("list", "Settings sections"), "Appearance")
    language = cove.one("combo box", "Language")
    # As a screen reader sets a combo box: by selecting in its list; by keyboard where that
    # did not take (the box takes the focus, Down moves to the next language).
    listing = next(node for node in language if node.getRoleName() == "list")
    choose(listing, "Deutsch")
    with contextlib.suppress(DriveError):
        wait_for("Deutsch chosen", lambda: current_choice(language) == "Deutsch", 10)
    for _ in range(3 * TRIES):
        if current_choice(language) == "Deutsch":
            break
        language.queryComponent().grabFocus()
        with contextlib.suppress(DriveError):  # the window may not have the keyboard yet
            wait_for("the Language box to have focus", lambda: focused(language), 10)
        before = current_choice(language)
        key(KEY_DOWN)
        with contextlib.suppress(DriveError):
            wait_for("another language", lambda b=before: current_choice(language) != b, 10)
    if current_choice(language) != "Deutsch":
        raise DriveError(f"the Language box stayed at {current_choice(language)!r}")
    restart = cove.one("push button", "Restart Cove now")
    old = cove.process.pid
    press(restart)
    cove.process.wait(WAIT_S)

    def new_app() -> Any:
        for app in pyatspi.Registry.getDesktop(0):
            if app is not None and (app.name or "").lower() == "cove":
                with contextlib.suppress(Exception):
                    if app.get_process_id() != old:
                        return app
        return None

    app = wait_for("Cove started again", new_app)
    send = wait_for("the Send button in German", lambda: named(app, "push button", "Senden"))
    report["send after restart"] = send[0].name
    report["attach after restart"] = [
        n.name for n in named(app, "push button", lambda name: name.startswith("Dateien"))
    ]
    report["settings after restart"] = [n.name for n in named(app, "push button", "Einstellungen")]
    return int(app.get_process_id())


def drive(report: dict[str, Any], python: str, pdf: str) -> None:
    env = dict(os.environ)
    env["QT_LINUX_ACCESSIBILITY_ALWAYS_ON"] = "1"
    env["QT_QPA_PLATFORM"] = "xcb"
    cove = Cove(python, env)
    welcome = named(cove.app, "push button", "Start chatting")
    if welcome:
        press(welcome[0])
    settings_pages(cove, report)
    attach(cove, pdf, report)
    pid = switch_language(cove, report, python, env)
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)


def main() -> int:
    report_path, python, launcher, pdf = sys.argv[1:5]
    return int(drive_and_report(report_path, launcher, lambda report: drive(report, python, pdf)))


if __name__ == "__main__":
    sys.exit(main())
