"""Web pages and apps the person allows use the engine from a browser (engine/host/http/cors.py):
pages of this computer and desktop apps by default, others with ``--allow-origin`` or
``COVE_ORIGINS``; every other origin is refused with a 403 before anything runs, and a request
without an ``Origin`` is served as it always was."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from starlette.responses import JSONResponse
from starlette.testclient import TestClient
from starlette.types import Receive, Scope, Send

from engine.host.http.cors import (
    ORIGINS_ENV,
    Cors,
    allowed,
    default_allowed,
    with_environment,
)
from engine.host.http.guards import Guard, HostConfig
from engine.host.protocols.routes import make_app
from engine.host.server import ServeOptions, host_config
from engine.host.state import HostState
from tests.support.remote_process import CoveProcess, free_port

LOCAL_PAGE = "http://127.0.0.1:5173"
OBSIDIAN = "app://obsidian.md"
EVIL = "https://evil.example"
EXTENSION = "chrome-extension://abcdefghijklmnopabcdefghijklmnop"
KEY = "cove-test-key"
HI = [{"role": "user", "content": "Hi"}]
SDK_HEADERS = "authorization, content-type, x-stainless-os, openai-organization, anthropic-version"


def asking(origin: str, **extra: str) -> dict[str, str]:
    """A browser's preflight before a POST with JSON and an SDK's headers."""
    return {
        "Origin": origin,
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": SDK_HEADERS,
        **extra,
    }


class Counting:
    """An app behind the middleware that counts the requests that reach it."""

    def __init__(self) -> None:
        self.calls = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        self.calls += 1
        await JSONResponse({"ok": True}, headers={"cove-ignored": "x"})(scope, receive, send)


def counted(config: HostConfig) -> tuple[Counting, TestClient]:
    inner = Counting()
    client = TestClient(Cors(Guard(inner, config), config), base_url="http://127.0.0.1:8080")
    return inner, client


@pytest.fixture
def host() -> Iterator[TestClient]:
    """The host's real routes, without a model, addressed as a loopback server is."""
    state = HostState()
    try:
        with TestClient(make_app(state, HostConfig()), base_url="http://127.0.0.1:8080") as client:
            yield client
    finally:
        state.close()


# -- which origins --------------------------------------------------------------------------------


def test_pages_of_this_computer_and_desktop_apps_are_allowed_by_default() -> None:
    for origin in (
        LOCAL_PAGE,
        "https://localhost",
        "http://localhost:3000",
        "http://127.4.5.6:8000",
        "http://[::1]:8080",
        OBSIDIAN,
        "tauri://localhost",
        "vscode-webview://1a2b3c",
        "vscode-file://vscode-app",
    ):
        assert default_allowed(origin), origin
    for origin in (
        "null",
        "file://",
        "https://localhost.evil.example",
        "http://127.0.0.1.evil.example",
        "ftp://127.0.0.1",
        "http://192.168.1.10:8080",
        EVIL,
        EXTENSION,
        "app://",
        "http://127.0.0.1:notaport",
    ):
        assert not default_allowed(origin), origin


def test_patterns_match_the_whole_origin_and_star_allows_every_one() -> None:
    assert allowed(EXTENSION, ["chrome-extension://*"])
    assert allowed("https://notes.example.org", ["https://*.example.org"])
    assert not allowed("https://example.org.evil.example", ["https://*.example.org"])
    assert not allowed("http://notes.example.org", ["https://*.example.org"])
    assert allowed("HTTPS://Notes.Example.org", ["https://notes.example.org"])
    assert allowed(EVIL, ["*"]) and allowed("null", ["*"])
    assert not allowed(EVIL, [])


def test_cove_origins_adds_to_the_options() -> None:
    env = {ORIGINS_ENV: " chrome-extension://* ,https://a.example,, "}
    assert with_environment(["https://b.example"], env) == (
        "https://b.example",
        "chrome-extension://*",
        "https://a.example",
    )
    assert with_environment([], {}) == ()


def test_host_config_takes_the_option_and_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ORIGINS_ENV, "https://a.example")
    config = host_config(ServeOptions(allow_origins=("chrome-extension://*",)))
    assert config.allow_origins == ("chrome-extension://*", "https://a.example")


# -- the answers ----------------------------------------------------------------------------------


