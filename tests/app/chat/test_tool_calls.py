"""MCP tools in the window, on a real tool-trained model (Qwen2.5-Coder-0.5B-Instruct) and real
MCP servers over stdio (one written with the SDK in tests/, ``mcp-server-time`` from the
registry, and one that dies at start): the consent prompt inside the reply, Deny, Allow once and
Always allow this tool; the call folded in the conversation with its arguments and result; the
failing server reported in Settings while the others' tools work; results shown as text."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.app.conftest import (
    LOAD_TIMEOUT_MS,
    QUICK_MS,
    REPLY_TIMEOUT_MS,
    WindowFactory,
    type_and_send,
)
from tests.mcp_servers import CRASHES, NOTES, entry

if TYPE_CHECKING:
    from pytestqt.qtbot import QtBot

    from app.chat.message.tool_call_card import ToolCallCard
    from app.chat.message.widget import MessageWidget
    from app.shell.main_window import MainWindow
    from engine.client.local import LocalEngine

pytestmark = pytest.mark.slow

ASK_ADD = "Use the add tool: what is 1234 plus 4321?"
TIME_SERVER = shutil.which("mcp-server-time")


@pytest.fixture(scope="module")
def tool_engine(tool_model: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from engine.client.local import LocalEngine

    log = tmp_path_factory.mktemp("host") / "engine.log"
    host = LocalEngine.start(model=str(tool_model), log_path=log, ready_timeout=180)
    yield host
    host.stop()
    host.client.close()


@pytest.fixture
def engine(tool_engine: LocalEngine) -> LocalEngine:
    """The window's host in this module: the tool-trained model's."""
    if not tool_engine.alive():
        tool_engine.restart()
    return tool_engine


@pytest.fixture
def servers(data_dir: Path) -> Path:
    listed: dict[str, Any] = {"notes": entry(NOTES), "broken": entry(CRASHES)}
    if TIME_SERVER:
        listed["time"] = {"command": TIME_SERVER, "args": ["--local-timezone", "UTC"]}
    data_dir.mkdir(parents=True, exist_ok=True)
    path = data_dir / "mcp.json"
    path.write_text(json.dumps({"mcpServers": listed}))
    return path


def open_window(qtbot: QtBot, make_window: WindowFactory) -> MainWindow:
    from engine.store import ChatSettings

    window = make_window()
    if window.mcp.starting:
        with qtbot.waitSignal(window.mcp.statuses_changed, timeout=LOAD_TIMEOUT_MS):
            pass
    window.controller.draft_settings = ChatSettings(temperature=0.0, max_tokens=120)
    return window


def reply(window: MainWindow) -> MessageWidget:
    return window.view.messages[-1]


def wait_for_card(qtbot: QtBot, window: MainWindow, state: str) -> ToolCallCard:
    def card() -> ToolCallCard | None:
        cards = list(reply(window).call_cards.values()) if window.view.messages else []
        return next((c for c in cards if c.call.get("state") == state), None)

    qtbot.waitUntil(lambda: card() is not None, timeout=REPLY_TIMEOUT_MS)
    found = card()
    assert found is not None
    return found


def answer_and_finish(qtbot: QtBot, window: MainWindow, click: Any) -> Any:
    """Answer the waiting call with ``click``, then Deny any further call the model makes in
    this reply (a small model may reach for another tool); the reply's outcome."""
    outcomes: list[Any] = []
    window.controller.reply_finished.connect(outcomes.append)
    answered = {id(reply(window).call_cards.get(k)) for k in reply(window).call_cards}
    click()

    def settled() -> bool:
        if outcomes:
            return True
        for card in reply(window).call_cards.values():
            if card.call.get("state") == "asking" and id(card) not in answered:
                answered.add(id(card))
                card.deny.click()
        return False

    qtbot.waitUntil(settled, timeout=REPLY_TIMEOUT_MS)
    window.controller.reply_finished.disconnect(outcomes.append)
    return outcomes[0]


