"""Drive Cove's real window from outside, as a screen reader user does: through the AT-SPI tree
(the one Orca reads), finding every control by the name a person hears.

Run by the system's Python (it has ``pyatspi``) inside a D-Bus session, by
tests/e2e/test_accessibility.py:

    dbus-run-session -- python3 atspi_driver.py REPORT APP_PYTHON

It starts a virtual X server and the accessibility bus, starts Cove, sends a message, regenerates
twice, flips between versions, edits the question, switches the chat's model, branches, deletes a
reply and undoes it; then restarts Cove and reads back what it shows. What it saw goes into
REPORT as JSON; the test judges it. Every wait polls the tree for what it waits for, up to a
deadline: nothing here sleeps in place of a signal.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

import pyatspi

WAIT_S = 240.0
TRIES = 5
POLL_S = 0.25
KEY_DOWN = 0xFF54  # X keysyms
KEY_RETURN = 0xFF0D
KEY_UP = 0xFF52


# The speaker labels of messages: "You" and the names of the models met so far.
SPEAKERS: set[str] = {"You"}


class DriveError(RuntimeError):
    pass


class Unsupported(RuntimeError):
    """The machine cannot show the window at all (no X11 libraries for Qt)."""


def walk(node: Any, depth: int = 0) -> Iterator[Any]:
    """Every node under ``node`` that is showing, in the tree's order (a window's order)."""
    if node is None or depth > 60:
        return
    try:
        if depth and not node.getState().contains(pyatspi.STATE_SHOWING):
            return
        yield node
        children = list(node)
    except Exception:  # a node that went away while it was read
        return
    for child in children:
        yield from walk(child, depth + 1)


def named(app: Any, role: str, name: str | Callable[[str], bool]) -> list[Any]:
    test = name if callable(name) else (lambda text: text == name)
    found = []
    for node in walk(app):
        try:
            if node.getRoleName() == role and test(node.name or ""):
                found.append(node)
        except Exception:
            continue
    return found


def enabled(node: Any) -> bool:
    return bool(node.getState().contains(pyatspi.STATE_SENSITIVE))


def wait_for(what: str, probe: Callable[[], Any], timeout: float = WAIT_S) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            result = probe()
        except (DriveError, Unsupported):
            raise
        except Exception:
            result = None
        if result:
            return result
        time.sleep(POLL_S)
    raise DriveError(f"gave up waiting for {what}")


def press(node: Any) -> None:
    action = node.queryAction()
    names = [action.getName(i) for i in range(action.nActions)]
    for wanted in ("Press", "press", "click", "Toggle", "toggle"):
        if wanted in names:
            action.doAction(names.index(wanted))
            return
    raise DriveError(f"{node.getRoleName()} {node.name!r} cannot be pressed (actions: {names})")


def key(keysym: int) -> None:
    pyatspi.Registry.generateKeyboardEvent(keysym, None, pyatspi.KEY_SYM)


class Cove:
    """One run of the app, and what a person does in it."""

    def __init__(self, python: str, env: dict[str, str]) -> None:
        self.process = subprocess.Popen(
            [python, "-m", "app"],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=open(os.path.join(env["COVE_DATA_DIR"], "..", "app.log"), "ab"),  # noqa: SIM115
        )
        self.log = os.path.join(env["COVE_DATA_DIR"], "..", "app.log")
        self.app = wait_for("Cove in the accessibility tree", self._find_app, 120)

    def _find_app(self) -> Any:
        if self.process.poll() is not None:
            with open(self.log, encoding="utf-8", errors="replace") as log:
                said = log.read()[-2000:]
            if "platform plugin" in said and "xcb" in said:
                raise Unsupported(f"Qt cannot open an X11 window here: {said.strip()[-300:]}")
            raise DriveError(f"Cove exited ({self.process.returncode}): {said}")
        for app in pyatspi.Registry.getDesktop(0):
            if app is not None and (app.name or "").lower() == "cove":
                return app
        return None

    def one(self, role: str, name: str, last: bool = False, timeout: float = WAIT_S) -> Any:
        found = wait_for(f"{role} {name!r}", lambda: named(self.app, role, name), timeout)
        return found[-1] if last else found[0]

    def labels(self, test: Callable[[str], bool]) -> list[str]:
        """Labels' names, top to bottom as they are on screen."""
        return [node.name for node in sorted(named(self.app, "label", test), key=_top)]

    def idle(self) -> None:
        """The reply is written: the last reply's Regenerate can be pressed again."""
        wait_for(
            "the reply to finish",
            lambda: (
                (buttons := named(self.app, "push button", "Regenerate"))
                and enabled(buttons[-1])
                and not named(self.app, "push button", "Stop")
            ),
        )

    def send(self, text: str) -> None:
        field = self.one("text", "Message")
        field.queryEditableText().setTextContents(text)
        press(self.one("push button", "Send"))
        wait_for("the message to be sent", lambda: not field.queryText().getText(0, -1))
        self.idle()

    def versions(self) -> list[str]:
        return self.labels(lambda name: name.startswith("Version "))

    def wait_versions(self, expected: list[str]) -> None:
        wait_for(f"the versions to read {expected}", lambda: self.versions() == expected)

    def speakers(self) -> list[str]:
        """Who wrote each message shown, top to bottom: "You" or a model's name."""
        return self.labels(lambda name: name in SPEAKERS)

    def stop(self) -> None:
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(30)


