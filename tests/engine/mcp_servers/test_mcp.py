"""MCP servers through the official SDK: the server list read as other apps write it, real
servers started over stdio and Streamable HTTP (one written here, ``mcp-server-time`` from the
registry), a failing server reported on its own line without hiding the others, consent
remembered per server and tool, and the chat loop's decisions around the calls."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import psutil
import pytest

from engine.errors import McpConfigError
from engine.launch import guarded_command
from engine.mcp_servers import config
from engine.mcp_servers.consent import ConsentStore, Decision
from engine.mcp_servers.hub import McpHub, ServerTool, result_text
from engine.mcp_servers.turn import DENIED, WRAP_UP, CallRecord, run_turn
from engine.tools import ToolCall
from engine.types import ChatMessage, Chunk, GenerationParams
from tests.mcp_servers import CRASHES, LINGERS, NOTES, entry
from tests.orphans import kill_and_expect_ended

TIME_SERVER = shutil.which("mcp-server-time")


@pytest.fixture(scope="module")
def hub(tmp_path_factory: pytest.TempPathFactory) -> Iterator[McpHub]:
    servers: dict[str, Any] = {
        "notes": entry(NOTES),
        "broken": entry(CRASHES),
        "missing": {"command": "cove-no-such-mcp-server"},
        "off": {**entry(NOTES), "disabled": True},
    }
    if TIME_SERVER:
        servers["time"] = {"command": TIME_SERVER, "args": ["--local-timezone", "UTC"]}
    with McpHub(config.parse({"mcpServers": servers}), tmp_path_factory.mktemp("logs")) as h:
        yield h


def test_every_server_has_its_own_status(hub: McpHub) -> None:
    states = {s.name: s for s in hub.statuses()}
    assert states["notes"].state == "ready"
    assert {t.name for t in states["notes"].tools} >= {"add", "read_note", "save_note"}
    assert states["off"].state == "disabled"
    # A server that dies at start says why, in its own words.
    assert states["broken"].state == "failed"
    assert "notes database not found" in states["broken"].error
    assert states["missing"].state == "failed"
    assert "cove-no-such-mcp-server was not found" in states["missing"].error
    # ... and hides nobody's tools.
    assert hub.find("add") is not None
    assert [s.name for s in hub.statuses()][:4] == ["notes", "broken", "missing", "off"]


@pytest.mark.skipif(TIME_SERVER is None, reason="mcp-server-time is not installed")
def test_a_server_from_the_registry(hub: McpHub) -> None:
    tool = hub.find("get_current_time")
    assert tool is not None and tool.server == "time"
    result = hub.call(tool, {"timezone": "Europe/Paris"})
    assert not result.is_error
    assert json.loads(result.text)["timezone"] == "Europe/Paris"
    bad = hub.call(tool, {"timezone": "Not/A_Zone"})
    assert bad.is_error


def test_calls_and_their_errors(hub: McpHub) -> None:
    add = hub.find("add")
    assert add is not None
    assert hub.call(add, {"a": 2, "b": 40}).text == "42"
    wrong = hub.call(add, {"a": "two"})
    assert wrong.is_error and "a" in wrong.text
    read = hub.find("read_note")
    assert read is not None
    missing = hub.call(read, {"title": "holidays"})
    assert missing.is_error and "groceries" in missing.text


def test_a_result_stays_text(hub: McpHub) -> None:
    tool = hub.find("page_title")
    assert tool is not None
    text = hub.call(tool, {}).text
    assert text.startswith("<b>Quarterly report</b>") and "<script>" in text


def test_long_results_are_cut_and_say_so() -> None:
    class Part:
        type = "text"
        text = "x" * 50_000

    text = result_text([Part()])
    assert len(text) < 21_000 and "50,000 characters" in text


def test_streamable_http(tmp_path: Path) -> None:
    port = _free_port()
    program, arguments = guarded_command(sys.executable, [str(NOTES), "--http", str(port)])
    server = subprocess.Popen(
        [program, *arguments],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        _wait_for_port(port, server)
        servers = config.parse({"mcpServers": {"web": {"url": f"http://127.0.0.1:{port}/mcp"}}})
        with McpHub(servers, tmp_path) as hub:
            (status,) = hub.statuses()
            assert status.state == "ready" and status.transport == "http"
            add = hub.find("add")
            assert add is not None and hub.call(add, {"a": 1, "b": 2}).text == "3"
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_an_unreachable_address_is_a_status(tmp_path: Path) -> None:
    port = _free_port()  # nothing listens there
    servers = config.parse({"mcpServers": {"web": {"url": f"http://127.0.0.1:{port}/mcp"}}})
    with McpHub(servers, tmp_path) as hub:
        (status,) = hub.statuses()
        assert status.state == "failed" and status.error


def test_two_servers_with_one_tool_name(tmp_path: Path) -> None:
    servers = config.parse({"mcpServers": {"a": entry(NOTES), "b": entry(NOTES)}})
    with McpHub(servers, tmp_path) as hub:
        names = [t.offered for t in hub.tools() if t.name == "add"]
        assert names == ["a__add", "b__add"]
        tool = hub.find("b__add")
        assert tool is not None and tool.server == "b"
        assert hub.call(tool, {"a": 1, "b": 1}).text == "2"


def test_no_servers_start_nothing(tmp_path: Path) -> None:
    hub = McpHub([], tmp_path)
    assert hub.start() == [] and hub.tools() == []
    hub.close()
    assert not list(tmp_path.iterdir())


# -- the list --------------------------------------------------------------------------------------


def test_the_list_as_other_apps_write_it(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "files": {
                        "command": "npx",
                        "args": ["-y", "@modelcontextprotocol/server-filesystem", "/srv"],
                        "env": {"DEBUG": "0"},
                    },
                    "remote": {
                        "type": "http",
                        "url": "https://mcp.example.org/mcp",
                        "headers": {"Authorization": "Bearer x"},
                    },
                }
            }
        )
    )
    files, remote = config.load(path)
    assert files.transport == "stdio" and files.args[-1] == "/srv" and files.env == {"DEBUG": "0"}
    assert remote.transport == "http" and remote.headers["Authorization"] == "Bearer x"
    assert "Bearer" not in remote.describe()
    config.save([files, remote], path)
    assert config.load(path) == [files, remote]


@pytest.mark.parametrize(
    ("body", "named"),
    [
        ({"mcpServers": []}, "'mcpServers' must be an object"),
        ({"mcpServers": {"x": {}}}, "server 'x' needs exactly one of"),
        ({"mcpServers": {"x": {"command": "a", "url": "http://h"}}}, "exactly one of"),
        ({"mcpServers": {"x": {"command": "a", "args": "b"}}}, "'args' must be a list"),
        ({"mcpServers": {"x": {"url": "ftp://h"}}}, "http:// or https://"),
        ({"mcpServers": {"x": {"url": "http://h", "type": "sse"}}}, "'sse' is not supported"),
        ({"mcpServers": {"x": {"command": "a", "colour": 1}}}, "'colour'"),
        ({"mcpServers": {"x": {"command": "a", "timeout": -1}}}, "'timeout'"),
    ],
)
def test_a_bad_list_names_the_entry(body: object, named: str) -> None:
    with pytest.raises(McpConfigError, match=named):
        config.parse(body)


def test_an_unreadable_list(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text("{not json")
    with pytest.raises(McpConfigError, match="not valid JSON"):
        config.load(path)
    with pytest.raises(McpConfigError, match="No MCP server list"):
        config.load(tmp_path / "absent.json")


# -- consent ---------------------------------------------------------------------------------------


def test_always_is_remembered_per_server_and_tool(tmp_path: Path) -> None:
    path = tmp_path / "consent.json"
    store = ConsentStore(path)
    store.record("notes", "add", "once")
    store.record("notes", "save_note", "deny")
    assert not store.allowed("notes", "add")
    store.record("notes", "add", "always")
    again = ConsentStore(path)
    assert again.allowed("notes", "add")
    assert not again.allowed("other", "add") and not again.allowed("notes", "save_note")
    again.forget("notes", "add")
    assert not ConsentStore(path).allowed("notes", "add")


def test_an_unreadable_consent_file_asks_again(tmp_path: Path) -> None:
    path = tmp_path / "consent.json"
    path.write_text("[1, 2")
    assert not ConsentStore(path).allowed("notes", "add")


# -- the loop --------------------------------------------------------------------------------------


class Script:
    """The model's side of a turn, scripted: each round's reply (text, calls). What each round
    was offered and shown is kept for the assertions."""

    def __init__(self, *rounds: tuple[str, Sequence[ToolCall]]) -> None:
        self.rounds = list(rounds)
        self.offered: list[list[str]] = []
        self.seen: list[list[ChatMessage]] = []

    def __call__(
        self, messages: Sequence[ChatMessage], params: GenerationParams
    ) -> Iterator[Chunk]:
        self.offered.append([t.name for t in params.tools])
        self.seen.append(list(messages))
        text, calls = self.rounds.pop(0)
        yield Chunk(text=text)
        yield Chunk(finish_reason="stop", tool_calls=tuple(calls))


def _turn(
    hub: McpHub, script: Script, answers: list[Decision], tmp_path: Path
) -> tuple[Any, list[CallRecord]]:
    asked: list[Decision] = list(answers)
    seen: list[CallRecord] = []

    def ask(_tool: ServerTool, _call: ToolCall) -> Decision:
        return asked.pop(0)

    result = run_turn(
        script,
        [ChatMessage("user", "question")],
        GenerationParams(),
        hub,
        ConsentStore(tmp_path / "consent.json"),
        ask,
        on_call=lambda r: seen.append(CallRecord(r.id, r.server, r.tool, r.arguments, r.state)),
    )
    return result, seen


def test_a_call_runs_after_consent_and_its_result_goes_back(hub: McpHub, tmp_path: Path) -> None:
    call = ToolCall("add", {"a": 20, "b": 22})
    script = Script(("", [call]), ("It is 42.", []))
    result, seen = _turn(hub, script, ["once"], tmp_path)
    assert result.text == "It is 42."
    assert [r.state for r in seen] == ["asking", "running", "done"]
    tool_turn = script.seen[1][-1]
    assert tool_turn.role == "tool" and tool_turn.content == "42"
    assert tool_turn.tool_call_id == call.id
    assert [m.role for m in result.messages] == ["assistant", "tool"]


def test_deny_withdraws_the_tool_for_the_turn(hub: McpHub, tmp_path: Path) -> None:
    script = Script(("", [ToolCall("save_note", {"title": "t", "text": "x"})]), ("Fine.", []))
    result, seen = _turn(hub, script, ["deny"], tmp_path)
    assert [r.state for r in seen] == ["asking", "denied"]
    assert result.messages[-1].content == DENIED
    assert "save_note" in script.offered[0] and "save_note" not in script.offered[1]
    reader = hub.find("read_note")
    assert reader is not None
    assert hub.call(reader, {"title": "t"}).is_error  # the denied call never ran


def test_always_asks_once(hub: McpHub, tmp_path: Path) -> None:
    first = Script(("", [ToolCall("add", {"a": 1, "b": 2})]), ("3", []))
    _turn(hub, first, ["always"], tmp_path)
    second = Script(("", [ToolCall("add", {"a": 2, "b": 2})]), ("4", []))
    _result, seen = _turn(hub, second, [], tmp_path)  # no answer left: asking would fail
    assert [r.state for r in seen] == ["running", "done"]


def test_a_repeated_call_asks_for_the_answer(hub: McpHub, tmp_path: Path) -> None:
    call = ToolCall("add", {"a": 1, "b": 1})
    again = ToolCall("add", {"a": 1, "b": 1})
    script = Script(("", [call]), ("", [again]), ("Two.", []))
    result, seen = _turn(hub, script, ["once"], tmp_path)
    assert result.text == "Two."
    assert [r.state for r in seen].count("done") == 1
    assert script.offered[2] == [] and script.seen[2][-1].content == WRAP_UP
    assert all(m.content != WRAP_UP for m in result.messages)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_for_port(port: int, process: subprocess.Popen[bytes]) -> None:
    """Until the server accepts a connection (it exits, or 600 tries: the test fails)."""
    for _ in range(600):
        if process.poll() is not None:
            raise AssertionError(f"the MCP server exited with {process.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.1):
                return
        except OSError:
            try:
                process.wait(timeout=0.1)
            except subprocess.TimeoutExpired:
                continue
    raise AssertionError("the MCP server never listened")


def test_cove_mcp_list(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from engine.cli import main

    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": {"notes": entry(NOTES), "broken": entry(CRASHES)}}))
    assert main(["mcp", "list", "--json", "--config", str(path)]) == 0
    listed = json.loads(capsys.readouterr().out)
    notes, broken = listed["servers"]
    assert notes["state"] == "ready" and "add" in [t["name"] for t in notes["tools"]]
    assert broken["state"] == "failed" and "notes database not found" in broken["error"]
    assert main(["mcp", "list", "--config", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("notes: ready, 4 tools") and "    add: Add two integers." in lines
    assert lines[-1].startswith("broken: failed: ")
    path.write_text('{"mcpServers": {"x": {}}}')
    assert main(["mcp", "list", "--config", str(path)]) == 1
    assert "server 'x' needs exactly one of" in capsys.readouterr().err


def test_a_killed_cove_chat_takes_its_stdio_servers_with_it(tmp_path: Path) -> None:
    """``cove chat --mcp`` ended with SIGKILL (no close, no cleanup): the MCP servers it started
    over stdio end with it, as the person who stopped it expects, also one that would go on
    running after its input closed."""
    servers = tmp_path / "mcp.json"
    servers.write_text(json.dumps({"mcpServers": {"lingers": entry(LINGERS)}}))
    env = {**os.environ, "COVE_DATA_DIR": str(tmp_path / "data")}
    chat = subprocess.Popen(
        [sys.executable, "-m", "engine.cli", "chat", "--model", "starter", "--mcp", str(servers),
         "--yes"],
        stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env,
    )  # fmt: skip
    try:
        assert chat.stderr is not None
        for raw in chat.stderr:  # until the server is connected (or the chat ends)
            if b"[lingers: ready" in raw:
                break
        (server,) = [
            p for p in psutil.Process(chat.pid).children() if str(LINGERS) in " ".join(p.cmdline())
        ]
        kill_and_expect_ended(chat, [server])
    finally:
        if chat.poll() is None:
            chat.kill()
            chat.wait(30)