def test_consent_deny_then_allow_once(
    qtbot: QtBot, make_window: WindowFactory, servers: Path, tmp_path: Path
) -> None:
    window = open_window(qtbot, make_window)
    ready = {s.name: s.state for s in window.mcp.statuses()}
    assert ready["notes"] == "ready" and ready["broken"] == "failed"

    # Deny: the call never runs, and the reply still ends.
    type_and_send(qtbot, window, ASK_ADD)
    card = wait_for_card(qtbot, window, "asking")
    assert card.buttons.isVisibleTo(window) and card.details.isVisibleTo(window)
    assert card.title.text() == "Run add from the notes server?"
    assert json.loads(card.arguments.text()).keys() == {"a", "b"}
    outcome = answer_and_finish(qtbot, window, card.deny.click)
    calls = outcome.message.meta["tool_calls"]
    assert calls[0]["tool"] == "add" and all(c["state"] == "denied" for c in calls)
    assert card.state.text() == "Denied" and not card.buttons.isVisibleTo(window)

    # Allow once: it runs, its result is in the card (folded) and in the stored reply.
    type_and_send(qtbot, window, ASK_ADD)
    card = wait_for_card(qtbot, window, "asking")
    outcome = answer_and_finish(qtbot, window, card.allow_once.click)
    message = outcome.message
    (call,) = [c for c in message.meta["tool_calls"] if c["state"] == "done"][:1]
    assert call["tool"] == "add" and call["result"] == str(
        call["arguments"]["a"] + call["arguments"]["b"]
    )
    assert not card.details.isVisibleTo(window)  # folded once it ran
    card.toggle.click()
    assert card.result.text() == call["result"]

    # Reopened, the reply shows its calls again, and the next turn sees them.
    from engine.store.model_messages import history_for
    from tests.app.conftest import stored_messages

    conversation = outcome.conversation_id
    history, _chars = history_for(stored_messages(conversation), "")
    assert any(m.role == "tool" and m.content == call["result"] for m in history)
    window.controller.new_chat()
    window.controller.open_conversation(conversation)
    qtbot.waitUntil(lambda: bool(window.view.messages) and bool(reply(window).call_cards),
                    timeout=QUICK_MS)  # fmt: skip


def test_always_allow_is_remembered(
    qtbot: QtBot, make_window: WindowFactory, servers: Path
) -> None:
    window = open_window(qtbot, make_window)
    type_and_send(qtbot, window, ASK_ADD)
    card = wait_for_card(qtbot, window, "asking")
    answer_and_finish(qtbot, window, card.allow_always.click)
    assert window.mcp.consent.allowed("notes", "add")
    stored = json.loads((Path(os.environ["COVE_DATA_DIR"]) / "mcp-consent.json").read_text())
    assert stored["always_allow"] == {"notes": ["add"]}
    # The next call of that tool runs without asking.
    outcome = answer_and_finish(qtbot, window, lambda: type_and_send(qtbot, window, ASK_ADD))
    calls = outcome.message.meta["tool_calls"]
    # 'add' ran without asking (another tool, if the model reached for one, was asked about).
    assert any(c["tool"] == "add" and c["state"] == "done" for c in calls)
    assert all(c["state"] != "denied" for c in calls if c["tool"] == "add")


