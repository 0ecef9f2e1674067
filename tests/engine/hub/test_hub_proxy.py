"""The system's proxy settings are honoured: with HTTP_PROXY set, the hub's API, its CDN and the
search through huggingface_hub all go through the proxy (a loopback forwarding proxy that counts
what it forwards), and a download through it is verified and installed."""

from __future__ import annotations

import http.client
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from engine.hub.api import Hub, HubConfig
from engine.hub.download import DownloadManager, DownloadRequest
from engine.hub.search import search_hub
from tests.support.downloads import WAIT_S, options
from tests.support.fake_hub import FakeHub, random_bytes

REPO = "acme/Proxied-GGUF"
FILE = "proxied-Q4_K_M.gguf"
HOP_BY_HOP = {"connection", "keep-alive", "proxy-connection", "transfer-encoding"}


class _Proxy(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    seen: list[tuple[str, str]]

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_HEAD(self) -> None:
        self._forward()

    def do_GET(self) -> None:
        self._forward()

    def _forward(self) -> None:
        target = urlsplit(self.path)  # a proxy is asked for absolute URLs
        self.seen.append((self.command, f"{target.hostname}:{target.port}{target.path}"))
        upstream = http.client.HTTPConnection(target.hostname or "", target.port, timeout=30)
        path = target.path + (f"?{target.query}" if target.query else "")
        headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
        upstream.request(self.command, path, headers=headers)
        answer = upstream.getresponse()
        body = answer.read() if self.command != "HEAD" else b""
        self.send_response(answer.status)
        for key, value in answer.getheaders():
            if key.lower() not in HOP_BY_HOP | {"content-length"}:
                self.send_header(key, value)
        length = answer.getheader("Content-Length") if self.command == "HEAD" else len(body)
        self.send_header("Content-Length", str(length or 0))
        self.end_headers()
        if body:
            self.wfile.write(body)
        upstream.close()


@pytest.fixture
def proxy() -> Iterator[tuple[str, list[tuple[str, str]]]]:
    seen: list[tuple[str, str]] = []
    handler = type("Proxy", (_Proxy,), {"seen": seen})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", seen
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_the_hub_its_cdn_and_search_go_through_the_system_proxy(
    proxy: tuple[str, list[tuple[str, str]]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    address, seen = proxy
    for key in ("HTTP_PROXY", "http_proxy", "ALL_PROXY"):
        monkeypatch.setenv(key, address)
    for key in ("NO_PROXY", "no_proxy"):
        monkeypatch.delenv(key, raising=False)
    with FakeHub() as hub:
        data = random_bytes(2 << 20, 4)
        hub.add(REPO, FILE, data)
        config = HubConfig(endpoint=hub.endpoint)
        with Hub(config) as client:
            assert [f.path for f in client.list_files(REPO)] == [FILE]
        manager = DownloadManager(config, models=tmp_path, options=options())
        try:
            result = manager.enqueue(DownloadRequest(REPO, FILE)).wait(WAIT_S)
        finally:
            manager.close()
        assert result.status == "done", result.error
        assert result.path is not None and result.path.read_bytes() == data
        assert [h.repo for h in search_hub(config, "proxied")] == [REPO]
        hub_port, cdn_port = urlsplit(hub.endpoint).port, urlsplit(hub.state.cdn_url).port
    paths = [p for _m, p in seen]
    assert any(p.startswith(f"127.0.0.1:{hub_port}/api/models/{REPO}/tree") for p in paths)
    assert any(p == f"127.0.0.1:{hub_port}/api/models" for p in paths)  # the search
    assert any(p.startswith(f"127.0.0.1:{cdn_port}/cdn/") for p in paths)  # the bytes