# Controls a person acts on, which a screen reader must be able to name.
CONTROLS = {
    "push button",
    "toggle button",
    "check box",
    "radio button",
    "combo box",
    "text",
    "password text",
    "spin button",
    "slider",
    "page tab",
}
SYMBOLS = {"⋯", "…", "+", "×", "▾", "‹", "›", "?"}  # a symbol says nothing to a screen reader
COMMAND_LINE = re.compile(r"\bcove [a-z]+\b")


def audit(app: Any, page: str, report: dict[str, Any]) -> None:
    """Record the showing controls without a name that says what they do, and any text that
    asks for a terminal (a ``cove <command>`` line)."""
    unnamed, commands = report.setdefault("unnamed", []), report.setdefault("command lines", [])
    report.setdefault("pages audited", []).append(page)
    for node in walk(app):
        try:
            role, name = node.getRoleName(), (node.name or "").strip()
        except Exception:
            continue
        if role in CONTROLS and (not name or name in SYMBOLS):
            unnamed.append(f"{page}: {role} {name!r} ({node.description})")
        texts = [name]
        with contextlib.suppress(Exception):  # a node without text
            texts.append(node.queryText().getText(0, -1))
        commands.extend(f"{page}: {t[:80]!r}" for t in texts if t and COMMAND_LINE.search(t))


def audit_pages(cove: Cove, report: dict[str, Any]) -> None:
    """The chat, every tab of Models, Hardware and Documents, as a person opens them."""
    audit(cove.app, "chat", report)
    for page in ("Models", "Hardware", "Documents"):
        press(cove.one("push button", page))
        wait_for(f"the {page} page", lambda: named(cove.app, "push button", "Back to chat"))
        audit(cove.app, page, report)
        if page == "Models":
            for tab in named(cove.app, "page tab", lambda _n: True):
                tab.parent.querySelection().selectChild(tab.getIndexInParent())
                wait_for(f"the {tab.name} tab", functools.partial(_selected, tab))
                audit(cove.app, f"Models › {tab.name}", report)
    press(cove.one("push button", "Back to chat"))
    wait_for("the chat", lambda: named(cove.app, "text", "Message"))


def _choices(combo: Any) -> int:
    """How many choices a combo box's list holds."""
    for node in combo:
        if node.getRoleName() == "list":
            return int(node.childCount)
    return 0


def _text_of(node: Any) -> str:
    try:
        return str(node.queryText().getText(0, -1))
    except Exception as exc:
        return f"<{type(exc).__name__}: {exc}>"


def _selected(node: Any) -> bool:
    return bool(node.getState().contains(pyatspi.STATE_SELECTED))


def start_display() -> subprocess.Popen[bytes]:
    read, write = os.pipe()
    server = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write), "-screen", "0", "1280x860x24", "-nolisten", "tcp"],
        pass_fds=(write,),
        stderr=subprocess.DEVNULL,
    )
    os.close(write)
    number = b""
    while not number.endswith(b"\n"):
        chunk = os.read(read, 16)
        if not chunk:
            raise DriveError("Xvfb did not start")
        number += chunk
    os.close(read)
    os.environ["DISPLAY"] = f":{number.decode().strip()}"
    return server