def test_settings_report_each_server(
    qtbot: QtBot, make_window: WindowFactory, servers: Path, tmp_path: Path
) -> None:
    window = open_window(qtbot, make_window)
    dialog = window.open_mcp_servers()
    rows = [dialog.list.item(i).text() for i in range(dialog.list.count())]
    notes = next(r for r in rows if r.startswith("notes"))
    broken = next(r for r in rows if r.startswith("broken"))
    assert "4 tools: add, read_note, save_note, page_title" in notes
    assert "failed:" in broken and "notes database not found" in broken
    if TIME_SERVER:
        assert "get_current_time" in next(r for r in rows if r.startswith("time"))

    # Import another app's list: its servers join; a name already listed keeps the listed one.
    other = tmp_path / "claude_desktop_config.json"
    other.write_text(json.dumps({"mcpServers": {"notes": {"command": "x"}, "more": entry(NOTES)}}))
    with qtbot.waitSignal(window.mcp.statuses_changed, timeout=LOAD_TIMEOUT_MS):
        dialog.import_file(other)
    names = [s.name for s in window.mcp.servers()]
    assert names.count("notes") == 1 and "more" in names
    assert next(s for s in window.mcp.servers() if s.name == "notes").command != "x"
    qtbot.waitUntil(lambda: any("more" in dialog.list.item(i).text() and "tools" in
                                dialog.list.item(i).text() for i in range(dialog.list.count())),
                    timeout=QUICK_MS)  # fmt: skip
    # Two servers offer 'add' now: the model sees each under its server's name.
    offered = {t.offered for s in window.mcp.statuses() for t in s.tools}
    assert {"notes__add", "more__add"} <= offered

    # A bad list is reported, not applied.
    bad = tmp_path / "bad.json"
    bad.write_text('{"mcpServers": {"x": {"command": 3}}}')
    dialog.import_file(bad)
    assert "'command' must be a non-empty string" in dialog.problem.text()
    dialog.close()


def test_a_result_is_shown_as_text(qtbot: QtBot, theme: Any) -> None:
    from app.chat.message.tool_call_card import ToolCallCard

    markup = '<b>Quarterly report</b><img src="http://127.0.0.1:9/x.png"><script>x()</script>'
    card = ToolCallCard(
        {"id": "c1", "server": "notes", "tool": "page_title", "arguments": {},
         "state": "done", "result": markup}
    )  # fmt: skip
    qtbot.addWidget(card)
    from PySide6.QtCore import Qt

    assert card.result.textFormat() == Qt.TextFormat.PlainText
    assert card.result.text() == markup


@pytest.fixture
def shots(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("COVE_SCREENSHOTS") or tmp_path / "shots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.mark.skipif(TIME_SERVER is None, reason="mcp-server-time is not installed")
def test_screenshots_of_a_tool_call(
    qtbot: QtBot,
    make_window: WindowFactory,
    data_dir: Path,
    tmp_path: Path,
    shots: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A person's own servers (kept in their home folder) and one from the registry: the
    consent prompt, the call once it ran, and Settings."""
    import sys

    from tests.support.screenshots import save as save_checked

    home = tmp_path / "home"
    (home / "mcp").mkdir(parents=True)
    notes = home / "mcp" / "notes.py"
    notes.write_text(NOTES.read_text())
    monkeypatch.setenv("HOME", str(home))
    data_dir.mkdir(parents=True, exist_ok=True)
    listed = {
        "time": {"command": TIME_SERVER, "args": ["--local-timezone", "Europe/Paris"]},
        "notes": {"command": sys.executable, "args": [str(notes)]},
        "calendar": {"command": "calendar-mcp", "args": ["--readonly"]},
    }
    (data_dir / "mcp.json").write_text(json.dumps({"mcpServers": listed}))
    window = open_window(qtbot, make_window)
    window.resize(1280, 720)
    type_and_send(qtbot, window, "What time is it in Tokyo right now?")
    card = wait_for_card(qtbot, window, "asking")
    save_checked(window, shots, "tool-consent-light")
    answer_and_finish(qtbot, window, card.allow_once.click)
    card.toggle.click()
    qtbot.wait(50)  # one paint of the unfolded card
    save_checked(window, shots, "tool-call-light")
    dialog = window.open_mcp_servers()
    dialog.resize(820, 460)
    assert dialog.grab().save(str(shots / "mcp-servers-light.png"))
    dialog.close()