def test_a_local_page_s_preflight_is_answered_with_what_it_asked_for() -> None:
    inner, client = counted(HostConfig())
    answer = client.options("/v1/chat/completions", headers=asking(LOCAL_PAGE))
    assert answer.status_code == 204 and inner.calls == 0  # answered here: no key needed
    h = answer.headers
    assert h["access-control-allow-origin"] == LOCAL_PAGE
    assert "Origin" in h["vary"]
    assert h["access-control-allow-headers"] == SDK_HEADERS
    for method in ("GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"):
        assert method in h["access-control-allow-methods"]
    assert h["access-control-max-age"] == "600"
    assert "access-control-allow-private-network" not in h
    chrome = client.options(
        "/v1/models", headers=asking(OBSIDIAN, **{"Access-Control-Request-Private-Network": "true"})
    )
    assert chrome.status_code == 204
    assert chrome.headers["access-control-allow-origin"] == OBSIDIAN
    assert chrome.headers["access-control-allow-private-network"] == "true"
    bare = client.options(
        "/v1/models", headers={"Origin": LOCAL_PAGE, "Access-Control-Request-Method": "GET"}
    )
    for header in ("authorization", "x-api-key", "anthropic-version", "x-stainless-os"):
        assert header in bare.headers["access-control-allow-headers"]


def test_an_allowed_origin_s_answer_can_be_read() -> None:
    inner, client = counted(HostConfig())
    answer = client.post("/v1/chat/completions", json={}, headers={"Origin": OBSIDIAN})
    assert answer.status_code == 200 and inner.calls == 1
    assert answer.headers["access-control-allow-origin"] == OBSIDIAN
    assert answer.headers["vary"] == "Origin"
    exposed = answer.headers["access-control-expose-headers"].lower()
    assert "cove-ignored" in exposed and "retry-after" in exposed


def test_another_origin_is_refused_and_nothing_runs() -> None:
    inner, client = counted(HostConfig())
    for answer in (
        client.options("/v1/chat/completions", headers=asking(EVIL)),
        client.post("/v1/chat/completions", json={}, headers={"Origin": EVIL}),
        client.get("/api/tags", headers={"Origin": "null"}),
    ):
        assert answer.status_code == 403
        assert not any(k.startswith("access-control-") for k in answer.headers)
        error = answer.json()["error"]
        assert error["code"] == "origin_not_allowed"
    assert inner.calls == 0
    message = client.post("/v1/models", headers={"Origin": EVIL}).json()["error"]["message"]
    assert message == (
        "Requests from https://evil.example are not allowed. Allow this origin with "
        "`cove serve --allow-origin https://evil.example` (or COVE_ORIGINS)."
    )


def test_allowed_patterns_and_star() -> None:
    inner, client = counted(HostConfig(allow_origins=("chrome-extension://*",)))
    assert client.options("/api/chat", headers=asking(EXTENSION)).status_code == 204
    answer = client.post("/api/chat", json={}, headers={"Origin": EXTENSION})
    assert answer.headers["access-control-allow-origin"] == EXTENSION
    assert client.post("/api/chat", json={}, headers={"Origin": EVIL}).status_code == 403
    assert inner.calls == 1
    _, every = counted(HostConfig(allow_origins=("*",)))
    answer = every.post("/v1/messages", json={}, headers={"Origin": EVIL})
    assert answer.status_code == 200
    assert answer.headers["access-control-allow-origin"] == EVIL


def test_without_an_origin_nothing_changes() -> None:
    inner, client = counted(HostConfig())
    answer = client.post("/v1/chat/completions", json={})
    assert answer.status_code == 200 and inner.calls == 1
    assert not any(k.startswith("access-control-") for k in answer.headers)
    assert "vary" not in answer.headers


def test_the_key_is_still_needed_and_its_refusal_is_readable() -> None:
    inner, client = counted(HostConfig(api_key=KEY))
    assert client.options("/v1/chat/completions", headers=asking(LOCAL_PAGE)).status_code == 204
    refused = client.post("/v1/chat/completions", json={}, headers={"Origin": LOCAL_PAGE})
    assert refused.status_code == 401 and inner.calls == 0
    assert refused.headers["access-control-allow-origin"] == LOCAL_PAGE
    keyed = client.post(
        "/v1/chat/completions",
        json={},
        headers={"Origin": LOCAL_PAGE, "Authorization": f"Bearer {KEY}"},
    )
    assert keyed.status_code == 200 and inner.calls == 1