def start_bus(launcher: str) -> subprocess.Popen[bytes]:
    bus = subprocess.Popen(
        [launcher, "--launch-immediately"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    wait_for("the accessibility bus", lambda: pyatspi.Registry.getDesktop(0) is not None, 60)
    return bus


def drive(report: dict[str, Any], python: str) -> None:
    env = dict(os.environ)
    env["QT_LINUX_ACCESSIBILITY_ALWAYS_ON"] = "1"
    env["QT_QPA_PLATFORM"] = "xcb"
    cove = Cove(python, env)
    welcome = named(cove.app, "push button", "Start chatting")
    if welcome:
        press(welcome[0])
    audit_pages(cove, report)
    model = cove.one("combo box", "Model")
    report["combo boxes"] = sorted({n.name for n in named(cove.app, "combo box", lambda _n: True)})
    starter = wait_for("the starter model's name", lambda: _current_choice(model))
    report["starter"] = starter
    SPEAKERS.add(starter)

    cove.send("Say a greeting.")
    report["after send"] = {"versions": cove.versions(), "speakers": cove.speakers()}
    press(cove.one("push button", "Regenerate", last=True))
    cove.wait_versions(["Version 2 of 2"])
    cove.idle()
    press(cove.one("push button", "Regenerate", last=True))
    cove.wait_versions(["Version 3 of 3"])
    cove.idle()
    press(cove.one("push button", "Previous version", last=True))
    cove.wait_versions(["Version 2 of 3"])
    press(cove.one("push button", "Previous version", last=True))
    cove.wait_versions(["Version 1 of 3"])
    report["flipped"] = cove.versions()

    press(cove.one("push button", "Edit"))
    editor = cove.one("text", "Edit message")
    editor.queryEditableText().setTextContents("Say goodbye.")
    press(cove.one("push button", "Save and send"))
    cove.wait_versions(["Version 2 of 2"])
    cove.idle()
    report["edited"] = cove.versions()

    # The chat's model, chosen by keyboard as a person does (Ctrl+L puts them there).
    wait_for("the installed models to be listed", lambda: _choices(model) >= 2)
    model.queryComponent().grabFocus()
    wait_for(
        "the Model box to have focus", lambda: model.getState().contains(pyatspi.STATE_FOCUSED)
    )
    other = ""
    for _ in range(TRIES):  # a key can land before the window has the keyboard: press again
        model.queryComponent().grabFocus()
        key(KEY_DOWN)
        try:
            other = wait_for(
                "another model", lambda: (c := _current_choice(model)) != starter and c, 10
            )
            break
        except DriveError:
            continue
    report["model chosen by"] = "the Down key"
    if not other:
        # The keyboard can stay with another window under Xvfb on a busy machine; a screen
        # reader's list navigation selects the item through the accessibility tree instead.
        _select_other(model, starter)
        other = wait_for(
            "another model", lambda: (c := _current_choice(model)) != starter and c, 30
        )
        report["model chosen by"] = "the list's selection"
    report["other model"] = other
    SPEAKERS.add(other)
    cove.send("And you?")
    report["after switch"] = {"versions": cove.versions(), "speakers": cove.speakers()}

    # Delete the last reply, and bring it back.
    press(cove.one("push button", "Delete", last=True))
    undo = cove.one("push button", "Undo")
    report["hidden by delete"] = cove.speakers()
    press(undo)
    wait_for(
        "the reply to come back", lambda: cove.speakers() == report["after switch"]["speakers"]
    )
    report["undone"] = cove.speakers()

    # Branch from the first reply: a new chat, named after this one, opens.
    press(named(cove.app, "push button", "Branch from here")[1])
    title = wait_for(
        "the branch", lambda: cove.labels(lambda name: name == "Say a greeting. (branch)")
    )
    wait_for("the branch's messages", lambda: len(cove.speakers()) == 2)
    report["branch"] = {"title": title[0], "speakers": cove.speakers()}
    # Back to the first chat, from the sidebar's list, which holds both.
    report["listed"] = sorted(n.name for n in named(cove.app, "list item", lambda n: "Say" in n))
    _open(cove.one("list item", "Say a greeting."))
    wait_for("the first chat", lambda: cove.speakers() == report["after switch"]["speakers"])
    report["before restart"] = {"versions": cove.versions(), "speakers": cove.speakers()}
    audit(cove.app, "chat with messages", report)
    bodies = [node for node in walk(cove.app) if (node.name or "").startswith("Reply from ")]
    report["reply bodies"] = [(b.getRoleName(), b.name, pyatspi.listInterfaces(b)) for b in bodies]
    report["a reply read aloud"] = " ".join(_text_of(b) for b in bodies)
    cove.stop()

    again = Cove(python, env)
    wait_for(
        "the same chat after a restart",
        lambda: again.speakers() == report["before restart"]["speakers"],
    )
    picker = again.one("combo box", "Model")
    wait_for("the chat's model to come back", lambda: _current_choice(picker) == other, 120)
    report["after restart"] = {
        "versions": again.versions(),
        "speakers": again.speakers(),
        "model": _current_choice(picker),
    }
    again.stop()


def _select_other(combo: Any, current: str) -> None:
    """Select, in a combo box's list, the first item that is not ``current``."""
    for node in combo:
        if node.getRoleName() == "list":
            for item in node:
                if str(item.name).split(" — ")[0] not in ("", current):
                    node.querySelection().selectChild(item.getIndexInParent())
                    return
    raise DriveError("the Model box lists no other model")


def _current_choice(combo: Any) -> str:
    """The model a combo box shows: its list's selected item, by name (before " — ")."""
    for node in combo:
        if node.getRoleName() == "list":
            selection = node.querySelection()
            if selection.nSelectedChildren:
                return str(selection.getSelectedChild(0).name).split(" — ")[0]
    return ""


def _open(item: Any) -> None:
    """Move to a list's item with the arrow keys, as a person does, and press Enter on it. Each
    key is pressed once its effect is seen: the focus moves before the next, so none is skipped,
    and a key that lands nowhere is pressed again."""
    listing, wanted = item.parent, item.name
    target = item.getIndexInParent()
    listing.queryComponent().grabFocus()
    current = wait_for("the list to have focus", lambda: _focused_in(listing))
    for _ in range(3 * listing.childCount + TRIES):
        if current.name == wanted:
            key(KEY_RETURN)
            return
        before = current.getIndexInParent()
        key(KEY_DOWN if before < target else KEY_UP)
        try:
            current = wait_for("the focus to move", _moved_from(listing, before), 5)
        except DriveError:
            listing.queryComponent().grabFocus()  # the key went elsewhere: again
            current = wait_for("the list to have focus", lambda: _focused_in(listing))
    rows = [(n.name, n.getState().contains(pyatspi.STATE_FOCUSED)) for n in listing]
    raise DriveError(f"no item {wanted!r} in the list; it holds {rows}, at {current.name!r}")


def _moved_from(listing: Any, before: int) -> Callable[[], Any]:
    """A probe: the list's focused item once it is another than the one at ``before``."""

    def probe() -> Any:
        node = _focused_in(listing)
        return node if node is not None and node.getIndexInParent() != before else None

    return probe


def _focused_in(listing: Any) -> Any:
    for node in listing:
        if node.getState().contains(pyatspi.STATE_FOCUSED):
            return node
    return None


def _top(node: Any) -> int:
    return int(node.queryComponent().getExtents(pyatspi.DESKTOP_COORDS).y)


def main() -> int:
    report_path, python, launcher = sys.argv[1], sys.argv[2], sys.argv[3]
    return drive_and_report(report_path, launcher, lambda report: drive(report, python))


def drive_and_report(report_path: str, launcher: str, run: Callable[[dict[str, Any]], None]) -> int:
    """Start the X server and the accessibility bus, ``run`` the drive, and write what it saw
    (or why it stopped) to ``report_path`` as JSON, however it ends."""
    report: dict[str, Any] = {}
    display = start_display()
    bus = start_bus(launcher)
    try:
        run(report)
        report["ok"] = True
    except DriveError as exc:
        report["error"] = str(exc)
    except Unsupported as exc:
        report["skip"] = str(exc)
    finally:
        with open(report_path, "w", encoding="utf-8") as out:
            json.dump(report, out, indent=2)
        bus.terminate()
        display.terminate()
    return 0


if __name__ == "__main__":
    sys.exit(main())
