"""The host's HTTP connections write small pieces at once (TCP_NODELAY) and acknowledge each
request as it arrives (TCP_QUICKACK), read from the server's own socket while it answers a
second request on a kept-alive connection, where both waits bit (engine/host/http/quick_ack.py)."""

from __future__ import annotations

import http.client
import socket
import sys
import threading
from collections.abc import Iterator
from typing import Any

import pytest
import uvicorn

from engine.host.http.quick_ack import QuickAckH11
from engine.host.server import make_server

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="TCP_QUICKACK is Linux's")


def _serve(http: Any) -> Iterator[tuple[int, list[tuple[int, int]]]]:
    seen: list[tuple[int, int]] = []  # (TCP_NODELAY, TCP_QUICKACK) when each request is handled
    holder: list[uvicorn.Server] = []

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        client_port = scope["client"][1]
        for conn in holder[0].server_state.connections:
            sock = conn.transport.get_extra_info("socket")
            if sock.getpeername()[1] == client_port:
                seen.append(
                    (
                        sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY),
                        sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_QUICKACK),
                    )
                )
        await receive()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    config = uvicorn.Config(
        app, host="127.0.0.1", port=0, http=http, log_config=None, lifespan="off"
    )
    server = uvicorn.Server(config)
    holder.append(server)
    ready = threading.Event()
    sockets: list[socket.socket] = []

    def run() -> None:
        sock = config.bind_socket()
        sock.listen(16)  # connections wait in the backlog until the server accepts them
        sockets.append(sock)
        ready.set()
        server.run(sockets=[sock])

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    assert ready.wait(30)
    try:
        yield sockets[0].getsockname()[1], seen
    finally:
        server.should_exit = True
        thread.join(30)


def _two_requests(port: int) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    for _ in range(2):  # the second on the same connection
        conn.request("POST", "/", body=b"{}", headers={"Content-Type": "application/json"})
        assert conn.getresponse().read() == b"ok"
    conn.close()


def test_requests_are_answered_without_the_small_write_waits() -> None:
    for port, seen in _serve(QuickAckH11):
        _two_requests(port)
        assert seen == [(1, 1), (1, 1)]


def test_the_host_serves_with_it() -> None:
    from engine.host.server import ServeOptions

    options = ServeOptions.__new__(ServeOptions)
    object.__setattr__(options, "tls", None)
    assert make_server(lambda *a: None, options).config.http is QuickAckH11  # type: ignore[arg-type]