def test_the_host_header_check_stays() -> None:
    inner, _ = counted(HostConfig())
    config = HostConfig()
    elsewhere = TestClient(Cors(Guard(inner, config), config), base_url="http://rebound.example")
    assert elsewhere.post("/v1/models", json={}, headers={"Origin": LOCAL_PAGE}).status_code == 400
    assert elsewhere.options("/v1/models", headers=asking(LOCAL_PAGE)).status_code == 400
    assert inner.calls == 0


def test_every_protocol_s_routes(host: TestClient, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="cove.host")
    for path in ("/v1/chat/completions", "/v1/messages", "/api/chat", "/cove/v1/load"):
        assert host.options(path, headers=asking(LOCAL_PAGE)).status_code == 204
        answer = host.post(path, json={"model": "nothing"}, headers={"Origin": LOCAL_PAGE})
        assert answer.headers["access-control-allow-origin"] == LOCAL_PAGE, path
        assert answer.status_code != 403
        refused = host.post(path, json={"model": "nothing"}, headers={"Origin": EVIL})
        assert refused.status_code == 403, path
    for path in ("/v1/models", "/api/tags", "/cove/v1/status"):
        answer = host.get(path, headers={"Origin": OBSIDIAN})
        assert answer.status_code == 200
        assert answer.headers["access-control-allow-origin"] == OBSIDIAN
    # The refused never reached the routes: only the allowed ones are in the request log.
    served = [r.getMessage() for r in caplog.records if r.getMessage().startswith("POST ")]
    assert len(served) == 4
    assert sum("refused POST" in r.getMessage() for r in caplog.records) == 4


# -- a real ``cove serve`` ------------------------------------------------------------------------


def _stream(client: httpx.Client, origin: str | None, key: str | None) -> httpx.Response:
    headers = {"Origin": origin} if origin else {}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    body = {"model": "starter", "messages": HI, "max_tokens": 4, "stream": True}
    with client.stream("POST", "/v1/chat/completions", json=body, headers=headers) as answer:
        answer.read()
    return answer


@pytest.mark.usefixtures("starter")
def test_a_real_server_streams_to_an_allowed_origin(tmp_path: Path) -> None:
    port = free_port()
    proc = CoveProcess(
        tmp_path / "data", "serve", "--model", "starter", "--ctx", "1024", "--port", str(port),
        "--api-key", KEY, "--allow-origin", "chrome-extension://*",
    )  # fmt: skip
    try:
        proc.wait_for("serving on http://")
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=120) as client:
            refused = _stream(client, EVIL, KEY)
            assert refused.status_code == 403
            assert "access-control-allow-origin" not in refused.headers
            assert "--allow-origin https://evil.example" in refused.json()["error"]["message"]
            asked = client.options("/v1/chat/completions", headers=asking(LOCAL_PAGE))
            assert asked.status_code == 204  # no key on a preflight
            assert asked.headers["access-control-allow-origin"] == LOCAL_PAGE
            keyless = _stream(client, LOCAL_PAGE, None)
            assert keyless.status_code == 401
            assert keyless.headers["access-control-allow-origin"] == LOCAL_PAGE
            streamed = _stream(client, EXTENSION, KEY)
            assert streamed.status_code == 200
            assert streamed.headers["content-type"].startswith("text/event-stream")
            assert streamed.headers["access-control-allow-origin"] == EXTENSION
            events = [e for e in streamed.text.split("\n\n") if e.startswith("data: {")]
            assert events and json.loads(events[0][6:])["object"] == "chat.completion.chunk"
            assert streamed.text.rstrip().endswith("data: [DONE]")
            plain = _stream(client, None, KEY)
            assert plain.status_code == 200
            assert "access-control-allow-origin" not in plain.headers
        # The refused request ran nothing: the request log has the two streams and the 401.
        proc.wait_for_count("POST /v1/chat/completions 200", 2, timeout=60)
        log = proc.log
        assert "refused POST /v1/chat/completions from the web origin https://evil.example" in log
        assert log.count("POST /v1/chat/completions 200") == 2
        assert log.count("POST /v1/chat/completions 401") == 1
    finally:
        proc.stop()
